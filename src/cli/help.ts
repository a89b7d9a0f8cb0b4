/** `rocelab --help` and `rocelab help [command]`. */
import { HELP_FLAG, parseCommandArgs, println, UsageError } from './args.js';
import type { CliIo } from './io.js';

export const HELP = `rocelab — RoCEv2 congestion-control testbed (NIC and switch firmware in TypeScript)

Usage:
  rocelab run <scenario.yaml> [--runtime virtual|local|netns] [--cc NAME] [--set key=value]...
              [--seed N] [--out DIR] [--pcap] [--json] [--allow-late] [--keep-logs]
  rocelab compare <scenario.yaml> --cc a,b[,c…] [--runtime …] [--set key=value]... [--set-for ALG:key=value]... [--seed N]
              [--out DIR] [--json]
  rocelab reproduce <algorithm|all> [--quick] [--check ID,…] [--out DIR] [--json]
                             run an algorithm's paper acceptance checks, print the table
  rocelab list [--json]      algorithms with their parameters, shipped scenarios
  rocelab node               one node of a real run, configured from environment variables
  rocelab deploy compose|k8s <scenario.yaml> [--out DIR]
                             a docker compose project or a kustomize directory (docs/deploy.md)
  rocelab sweep <sweep.yaml> [--jobs N] [--emit k8s|slurm] | rocelab sweep collect <DIR>
                             many runs: on local cores, or as cluster job arrays (docs/deploy.md)
  rocelab --help | --version
  rocelab <command> --help   details of one command

Exit status: 0 ok, 2 bad input (one line on stderr naming the problem), 1 internal error.
Environment: ROCELAB_SET="key=value;key=value" (applied before --set), ROCELAB_DEBUG=1 (stack
traces). Scenario reference: docs/scenario.md; commands: docs/cli.md.
`;

const HELP_HELP = 'Usage: rocelab help [command]\n';

/** The commands `rocelab help <command>` explains (the same text as `rocelab <command> --help`). */
const TOPICS: Record<string, () => Promise<string>> = {
  run: async () => (await import('./run.js')).RUN_HELP,
  compare: async () => (await import('./compare.js')).COMPARE_HELP,
  reproduce: async () => (await import('./reproduce.js')).REPRODUCE_HELP,
  list: async () => (await import('./list.js')).LIST_HELP,
  node: async () => (await import('./node.js')).NODE_HELP,
  deploy: async () => (await import('./deploy.js')).DEPLOY_HELP,
  sweep: async () => (await import('./sweep.js')).SWEEP_HELP,
};

export async function helpCommand(argv: readonly string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandArgs('help', HELP_FLAG, argv);
  if (values.help === true) {
    println(io, HELP_HELP);
    return 0;
  }
  const topic = positionals[0];
  if (topic === undefined) println(io, HELP);
  else if (Object.hasOwn(TOPICS, topic)) println(io, await TOPICS[topic]());
  else throw new UsageError(`no help for "${topic}"; commands: ${Object.keys(TOPICS).join(', ')}`);
  return 0;
}
