/**
 * A virtual-time run of a scenario with SRCC's measurement points attached (docs/algorithms/
 * srcc.md), on the probe API (src/probe): NIC data departures and deliveries, CNM arrivals at
 * NICs (with a snapshot of the QP's state right after), rate changes, and the switch side's CNM
 * events and (optionally) threshold decisions. Nothing here changes what the firmware does.
 */

import type { Nic, RateChange } from '../../nic/api.js';
import { buildSrccCp } from '../../src/cc/srcc/config.js';
import type { SrccCnmEvent, SrccCp, SrccDecision } from '../../src/cc/srcc/cp.js';
import { nicFor, type Scenario } from '../../src/config/scenario.js';
import { tracer } from '../../src/probe/probe.js';
import { planFromSetup } from '../../src/runtime/app/plan.js';
import { setupRun } from '../../src/runtime/scenario-setup.js';
import { type CnmBody, FrameKind } from '../../src/wire/packet.js';
import type { SwitchCp, SwitchCpFactory } from '../../switch/cp.js';
import { observedRun } from '../observed-run.js';
import { paperScenarios } from '../paper-scenario.js';
import type { ReproContext } from '../types.js';

export interface ProbeOptions extends ReproContext {
  /** Every SRCC threshold decision (slow: the plug-in's fast path is off while observed). */
  onDecision?: (d: SrccDecision) => void;
  /** Wrap a switch's SRCC plug-in (fault injection). */
  wrapCp?: (switchName: string, cp: SrccCp) => SwitchCp;
}

export type Probe = ReturnType<typeof probedRun>;

export function probedRun(scenario: Scenario, o: ProbeOptions) {
  const setup = setupRun(scenario, { seed: o.seed });
  /** NIC data departures; `startNs`: start of serialisation (may be fractional). */
  const departures: {
    node: string;
    dstIp: number;
    destQp: number;
    psn: number;
    startNs: number;
    sizeBytes: number;
  }[] = [];
  /** NIC data arrivals; `timeNs`: arrival of the last bit. */
  const deliveries: { node: string; srcIp: number; destQp: number; timeNs: number; sizeBytes: number }[] = [];
  /** CNMs at NICs; `qp`: qpInspect of the QP that took it, right after it reacted (null: none took it). */
  const cnmRx: { node: string; timeNs: number; body: CnmBody; qp: Record<string, number> | null }[] = [];
  const cnmEvents: SrccCnmEvent[] = [];
  const rateChanges: (RateChange & { node: string })[] = [];
  const nics = new Map<string, Nic>();
  const hostIp = new Map(setup.topo.hosts.map((h) => [h.name, h.ip]));
  const mtuBytes = Math.max(...setup.topo.hosts.map((h) => nicFor(scenario, h.name).mtuBytes));
  const nsPerByte = new Map(setup.topo.hosts.map((h) => [h.name, 8e9 / h.ports[0].rateBps]));
  // Local QPN by (node, remote IP, remote QPN): the key a CNM names its QP by.
  const localQp = new Map<string, number>();
  for (const qp of planFromSetup(setup).qps) {
    localQp.set(`${qp.src.name}:${qp.dst.ip >>> 0}:${qp.dstQpn}`, qp.srcQpn);
    localQp.set(`${qp.dst.name}:${qp.src.ip >>> 0}:${qp.srcQpn}`, qp.dstQpn);
  }

  const cpFactories: Record<string, SwitchCpFactory> = {};
  const srccSpec = [...setup.ccByHost.values()].find((c) => c.name === 'srcc');
  if (srccSpec !== undefined) {
    const inner = buildSrccCp(
      { params: srccSpec.params, topo: setup.topo, routes: setup.routes, mtuBytes },
      { onDecision: o.onDecision, onCnm: (e) => cnmEvents.push(e) },
    );
    cpFactories.srcc = (io) => {
      const cp = inner(io) as SrccCp;
      return o.wrapCp?.(io.switchName, cp) ?? cp;
    };
  }

  const trace = tracer({
    nicTx: (node, t, pkt) => {
      if (pkt.kind !== FrameKind.Data) return;
      departures.push({
        node,
        dstIp: pkt.dstIp,
        destQp: pkt.destQp,
        psn: pkt.psn,
        startNs: t - pkt.sizeBytes * nsPerByte.get(node)!,
        sizeBytes: pkt.sizeBytes,
      });
    },
    nicRx: (node, t, pkt) => {
      if (pkt.kind === FrameKind.Data)
        deliveries.push({ node, srcIp: pkt.srcIp, destQp: pkt.destQp, timeNs: t, sizeBytes: pkt.sizeBytes });
    },
    nicRxDone: (node, t, pkt) => {
      if (pkt.kind !== FrameKind.Cnm || pkt.cnm === null) return;
      const body = { ...pkt.cnm };
      const qpn = localQp.get(`${node}:${body.flowDstIp >>> 0}:${body.destQpn}`);
      const s = qpn === undefined ? {} : nics.get(node)!.qpInspect(qpn);
      cnmRx.push({ node, timeNs: t, body, qp: s.lastCnmRxNs === t ? { ...s, qpn: qpn! } : null });
    },
  });

  const run = observedRun(scenario, {
    seed: o.seed,
    outDir: o.outDir,
    cpFactories,
    trace,
    nics,
    nicObserver: (node) => ({ onRateChange: (c) => rateChanges.push({ ...c, node }) }),
  });
  return {
    ...run,
    topo: setup.topo,
    routes: setup.routes,
    /** Largest data payload per packet of the run's hosts. */
    mtuBytes,
    hostIp,
    departures,
    deliveries,
    cnmRx,
    cnmEvents,
    rateChanges,
  };
}

/** Bytes of `frames` in `winNs` windows over [fromNs, toNs) (a partial last window left out), as a fraction of `rateBps`. */
export function windowShares(
  frames: { timeNs: number; sizeBytes: number }[],
  fromNs: number,
  toNs: number,
  winNs: number,
  rateBps: number,
): number[] {
  const bytes = new Array<number>(Math.floor((toNs - fromNs) / winNs)).fill(0);
  for (const f of frames) {
    const k = Math.floor((f.timeNs - fromNs) / winNs);
    if (f.timeNs >= fromNs && k < bytes.length) bytes[k] += f.sizeBytes;
  }
  return bytes.map((b) => (b * 8e9) / winNs / rateBps);
}

export const srccScenario = paperScenarios('srcc');
