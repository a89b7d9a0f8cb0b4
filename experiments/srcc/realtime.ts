/**
 * AC1 and AC2 again in the real-time local runtime (docs/algorithms/srcc.md "Reproduction", Profile B): one process per node
 * on 127.x, every frame a UDP datagram, time dilated by `timeScale` (100 Gbps becomes 0.5 Mbit/s
 * at 200 000, 4 µs links 0.8 s). Measurements come from the pcaps the nodes write on their own
 * clocks: a CNM's latency is its arrival at H1 minus the departure of the data frame whose PSN it
 * echoes, both on H1's clock (no cross-node clock comparison).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { nicFor } from '../../src/config/scenario.js';
import type { RunOutput } from '../../src/runtime/run.js';
import { setupRun } from '../../src/runtime/scenario-setup.js';
import { hostPath } from '../../src/topology/path.js';
import { isDecodeError } from '../../src/wire/errors.js';
import { decodeFrame } from '../../src/wire/frame.js';
import { FrameKind, type Packet } from '../../src/wire/packet.js';
import { parsePcap } from '../../src/wire/pcap.js';
import { memo } from '../memo.js';
import { localRun, observedRun } from '../observed-run.js';
import { framesLost, keepUpNote } from '../run-health.js';
import { inDir, type ReproCheck, type ReproContext, type ReproOutcome } from '../types.js';
import { srccScenario, windowShares } from './probe.js';

const S1 = 's1-hol.yaml';
/**
 * Real links at 0.5 Mbit/s: a 1062 B frame takes 17 ms and a baseRTT/4 window 0.8 s, so a node
 * descheduled for a few hundred ms on a busy machine does not empty a window (at 20 000 it did).
 */
const REALTIME_TIME_SCALE = 200_000;

function readPcap(path: string) {
  const f = parsePcap(readFileSync(path));
  if (isDecodeError(f)) throw new Error(`${path}: ${f.message}`);
  const out: { timeNs: number; pkt: Packet }[] = [];
  for (const r of f.records) {
    const pkt = decodeFrame(r.data);
    if (!isDecodeError(pkt)) out.push({ timeNs: r.timeNs, pkt });
  }
  return out;
}

const runs = new Map<string, Promise<RunOutput>>();

/** S-1 in real time, one arm, with pcaps (shared by AC1-RT and AC2-RT). */
function rtRun(arm: 'srcc' | 'dcqcn', ctx: ReproContext): Promise<RunOutput> {
  const overrides = [`defaults.nic.cc=${arm}`, `timeScale=${REALTIME_TIME_SCALE}`, 'duration=300us'];
  return memo(runs, `${arm}|${ctx.seed ?? ''}`, () =>
    localRun(srccScenario(S1, overrides), ctx, `rt-${arm}`, { pcap: true }),
  );
}

/** Latencies (ns, H1's clock) of every CNM H1 received, from its pcap. */
function cnmLatencies(out: RunOutput): { latencies: number[]; cnms: number } {
  const cap = readPcap(join(out.outDir, 'pcap', 'h1-p0.pcap'));
  const rateBps = srccScenario(S1).defaults.link.rateBps;
  const sentAt = new Map<string, number>();
  const latencies: number[] = [];
  let cnms = 0;
  for (const c of cap) {
    const p = c.pkt;
    if (p.kind === FrameKind.Data) {
      // The tx record is taken when the last bit left: the departure began one frame time earlier.
      sentAt.set(`${p.dstIp >>> 0}:${p.destQp}:${p.psn}`, c.timeNs - (p.sizeBytes * 8e9) / rateBps);
    } else if (p.kind === FrameKind.Cnm && p.cnm !== null) {
      cnms++;
      const t = sentAt.get(`${p.cnm.flowDstIp >>> 0}:${p.cnm.destQpn}:${p.cnm.triggerPsn}`);
      if (t !== undefined) latencies.push(c.timeNs - t);
    }
  }
  return { latencies, cnms };
}

/** S-1's unloaded RTT between H1 and R1, ns, and H1's address. */
function s1Net(): { baseRttNs: number; h1Ip: number } {
  const setup = setupRun(srccScenario(S1));
  const mtu = nicFor(setup.scenario, 'h1').mtuBytes;
  return {
    baseRttNs: hostPath(setup.topo, setup.routes, 'h1', 'h9', mtu).baseRttNs,
    h1Ip: setup.topo.byName.get('h1')!.ip,
  };
}

const ac1rt: ReproCheck = {
  id: 'AC1-RT',
  title: `Sub-RTT feedback in real time (local runtime, timeScale ${REALTIME_TIME_SCALE})`,
  paper: 'CNM feedback within one RTT (§III-A)',
  expected:
    'every CNM at H1 < 0.75 × baseRTT (Profile B bound), measured by PSN echo on H1’s clock; same CNM count as virtual time ±1; no frame lost or resent',
  async run(ctx): Promise<ReproOutcome> {
    const out = await rtRun('srcc', ctx);
    const { latencies, cnms } = cnmLatencies(out);
    const BASE_RTT_NS = s1Net().baseRttNs;
    const max = Math.max(...latencies);
    const min = Math.min(...latencies);
    const drops = framesLost(out);
    const virtual = observedRun(
      srccScenario(S1, ['defaults.nic.cc=srcc', 'duration=300us']),
      inDir(ctx, 'virtual'),
    ).out;
    const cnmsVirtual = virtual.results.ports.find((p) => p.node === 's1' && p.port === 0)?.cnmTx ?? -1;
    return {
      measured:
        `${cnms} CNMs at H1 (virtual time ${cnmsVirtual}), latency ${(min / 1000).toFixed(2)}…${(max / 1000).toFixed(2)} µs emulated = ≤ ${(max / BASE_RTT_NS).toFixed(3)} × baseRTT; ` +
        `lost/resent ${drops}; wall ${(out.wallMs / 1000).toFixed(1)} s${keepUpNote(out)}`,
      pass:
        cnms > 0 &&
        latencies.length === cnms &&
        Math.abs(cnms - cnmsVirtual) <= 1 &&
        max < 0.75 * BASE_RTT_NS &&
        drops === 0,
      values: {
        cnms,
        cnmsVirtual,
        minLatencyNs: min,
        maxLatencyNs: max,
        baseRttNs: BASE_RTT_NS,
        drops,
        wallMs: out.wallMs,
      },
    };
  },
};

function xoffToH1(out: RunOutput): number {
  return out.results.ports.find((p) => p.node === 's1' && p.port === 0)?.pfcPauseTx ?? -1;
}

/** f_v (H1 → R2) throughput at R2 in windows over [from, to), as a fraction of C, from R2's capture. */
function fvShares(out: RunOutput, h1Ip: number, fromNs: number, toNs: number, winNs: number): number[] {
  const fv = readPcap(join(out.outDir, 'pcap', 'h10-p0.pcap'))
    .filter((c) => c.pkt.kind === FrameKind.Data && c.pkt.srcIp >>> 0 === h1Ip >>> 0)
    .map((c) => ({ timeNs: c.timeNs, sizeBytes: c.pkt.sizeBytes }));
  return windowShares(fv, fromNs, toNs, winNs, 100e9);
}

const ac2rt: ReproCheck = {
  id: 'AC2-RT',
  title: `PFC avoided, victim protected, in real time (local runtime, timeScale ${REALTIME_TIME_SCALE})`,
  paper: 'SRCC keeps PFC off the victim-bearing port (§III-B)',
  expected:
    'XOFF to H1: BASE ≥ 1, SRCC 0; f_v windows of baseRTT/4 over [100, 300] µs: BASE min ≤ 0.1·C, SRCC min ≥ 0.4·C (±0.05·C); no frame lost or resent',
  async run(ctx): Promise<ReproOutcome> {
    const s = await rtRun('srcc', ctx);
    const b = await rtRun('dcqcn', ctx);
    const net = s1Net();
    const win = net.baseRttNs / 4;
    const end = (o: RunOutput) => Math.min(300_000, o.results.durationNs);
    const minS = Math.min(...fvShares(s, net.h1Ip, 100_000, end(s), win));
    const minB = Math.min(...fvShares(b, net.h1Ip, 100_000, end(b), win));
    const xs = xoffToH1(s);
    const xb = xoffToH1(b);
    const drops = framesLost(s) + framesLost(b);
    return {
      measured:
        `XOFF→H1 BASE ${xb}, SRCC ${xs}; f_v min BASE ${minB.toFixed(2)}·C, SRCC ${minS.toFixed(2)}·C; lost/resent ${drops}; ` +
        `wall ${(s.wallMs / 1000).toFixed(1)} s + ${(b.wallMs / 1000).toFixed(1)} s${keepUpNote(s, b)}`,
      pass: xb >= 1 && xs === 0 && minB <= 0.15 && minS >= 0.35 && drops === 0,
      values: { xoffBase: xb, xoffSrcc: xs, fvMinBase: minB, fvMinSrcc: minS, drops },
    };
  },
};

export const realtimeChecks: ReproCheck[] = [ac1rt, ac2rt];
