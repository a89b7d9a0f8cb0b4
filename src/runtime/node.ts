/** `rocelab node` (src/cli/node.ts loads `runNode` from here): the real-runtime node, src/runtime/real/run-node.ts. */
export { runNode } from './real/run-node.js';
