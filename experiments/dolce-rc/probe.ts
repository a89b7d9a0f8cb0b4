/**
 * Measurement harness of the Dolce-RC checks (docs/algorithms/dolce-rc.md), on the probe API
 * (src/probe): runs a scenario in virtual time and reports, per time window, the bottleneck's
 * utilisation and each sender's transmitted bytes (for Jain's index), and passes on the frames
 * NICs receive and send and the switches receive. The hooks only observe, so the run is the one
 * `rocelab run` produces.
 */

import { createNic, type MessageCompletion, type Nic, type RateChange } from '../../nic/api.js';
import { loadScenario } from '../../src/config/load.js';
import type { Scenario } from '../../src/config/scenario.js';
import { observeNic, tracer } from '../../src/probe/probe.js';
import { type RunOutput, runScenario } from '../../src/runtime/run.js';
import { jainIndex } from '../../src/stats/aggregate.js';
import type { Packet } from '../../src/wire/packet.js';
import { createSwitch } from '../../switch/api.js';
import type { SwitchCp } from '../../switch/cp.js';
import { paperScenarioPath } from '../paper-scenario.js';

export function scenarioPath(file: string): string {
  return paperScenarioPath('dolce-rc', file);
}

/** A shipped scenario of the Dolce-RC checks, with `--set`-style overrides. */
export function dolceScenario(file: string, overrides: string[] = []): Scenario {
  return loadScenario(scenarioPath(file), overrides);
}

export interface Window {
  fromNs: number;
  toNs: number;
}

export interface WindowMeasure {
  fromNs: number;
  toNs: number;
  /** Bytes out of the bottleneck port ÷ (its line rate × window). */
  utilisation: number;
  /** Bytes each watched sender's NIC put on the wire in the window, in `senders` order. */
  senderBytes: number[];
  /** Jain's index of `senderBytes`. */
  jain: number;
}

export interface ProbeSpec {
  /** Bottleneck egress port whose utilisation is measured. */
  bottleneck?: { switchName: string; port: number };
  /** Hosts whose bytes on the wire are counted per window. */
  senders?: string[];
  windows?: Window[];
  /** Called for every frame a NIC receives, before the NIC sees it. */
  onNicReceive?: (host: string, pkt: Packet, nowNs: number) => void;
  /** Called for every frame a NIC puts on the wire (at the end of its serialisation). */
  onNicSend?: (host: string, pkt: Packet, nowNs: number) => void;
  /** Called for every rate change of a NIC's QPs. */
  onRateChange?: (host: string, c: RateChange) => void;
  /** Called for every message a NIC completes (sender and receiver roles). */
  onMessageComplete?: (host: string, c: MessageCompletion) => void;
  /**
   * A test hook on every data-path frame a switch admits (an ingress plug-in, switch/cp.ts), which
   * may change the frame (e.g. AC5's "mark every 10th packet").
   */
  onSwitchReceive?: (switchName: string, port: number, pkt: Packet) => void;
}

export interface ProbedRun {
  out: RunOutput;
  windows: WindowMeasure[];
  nics: Map<string, Nic>;
}

/** Jain's index of sender bytes (1 when all are zero). */
export const jain = (xs: number[]): number => (xs.length === 0 ? Number.NaN : (jainIndex(xs) ?? 1));

export function runProbed(
  scenario: Scenario,
  spec: ProbeSpec,
  opts: { outDir: string; seed?: number },
): ProbedRun {
  const nics = new Map<string, Nic>();
  const windows = spec.windows ?? [];
  const senders = spec.senders ?? [];
  const b = spec.bottleneck;
  // Bytes per window: the bottleneck's, and each sender's.
  const portBytes = windows.map(() => 0);
  const senderBytes = windows.map(() => senders.map(() => 0));
  const within = (t: number, add: (i: number) => void) => {
    for (let i = 0; i < windows.length; i++) if (t >= windows[i].fromNs && t < windows[i].toNs) add(i);
  };
  const { onNicReceive, onNicSend, onRateChange, onMessageComplete, onSwitchReceive } = spec;
  const trace = tracer({
    nicRx: onNicReceive === undefined ? undefined : (h, t, pkt) => onNicReceive(h, pkt, t),
    nicTx: (h, t, pkt) => {
      onNicSend?.(h, pkt, t);
      const k = senders.indexOf(h);
      if (k >= 0) within(t, (i) => (senderBytes[i][k] += pkt.sizeBytes));
    },
    switchTx:
      b === undefined
        ? undefined
        : (name, t, port, pkt) => {
            if (name === b.switchName && port === b.port) within(t, (i) => (portBytes[i] += pkt.sizeBytes));
          },
  });
  let bottleneckRateBps = 0;
  const out = runScenario({
    scenario,
    outDir: opts.outDir,
    seed: opts.seed,
    print: null,
    trace,
    createNic: (env, cfg) => {
      const host = cfg.name;
      const nic = createNic(
        env,
        onRateChange === undefined && onMessageComplete === undefined
          ? cfg
          : observeNic(cfg, {
              onMessageComplete: (m) => onMessageComplete?.(host, m),
              onRateChange: (r) => onRateChange?.(host, r),
            }),
      );
      nics.set(host, nic);
      return nic;
    },
    createSwitch: (env, cfg) => {
      if (b !== undefined && cfg.name === b.switchName) bottleneckRateBps = cfg.ports[b.port].rateBps;
      if (onSwitchReceive === undefined) return createSwitch(env, cfg);
      const marker = (): SwitchCp => ({
        name: 'test-hook',
        onIngress: (pkt, inPort) => {
          onSwitchReceive(cfg.name, inPort, pkt);
          return false;
        },
      });
      return createSwitch(env, { ...cfg, cp: [marker, ...(cfg.cp ?? [])] });
    },
  });
  const measures = windows.map((w, i): WindowMeasure => {
    if (w.toNs > out.results.durationNs)
      throw new Error(`window [${w.fromNs}, ${w.toNs}) ns lies beyond the run`);
    return {
      fromNs: w.fromNs,
      toNs: w.toNs,
      utilisation: (portBytes[i] * 8e9) / (bottleneckRateBps * (w.toNs - w.fromNs)),
      senderBytes: senderBytes[i],
      jain: jain(senderBytes[i]),
    };
  });
  return { out, windows: measures, nics };
}
