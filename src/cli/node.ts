/**
 * `rocelab node`: one node (NIC or switch) of a real-time run, configured from environment
 * variables (docs/realtime.md "`rocelab node`: the environment contract"); the local and netns
 * launchers and containers start nodes this way.
 */
import { HELP_FLAG, noExtraArgs, parseCommandArgs, println } from './args.js';
import { type CliIo, nodeOf } from './io.js';

export const NODE_HELP = `Usage: rocelab node

Run one node (NIC or switch) of a real-runtime experiment, configured from environment
variables; containers and the local/netns launchers start nodes this way.
`;

export async function nodeCommand(argv: readonly string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandArgs('node', HELP_FLAG, argv);
  if (values.help === true) {
    println(io, NODE_HELP);
    return 0;
  }
  noExtraArgs('node', positionals, 0);
  await (await nodeOf(io))({ env: io.env });
  return 0;
}
