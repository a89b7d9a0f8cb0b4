/** `rocelab node` (src/cli/node.ts loads `runNode` from here): the real-runtime node, src/runtime/real/node.ts. */
export { runNode } from './real/node.js';
