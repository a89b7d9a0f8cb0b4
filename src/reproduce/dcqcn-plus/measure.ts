/**
 * Measurements of dcqcn-plus.md §6.1 over a time window of a virtual-time run: the bottleneck
 * egress queue (exact time average, and percentiles of 10 µs samples), XOFF transitions the
 * switch sends, link utilisation and goodput into the receiver. A probe wraps the switch's and
 * the receiver NIC's firmware environment for runScenario; it only reads, so the run is the
 * same as without it. Not firmware: used by the reproduction checks.
 */

import { createNic, type Nic } from '../../../nic/api.js';
import { createSwitch, type Switch } from '../../../switch/api.js';
import type { Scenario } from '../../config/scenario.js';
import type { FirmwareEnv } from '../../env/env.js';
import { type RunOutput, runScenario } from '../../runtime/run.js';
import { FrameKind, type Packet } from '../../wire/packet.js';
import { loadPaperScenario } from '../paper-scenario.js';

/** A shipped scenario of this algorithm's checks, with `--set`-style overrides. */
export function paperScenario(file: string, overrides: string[] = []): Scenario {
  return loadPaperScenario('dcqcn-plus', file, overrides);
}

/** Where to measure: the bottleneck egress port (the receiver's link) and the receiver. */
export interface ProbeSpec {
  switchName: string;
  port: number;
  receiver: string;
  /** Queue sampling period for percentiles (spec: 10 µs). */
  sampleNs: number;
}

export interface Window {
  fromNs: number;
  toNs: number;
}

export interface WindowMeasure {
  fromNs: number;
  toNs: number;
  /** Time average of the bottleneck egress queue over the window (exact integral). */
  meanQueueBytes: number;
  p99QueueBytes: number;
  maxSampledQueueBytes: number;
  /** XOFF transitions (not refreshes) the switch sent on any port in the window. */
  xoff: number;
  /** Wire bytes out of the bottleneck port ÷ (line rate × window). */
  utilisation: number;
  /** Payload delivered in order to the receiver ÷ (line rate × window). */
  goodput: number;
}

export interface RunMeasure {
  windows: WindowMeasure[];
  /** XOFF transitions of the whole run, and the time of the last one (null: none). */
  xoffTotal: number;
  lastXoffNs: number | null;
  /** Number of XOFF transitions at or after `t`. */
  xoffSince(tNs: number): number;
  lineRateBps: number;
  wallMs: number;
  events: number;
  drops: number;
  warnings: string[];
}

interface Snap {
  qns: number;
  tx: number;
  rx: number;
  t: number;
}

function wrapEnv(env: FirmwareEnv, send: (port: number, pkt: Packet) => void): FirmwareEnv {
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

/** The q-quantile of `xs` (nearest rank). */
export function quantile(xs: ArrayLike<number>, q: number): number {
  if (xs.length === 0) return Number.NaN;
  const s = Float64Array.from(xs).sort();
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil(q * s.length) - 1))];
}

/**
 * Run `scenario` in virtual time with the probe attached and measure every window. Queue
 * samples are taken only inside windows, so long runs cost a few thousand extra events.
 */
export function runMeasured(
  scenario: Scenario,
  probe: ProbeSpec,
  windows: Window[],
  opts: { outDir: string; seed?: number },
): { out: RunOutput; m: RunMeasure } {
  const xoffTimes: number[] = [];
  const edges = windows.map(() => ({
    a: null as Snap | null,
    b: null as Snap | null,
    samples: [] as number[],
  }));
  let lineRateBps = 0;
  let receiver: Nic | null = null;
  const nicFactory = (env: FirmwareEnv, cfg: Parameters<typeof createNic>[1]): Nic => {
    const nic = createNic(env, cfg);
    if (cfg.name === probe.receiver) receiver = nic;
    return nic;
  };
  const switchFactory = (env: FirmwareEnv, cfg: Parameters<typeof createSwitch>[1]): Switch => {
    // XOFF state per (port, priority): a pause frame is a transition only when sent from XON.
    const xoff = new Set<number>();
    const send = (port: number, pkt: Packet) => {
      const pfc = pkt.kind === FrameKind.Pfc ? pkt.pfc : null;
      if (pfc !== null) {
        for (let prio = 0; prio < 8; prio++) {
          if (((pfc.classEnable >> prio) & 1) === 0) continue;
          const key = port * 8 + prio;
          if ((pfc.quanta[prio] ?? 0) > 0) {
            if (!xoff.has(key)) {
              xoff.add(key);
              xoffTimes.push(env.now());
            }
          } else {
            xoff.delete(key);
          }
        }
      }
      env.send(port, pkt);
    };
    const sw = createSwitch(wrapEnv(env, send), cfg);
    if (cfg.name !== probe.switchName) return sw;
    lineRateBps = cfg.ports[probe.port].rateBps;
    const snap = (): Snap => {
      const c = sw.portCounters()[probe.port];
      return { qns: c.queueByteNs, tx: c.txBytes, rx: receiver?.counters().rxBytes ?? 0, t: env.now() };
    };
    windows.forEach((w, i) => {
      const e = edges[i];
      env.setTimer(w.fromNs, () => {
        e.a = snap();
      });
      env.setTimer(w.toNs, () => {
        e.b = snap();
      });
      const sample = () => {
        const t = env.now();
        if (t >= w.toNs) return;
        e.samples.push(sw.queueBytes(probe.port));
        env.setTimer(t + probe.sampleNs, sample);
      };
      env.setTimer(w.fromNs, sample);
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
    const { a, b, samples } = edges[i];
    if (a === null || b === null) throw new Error(`window [${w.fromNs}, ${w.toNs}) ns lies beyond the run`);
    const dt = b.t - a.t;
    const capacityBytes = (lineRateBps * dt) / 8e9;
    return {
      fromNs: w.fromNs,
      toNs: w.toNs,
      meanQueueBytes: (b.qns - a.qns) / dt,
      p99QueueBytes: quantile(samples, 0.99),
      maxSampledQueueBytes: samples.reduce((x, y) => Math.max(x, y), 0),
      xoff: xoffTimes.filter((t) => t >= w.fromNs && t < w.toNs).length,
      utilisation: (b.tx - a.tx) / capacityBytes,
      goodput: (b.rx - a.rx) / capacityBytes,
    };
  });
  return {
    out,
    m: {
      windows: measures,
      xoffTotal: xoffTimes.length,
      lastXoffNs: xoffTimes.length > 0 ? xoffTimes[xoffTimes.length - 1] : null,
      xoffSince: (t) => xoffTimes.filter((x) => x >= t).length,
      lineRateBps,
      wallMs: out.wallMs,
      events: out.events,
      drops: out.results.summary.drops,
      warnings: out.results.warnings,
    },
  };
}

export function fmtKB(bytes: number): string {
  return bytes >= 1e6 ? `${(bytes / 1e6).toFixed(2)} MB` : `${(bytes / 1e3).toFixed(0)} KB`;
}
