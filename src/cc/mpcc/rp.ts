/**
 * MPCC reaction point (sender NIC, per QP): asks for the 32-byte MPCC INT block on every data
 * packet, runs one control step (controller.ts) on every ACK or NAK that echoes it, and applies
 * the window and, with `pacing: model`, the pacing rate R_in,max·W/P. No timers: purely
 * ACK-clocked; loss recovery is the NIC's go-back-N.
 */
import type { IntStack } from '../../wire/packet.js';
import { MPCC_INT_BYTES, padBytes, ROCE_FIXED_BYTES } from '../../wire/size.js';
import type { FlowInfo, RpAlgorithm, RpEvent, RpIo } from '../types.js';
import { controlStep, initMpccState, MPCC_INT_SLOTS, type MpccPath, type MpccState } from './controller.js';
import type { MpccParams } from './params.js';

/** Bytes on the wire of a full data packet of this flow carrying the MPCC INT block. */
export function mpccPacketWireBytes(mtuBytes: number): number {
  return ROCE_FIXED_BYTES + mtuBytes + padBytes(mtuBytes) + MPCC_INT_BYTES;
}

/**
 * D_base in the thesis' eq. (2.2) with the HPCC simulator's convention (docs/algorithms/mpcc.md
 * "Model and controller"):
 * 2·Σ link delay + Σ over the forward links of MTU·8/R_link.
 */
export function mpccBaseRttNs(flow: FlowInfo): number {
  const rates = flow.linkRatesBps;
  if (rates === undefined || rates.length === 0 || flow.propDelayNs === undefined) return flow.baseRttNs;
  let ser = 0;
  for (const r of rates) ser += (flow.mtuBytes * 8e9) / r;
  return 2 * flow.propDelayNs + ser;
}

/** The static model inputs of a flow: its own path's D_base and P (per path, not the fabric's largest). */
export function mpccPath(flow: FlowInfo, p: MpccParams): MpccPath {
  const rates = flow.linkRatesBps;
  const hopRatesBps =
    rates !== undefined && rates.length > 1
      ? rates.slice(1)
      : new Array<number>(Math.max(1, flow.hops)).fill(flow.bottleneckRateBps);
  const baseRttNs = p.baseRttNs > 0 ? p.baseRttNs : mpccBaseRttNs(flow);
  const bdpBytes = p.bdpBytes > 0 ? p.bdpBytes : (flow.lineRateBps * baseRttNs) / 8e9;
  return {
    nicRateBps: flow.lineRateBps,
    hopRatesBps,
    baseRttNs,
    bdpBytes,
    packetWireBytes: p.packetWireBytes > 0 ? p.packetWireBytes : mpccPacketWireBytes(flow.mtuBytes),
  };
}

export interface MpccRpState {
  path: MpccPath;
  ctl: MpccState;
}

function onInt(s: MpccRpState, int: IntStack | null, p: MpccParams, io: RpIo, why: string): void {
  if (int === null || int.layout !== 'mpcc' || p.controller === 'off') return;
  const rec = controlStep(s.ctl, s.path, int.hops, int.nhop, p, io.inflightBytes());
  if (rec === null) return;
  // NIC-wide counters of the rare paths (results/metrics); per-QP totals are in inspect().
  if (rec.path === 'dense') io.count('mpcc_dense');
  else if (rec.path === 'relaxed') io.count('mpcc_infeasible');
  if (int.nhop > MPCC_INT_SLOTS) io.count('int_overflow');
  if (rec.path === 'hold') return;
  if (p.pacing === 'model') io.setRate(rec.rateBps, why);
  io.setWindow(rec.windowBytes, why);
}

export const mpccRp: RpAlgorithm<MpccParams, MpccRpState> = {
  features: { int: 'mpcc', txTimestamp: false },
  init(flow, p, io) {
    const path = mpccPath(flow, p);
    const ctl = initMpccState(path, p);
    io.setRate(ctl.rateBps, 'init');
    io.setWindow(ctl.windowBytes, 'init');
    return { path, ctl };
  },
  onEvent(s, ev: RpEvent, p, io) {
    if (ev.type === 'ack') onInt(s, ev.pkt.int, p, io, 'int:ack');
    else if (ev.type === 'nack') onInt(s, ev.pkt.int, p, io, 'int:nack');
  },
  inspect(s) {
    const c = s.ctl;
    const l = c.last;
    return {
      mpccWindowBytes: c.windowBytes,
      mpccRateBps: c.rateBps,
      bdpBytes: s.path.bdpBytes,
      baseRttNs: s.path.baseRttNs,
      steps: c.steps,
      fastSteps: c.fastSteps,
      denseSteps: c.denseSteps,
      infeasibleSteps: c.relaxedSteps,
      holdSteps: c.holdSteps,
      denseIterations: c.denseIterations,
      intOverflows: c.intOverflows,
      hop: l.hop,
      qBytes: l.qBytes,
      flows: l.flows,
      B: l.B,
      wFairBytes: l.wFairBytes,
      tauSteps: l.tauSteps,
      stepInflightBytes: l.inflightBytes,
      qBarBytes: l.qBarBytes,
      u0Bytes: l.u0Bytes,
    };
  },
};
