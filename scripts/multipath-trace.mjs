#!/usr/bin/env node
// Trace of one multipath run (docs/multipath.md "Mechanisms"): per flow its FCT, CNPs, ECN-echo
// ACKs and NACKs, its congestion-control rate and the share of its packets that crossed one
// link, per time bin; the queue at both ends of that link; ECN marks and PFC frames per switch
// port; and the offered load of every fabric link (the share of each flow's packets that took
// it, summed: what spraying put there, whatever the link could carry).
//
//   npm run build
//   node scripts/multipath-trace.mjs [--scenario FILE] [--seed N] [--bin US] [--link A-B] [--set k=v]...
//
// Defaults: scenarios/multipath/permutation-k4.yaml, its seed, 20 µs bins, the link s9-s17.
import { join } from 'node:path';
import { parseArgs } from 'node:util';

const root = join(import.meta.dirname, '..');
const { loadScenario } = await import(join(root, 'dist/src/config/load.js'));
const { runScenario } = await import(join(root, 'dist/src/runtime/run.js'));
const { tracer } = await import(join(root, 'dist/src/probe/probe.js'));
const { scenarioTopology } = await import(join(root, 'dist/src/runtime/scenario-setup.js'));

const { values: o } = parseArgs({
  options: {
    scenario: { type: 'string', default: join(root, 'scenarios/multipath/permutation-k4.yaml') },
    seed: { type: 'string' },
    bin: { type: 'string', default: '20' },
    link: { type: 'string', default: 's9-s17' },
    set: { type: 'string', multiple: true, default: [] },
    out: { type: 'string', default: '/tmp/rocelab-multipath-trace' },
  },
});
const binNs = Number(o.bin) * 1000;
const s = loadScenario(o.scenario, o.set);
const topo = scenarioTopology(s);
const host = (ip) => topo.hostByIp.get(ip)?.name ?? String(ip);
const [la, lb] = o.link.split('-');
const portTo = (a, b) => topo.byName.get(a).ports.find((p) => p.peerNode === b).index;
const watched = new Map([
  [la, portTo(la, lb)],
  [lb, portTo(lb, la)],
]);
const isHost = (sw, port) => topo.byName.get(topo.byName.get(sw).ports[port].peerNode).kind === 'host';

const bin = (t) => Math.floor(t / binNs);
const inc = (m, k, by = 1) => m.set(k, (m.get(k) ?? 0) + by);
const sent = new Map(); // flow -> per-bin packets sent
const crossed = new Map(); // flow -> per-bin packets that left the watched link
const linkLoad = new Map(); // "sw:port>peer" -> Map(flow -> packets)
const total = new Map(); // flow -> packets sent
const queue = new Map([...watched.keys()].map((k) => [k, []]));
const marks = new Map();
const pfc = new Map();
const cnp = new Map();
const ecnAck = new Map();
const nack = new Map();
const perBin = (m, k, t) => {
  let a = m.get(k);
  if (a === undefined) m.set(k, (a = []));
  a[bin(t)] = (a[bin(t)] ?? 0) + 1;
};
const flowOf = (p) => `${host(p.srcIp)}>${host(p.dstIp)}`;
const backOf = (p) => `${host(p.dstIp)}>${host(p.srcIp)}`;

const trace = tracer({
  nicTx(_h, t, p) {
    if (p.kind !== 0) return;
    perBin(sent, flowOf(p), t);
    inc(total, flowOf(p));
  },
  nicRx(_h, _t, p) {
    if (p.kind === 1 && p.becn) inc(ecnAck, backOf(p));
    if (p.kind === 2) inc(nack, backOf(p));
    if (p.kind === 3) inc(cnp, backOf(p));
  },
  switchTx(sw, t, port, p) {
    const key = `${sw}:${port}`;
    if (p.kind === 4) inc(pfc, key);
    if (p.kind !== 0 || p.trimHop > 0) return;
    if (p.ecn === 3) inc(marks, key);
    if (!isHost(sw, port)) {
      const k = `${key}>${topo.byName.get(sw).ports[port].peerNode}`;
      if (!linkLoad.has(k)) linkLoad.set(k, new Map());
      inc(linkLoad.get(k), flowOf(p));
    }
    if (watched.get(sw) === port) perBin(crossed, flowOf(p), t);
  },
  queue(sw, t, port, bytes) {
    if (watched.get(sw) !== port) return;
    const a = queue.get(sw);
    a[bin(t)] = Math.max(a[bin(t)] ?? 0, bytes);
  },
});

const seed = o.seed === undefined ? undefined : Number(o.seed);
const r = runScenario({ scenario: s, outDir: o.out, seed, print: null, trace }).results;
const cells = (a, f) => Array.from({ length: a.length }, (_, i) => f(a[i])).join(' ');
const sum = (m) => [...m.values()].reduce((x, y) => x + y, 0);
const top = (m, n = 10) =>
  [...m]
    .sort((x, y) => y[1] - x[1])
    .slice(0, n)
    .map(([k, v]) => `${k}=${v}`)
    .join(' ');

console.log(`${s.name} seed ${r.seed}, ${o.set.join(' ')}`);
console.log(
  `tail FCT ${(Math.max(...r.flows.map((f) => f.fctNs ?? Infinity)) / 1e3).toFixed(1)} µs, max slowdown ${Math.max(...r.flows.map((f) => f.slowdown ?? Infinity)).toFixed(3)}; bins of ${o.bin} µs`,
);
for (const f of [...r.flows].sort((a, b) => (b.fctNs ?? Infinity) - (a.fctNs ?? Infinity))) {
  const k = `${f.src}>${f.dst}`;
  const rate = [];
  // In memory a series is flat: [t, v, t, v, …].
  const pts = r.series.rate[String(f.id)] ?? [];
  for (let i = 0; i + 1 < pts.length; i += 2)
    rate[bin(pts[i])] = Math.min(rate[bin(pts[i])] ?? Infinity, pts[i + 1]);
  const tx = sent.get(k) ?? [];
  const over = crossed.get(k) ?? [];
  console.log(
    `${k.padEnd(8)} FCT ${((f.fctNs ?? Infinity) / 1e3).toFixed(1)} µs, ${cnp.get(k) ?? 0} CNPs, ${ecnAck.get(k) ?? 0} ECN-echo ACKs, ${nack.get(k) ?? 0} NACKs`,
  );
  console.log(
    `   rate Gbit/s (bin min): ${cells(rate, (v) => (v === undefined ? '-' : (v / 1e9).toFixed(0)))}`,
  );
  if (over.length > 0)
    console.log(`   sent / over ${o.link}: ${cells(tx, (v) => v ?? 0)} / ${cells(over, (v) => v ?? 0)}`);
}
for (const [sw, a] of queue)
  console.log(
    `queue ${sw}→${sw === la ? lb : la}, KB (bin max): ${cells(a, (v) => ((v ?? 0) / 1e3).toFixed(0))}`,
  );
console.log(`ECN marks: ${sum(marks)} (${top(marks)})`);
console.log(`PFC frames: ${sum(pfc)}${pfc.size > 0 ? ` (${top(pfc)})` : ''}`);
const offered = [...linkLoad].map(([k, m]) => [k, [...m].reduce((a, [fl, n]) => a + n / total.get(fl), 0)]);
console.log(
  `offered load, × line rate, busiest fabric links: ${offered
    .sort((x, y) => y[1] - x[1])
    .slice(0, 6)
    .map(([k, v]) => `${k} ${v.toFixed(2)}`)
    .join(', ')}`,
);
