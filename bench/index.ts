/**
 * `npm run bench`: runs every registered benchmark in order. Add a suite by appending it to
 * BENCHES (name + async function that prints its own results). Arguments that are bench names
 * choose which run (all when none is given); the others (`--flag [value]`) go to each bench.
 */
import { benchMpcc } from './mpcc.js';
import { benchRealtime } from './realtime.js';
import { benchSweep } from './sweep.js';
import { benchVirtual } from './virtual.js';
import { benchWire } from './wire.js';

export const BENCHES: { name: string; run: (args: string[]) => Promise<void> }[] = [
  { name: 'wire', run: benchWire },
  { name: 'virtual', run: benchVirtual },
  { name: 'realtime', run: benchRealtime },
  { name: 'mpcc', run: benchMpcc },
  { name: 'sweep', run: benchSweep },
];

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const names = new Set(BENCHES.map((b) => b.name));
  const only = args.filter((a) => names.has(a));
  const rest = args.filter((a) => !names.has(a));
  for (const b of BENCHES) {
    if (only.length > 0 && !only.includes(b.name)) continue;
    console.log(`\n== ${b.name} ==`);
    await b.run(rest);
  }
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
