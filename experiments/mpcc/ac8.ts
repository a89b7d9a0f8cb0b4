/**
 * AC8 (docs/algorithms/mpcc.md "Reproduction"; thesis App. A.1, §5.1.1): the switch's flow counter
 * and INT stamps. The stamps are read where the switch writes them, at dequeue, by a switch
 * plug-in (switch/cp.ts) that only looks: the hop it just wrote and the port's queue at that
 * instant. What the NICs receive comes through the probe's trace hooks. With the plug-in the
 * switch skips its cut-through shortcut, which makes the same state changes (switch/switch.ts).
 */
import { scenarioTopology } from '../../src/runtime/scenario-setup.js';
import { encodeMpccInt, MPCC_INT_BYTES } from '../../src/wire/int-mpcc.js';
import { FrameKind, type IntStack, type Packet } from '../../src/wire/packet.js';
import type { SwitchCpFactory } from '../../switch/cp.js';
import { inDir, type ReproCheck, type ReproContext, type ReproOutcome } from '../types.js';
import { baseRttOf, mpccScenario, type Probe, probedRun } from './probe.js';
import { S_WIRE, us } from './runs.js';

interface IntStamp {
  /** "sw:port" of the egress that wrote it. */
  at: string;
  timeNs: number;
  /** The hop just written. */
  q: number;
  n: number;
  /** Queue bytes of the port at that instant. */
  queueBytes: number;
  srcIp: number;
  dstIp: number;
  pktId: number;
  nhop: number;
}

/** A data frame of an MPCC flow entering an egress queue (the flow counter's touch). */
interface Enqueue {
  at: string;
  timeNs: number;
  srcIp: number;
}

const mpccData = (pkt: Packet) =>
  pkt.kind === FrameKind.Data && pkt.int !== null && pkt.int.layout === 'mpcc';

/** A switch plug-in recording MPCC data frames as they enter a queue and the INT stamped at dequeue. */
function intRecorder(stamps: IntStamp[], enqueues: Enqueue[]): SwitchCpFactory {
  return (io) => ({
    name: 'ac8-int',
    onEnqueue: (pkt, port) => {
      if (mpccData(pkt))
        enqueues.push({ at: `${io.switchName}:${port}`, timeNs: io.now(), srcIp: pkt.srcIp });
    },
    onDequeue: (pkt, port) => {
      const st = pkt.int;
      if (!mpccData(pkt) || st === null) return;
      const hop = st.nhop <= 5 ? st.hops[st.nhop - 1] : undefined;
      stamps.push({
        at: `${io.switchName}:${port}`,
        timeNs: io.now(),
        q: hop?.qlenBytes ?? -1,
        n: hop?.activeFlows ?? -1,
        queueBytes: io.queueBytes(port),
        srcIp: pkt.srcIp,
        dstIp: pkt.dstIp,
        pktId: pkt.id,
        nhop: st.nhop,
      });
    },
  });
}

function intBytes(st: IntStack): string {
  const b = new Uint8Array(MPCC_INT_BYTES);
  encodeMpccInt(b, 0, st);
  return Buffer.from(b).toString('hex');
}

/** T_flow the run's switches used (the MPCC request: flowTimeoutRtts × the largest D_base). */
function flowWindowOf(p: Probe): number {
  const sec = p.scenario.cc.mpcc;
  const rtts = Number(sec?.params.flowTimeoutRtts ?? 8);
  const fixed = Number(sec?.params.flowTimeoutNs ?? 0);
  if (fixed > 0) return fixed;
  let maxBase = 0;
  for (const f of p.out.results.flows) maxBase = Math.max(maxBase, baseRttOf(p, f.src, f.dst));
  return Math.round(rtts * maxBase);
}

/** AC8a–e on the 4+2 dumbbell of int-counter.yaml, watching s1's port toward s2. */
function counterRun(ctx: ReproContext) {
  const dataInt = new Map<string, string>();
  let echoes = 0;
  let echoMismatch = 0;
  let badNhop = 0;
  const all: IntStamp[] = [];
  const allEnq: Enqueue[] = [];
  const s = mpccScenario('int-counter.yaml');
  // Switches between two hosts of the 4+2 dumbbell: 1 on the same side, else 2.
  const topo = scenarioTopology(s);
  const leftIps = new Set(['h1', 'h2', 'h3', 'h4'].map((h) => topo.byName.get(h)!.ip));
  const switchesOnPath = (a: number, b: number) => (leftIps.has(a) === leftIps.has(b) ? 1 : 2);
  const p = probedRun(s, {
    ...inDir(ctx, 'int-counter'),
    cp: intRecorder(all, allEnq),
    arrivals: false,
    onNicRx: (_node, _nic, pkt) => {
      if (pkt.int === null || pkt.int.layout !== 'mpcc') return;
      if (pkt.kind === FrameKind.Data) {
        if (pkt.int.nhop !== switchesOnPath(pkt.srcIp, pkt.dstIp)) badNhop++;
        dataInt.set(`${pkt.srcIp}>${pkt.dstIp}#${pkt.psn}`, intBytes(pkt.int));
      } else if (pkt.kind === FrameKind.Ack) {
        const sent = dataInt.get(`${pkt.dstIp}>${pkt.srcIp}#${pkt.psn}`);
        echoes++;
        if (sent !== intBytes(pkt.int)) echoMismatch++;
      }
    },
  });
  const T = p.out.results.durationNs > 0 ? flowWindowOf(p) : 0;
  const stamps = all.filter((x) => x.at === 's1:4');
  const ip = (h: string) => p.hostIp.get(h)!;
  const counted = [
    [ip('h1'), ip('h5')],
    [ip('h2'), ip('h5')],
    [ip('h3'), ip('h6')],
  ];
  const firstStamp = counted.map(
    ([a, b]) => stamps.find((x) => x.srcIp === a && x.dstIp === b)?.timeNs ?? Infinity,
  );
  const tAll = Math.max(...firstStamp);
  const h3 = allEnq.filter((x) => x.at === 's1:4' && x.srcIp === ip('h3'));
  const tLastNs = h3.length > 0 ? h3[h3.length - 1].timeNs : Number.NaN;
  const drop = tLastNs + T;
  const pktNs = (S_WIRE * 8e9) / 1e9;
  let aBad = 0;
  for (const x of stamps) {
    if (x.timeNs < tAll) continue;
    const want = x.timeNs <= drop ? 3 : 2;
    if (x.n !== want) aBad++;
  }
  const firstTwoNs = stamps.find((x) => x.timeNs > tLastNs && x.n === 2)?.timeNs ?? Number.NaN;
  const dBad = stamps.filter((x) => x.q !== x.queueBytes).length;
  return {
    ok: {
      a: aBad === 0 && Number.isFinite(tAll),
      b: firstTwoNs > drop - 1e-9 && firstTwoNs <= drop + pktNs,
      d: dBad === 0 && stamps.length > 0,
      e: badNhop === 0 && echoMismatch === 0 && echoes > 0,
    },
    measured:
      `${stamps.length} stamps at s1→s2: n = 3 with ${aBad} exceptions; h3 last packet ${us(tLastNs)}, n = 2 from ${us(firstTwoNs)} ` +
      `(t_last + T_flow = ${us(drop)}); q ≠ queue on ${dBad}; ${echoes} ACKs, ${echoMismatch} not byte-identical, ${badNhop} data with nhop ≠ switches on the path`,
    values: { stamps: stamps.length, aBad, tLastNs, firstTwoNs, flowWindowNs: T, dBad, echoes, echoMismatch },
  };
}

/** AC8f: six switches; compare what arrives with what s1..s5 wrote at dequeue. */
function sixHopRun(ctx: ReproContext) {
  const received = new Map<string, { nhop: number; hops: { q: number; n: number }[] }>();
  const stamps: IntStamp[] = [];
  probedRun(mpccScenario('int-6hop.yaml'), {
    ...inDir(ctx, 'int-6hop'),
    cp: intRecorder(stamps, []),
    arrivals: false,
    onNicRx: (_node, _nic, pkt) => {
      if (pkt.kind !== FrameKind.Data || pkt.int === null) return;
      // Packet ids count per NIC: the sender's address makes them unique.
      received.set(`${pkt.srcIp}:${pkt.id}`, {
        nhop: pkt.int.nhop,
        hops: pkt.int.hops.map((h) => ({ q: h.qlenBytes, n: h.activeFlows })),
      });
    },
  });
  const written = new Map<string, IntStamp[]>();
  for (const x of stamps) {
    const key = `${x.srcIp}:${x.pktId}`;
    let w = written.get(key);
    if (w === undefined) written.set(key, (w = []));
    w.push(x);
  }
  let bad = 0;
  for (const [id, got] of received) {
    const w = (written.get(id) ?? []).filter((x) => x.nhop <= 5).sort((a, b) => a.timeNs - b.timeNs);
    const same =
      w.length === 5 &&
      got.hops.length === 5 &&
      w.every((x, i) => x.q === got.hops[i].q && x.n === got.hops[i].n);
    if (got.nhop !== 6 || !same) bad++;
  }
  return { seen: received.size, bad };
}

export const ac8: ReproCheck = {
  id: 'AC8',
  title: 'Switch flow counter and INT correctness',
  paper: 'per-egress flow counter, idle timers; INT (Q 32, N 16, nhop 16 bit) at dequeue (App. A.1, §5.1.1)',
  expected:
    "n = k after the k-th flow's first packet; n − 1 at t_last + T_flow within one packet time; ACKs/other ports not counted; q = bytes left behind; nhop +1 per switch, ACK echo byte-identical; 6 switches: nhop 6, hop[0..4] intact",
  run(ctx): ReproOutcome {
    const c = counterRun(ctx);
    const six = sixHopRun(ctx);
    const ok = { ...c.ok, f: six.bad === 0 && six.seen > 0 };
    return {
      measured: `${c.measured}; 6-switch path: ${six.seen} packets, ${six.bad} bad`,
      pass: Object.values(ok).every((x) => x),
      values: { ...c.values, sixSeen: six.seen, sixBad: six.bad },
    };
  },
};
