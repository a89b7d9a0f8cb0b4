/**
 * Measurement harness of the Dolce-RC checks (not firmware): runs a scenario in virtual time with
 * read-only wrappers around the NIC and switch firmware and reports, per time window, the
 * bottleneck's utilisation and each sender's transmitted bytes (for Jain's index), plus hooks to
 * watch frames a NIC receives or sends. The wrappers only observe, so the run is the one
 * `rocelab run` produces.
 */

import {
  createNic,
  type MessageCompletion,
  type Nic,
  type NicConfig,
  type RateChange,
} from '../../../nic/api.js';
import { createSwitch, type Switch } from '../../../switch/api.js';
import { loadScenario } from '../../config/load.js';
import type { Scenario } from '../../config/scenario.js';
import type { FirmwareEnv } from '../../env/env.js';
import { type RunOutput, runScenario } from '../../runtime/run.js';
import type { Packet } from '../../wire/packet.js';
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
  /** Hosts whose NIC byte counters are snapshotted at the window edges. */
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
   * Called for every frame a switch receives, before the switch sees it; may change the frame
   * (a test hook, e.g. AC5's "mark every 10th packet").
   */
  onSwitchReceive?: (switchName: string, port: number, pkt: Packet, nowNs: number) => void;
}

export interface ProbedRun {
  out: RunOutput;
  windows: WindowMeasure[];
  nics: Map<string, Nic>;
}

export function jainIndex(xs: number[]): number {
  const n = xs.length;
  if (n === 0) return Number.NaN;
  const sum = xs.reduce((a, b) => a + b, 0);
  const sq = xs.reduce((a, b) => a + b * b, 0);
  return sq > 0 ? (sum * sum) / (n * sq) : 1;
}

function withSend(env: FirmwareEnv, send: (port: number, pkt: Packet) => void): FirmwareEnv {
  return {
    now: () => env.now(),
    setTimer: (at, fn) => env.setTimer(at, fn),
    cancelTimer: (id) => env.cancelTimer(id),
    send,
    rng: env.rng,
    log: env.log,
    nextPacketId: () => env.nextPacketId(),
  };
}

interface Edge {
  t: number;
  bottleneckTx: number;
  senderTx: number[];
}

export function runProbed(
  scenario: Scenario,
  spec: ProbeSpec,
  opts: { outDir: string; seed?: number },
): ProbedRun {
  const nics = new Map<string, Nic>();
  const windows = spec.windows ?? [];
  const senders = spec.senders ?? [];
  const edges = windows.map(() => ({ a: null as Edge | null, b: null as Edge | null }));
  let bottleneckRateBps = 0;
  const nicFactory = (env: FirmwareEnv, cfg: NicConfig): Nic => {
    const host = cfg.name;
    const onSend = spec.onNicSend;
    const e =
      onSend === undefined
        ? env
        : withSend(env, (port, pkt) => {
            onSend(host, pkt, env.now());
            env.send(port, pkt);
          });
    const onRate = spec.onRateChange;
    const onDone = spec.onMessageComplete;
    const c: NicConfig =
      onRate === undefined && onDone === undefined
        ? cfg
        : {
            ...cfg,
            observer: {
              onMessageComplete: (m) => {
                onDone?.(host, m);
                cfg.observer.onMessageComplete(m);
              },
              onRateChange: (r) => {
                onRate?.(host, r);
                cfg.observer.onRateChange?.(r);
              },
            },
          };
    const nic = createNic(e, c);
    nics.set(host, nic);
    const onRx = spec.onNicReceive;
    if (onRx === undefined) return nic;
    const receive = nic.receive.bind(nic);
    nic.receive = (port: number, pkt: Packet) => {
      onRx(host, pkt, env.now());
      receive(port, pkt);
    };
    return nic;
  };
  const switchFactory = (env: FirmwareEnv, cfg: Parameters<typeof createSwitch>[1]): Switch => {
    const sw = createSwitch(env, cfg);
    const onRx = spec.onSwitchReceive;
    if (onRx !== undefined) {
      const receive = sw.receive.bind(sw);
      sw.receive = (port: number, pkt: Packet) => {
        onRx(cfg.name, port, pkt, env.now());
        receive(port, pkt);
      };
    }
    const b = spec.bottleneck;
    if (b === undefined || cfg.name !== b.switchName) return sw;
    bottleneckRateBps = cfg.ports[b.port].rateBps;
    const snap = (): Edge => ({
      t: env.now(),
      bottleneckTx: sw.portCounters()[b.port].txBytes,
      senderTx: senders.map((h) => nics.get(h)?.counters().txBytes ?? 0),
    });
    windows.forEach((w, i) => {
      env.setTimer(w.fromNs, () => {
        edges[i].a = snap();
      });
      env.setTimer(w.toNs, () => {
        edges[i].b = snap();
      });
    });
    return sw;
  };
  const out = runScenario({
    scenario,
    outDir: opts.outDir,
    seed: opts.seed,
    print: null,
    createNic: nicFactory,
    createSwitch: switchFactory,
  });
  const measures = windows.map((w, i): WindowMeasure => {
    const { a, b } = edges[i];
    if (a === null || b === null) throw new Error(`window [${w.fromNs}, ${w.toNs}) ns lies beyond the run`);
    const dtNs = b.t - a.t;
    const senderBytes = b.senderTx.map((x, k) => x - a.senderTx[k]);
    return {
      fromNs: w.fromNs,
      toNs: w.toNs,
      utilisation: ((b.bottleneckTx - a.bottleneckTx) * 8e9) / (bottleneckRateBps * dtNs),
      senderBytes,
      jain: jainIndex(senderBytes),
    };
  });
  return { out, windows: measures, nics };
}
