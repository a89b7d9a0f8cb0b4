/**
 * Drives one RP by hand, for unit-level reproduction checks (Dolce-RC AC3/AC4) and the RP unit
 * tests: a clock, timers fired in (time, arming order) like the engine's scheduler, a settable
 * PFC pause state, the rate log and the algorithm counters. By default the rng throws, so a run
 * also proves the hooks draw no randomness.
 */
import type { FlowInfo, RpAlgorithm, RpEvent, RpIo } from '../cc/types.js';
import type { Rng } from '../env/rng.js';
import type { Packet } from '../wire/packet.js';
import { createPacket } from '../wire/packet-factory.js';

export const noRng: Rng = {
  next: () => {
    throw new Error('the RP drew randomness');
  },
  nextU32: () => {
    throw new Error('the RP drew randomness');
  },
  int: () => {
    throw new Error('the RP drew randomness');
  },
  fork: () => noRng,
};

export function flowInfo(lineRateBps: number, baseRttNs = 4000): FlowInfo {
  return {
    qpn: 1,
    remoteQpn: 2,
    lineRateBps,
    mtuBytes: 1000,
    baseRttNs,
    bottleneckRateBps: lineRateBps,
    hops: 1,
  };
}

export interface DriveOptions {
  /** The RP's randomness (default: one that throws on use). */
  rng?: Rng;
}

export function driveRp<P, S>(rp: RpAlgorithm<P, S>, p: P, flow: FlowInfo, opts: DriveOptions = {}) {
  let now = 0;
  let seq = 0;
  let rate = 0;
  let window: number | null = null;
  let paused = false;
  const timers = new Map<number, { at: number; seq: number }>();
  const log: { t: number; rateBps: number; why: string }[] = [];
  const counts = new Map<string, number>();
  const io: RpIo = {
    now: () => now,
    rng: opts.rng ?? noRng,
    setRate: (r, why) => {
      rate = Math.min(r, flow.lineRateBps);
      log.push({ t: now, rateBps: rate, why });
    },
    setWindow: (w) => {
      window = w;
    },
    setTimer: (slot, at) => void timers.set(slot, { at, seq: seq++ }),
    cancelTimer: (slot) => void timers.delete(slot),
    rateBps: () => rate,
    windowBytes: () => window,
    inflightBytes: () => 0,
    paused: () => paused,
    count: (name, d = 1) => void counts.set(name, (counts.get(name) ?? 0) + d),
  };
  const s = rp.init(flow, p, io);
  const ev = (e: RpEvent) => rp.onEvent(s, e, p, io);
  const next = () => {
    let best: [number, { at: number; seq: number }] | null = null;
    for (const e of timers)
      if (best === null || e[1].at < best[1].at || (e[1].at === best[1].at && e[1].seq < best[1].seq))
        best = e;
    return best;
  };
  return {
    s,
    io,
    timers,
    log,
    counts,
    rate: () => rate,
    window: () => window,
    now: () => now,
    ev,
    /** The data priority's PFC state as the RP sees it (io.paused). */
    setPaused(v: boolean) {
      paused = v;
    },
    inspect: () => rp.inspect?.(s, p, now) ?? {},
    /** Fire every timer due up to `t` in order, then move the clock to `t`. */
    at(t: number) {
      for (let n = next(); n !== null && n[1].at <= t; n = next()) {
        timers.delete(n[0]);
        now = n[1].at;
        ev({ type: 'timer', slot: n[0] });
      }
      now = t;
    },
    /** Fire the next timer; returns its slot (the clock is then at its time). */
    fire(): number {
      const n = next();
      if (n === null) throw new Error('no timer armed');
      timers.delete(n[0]);
      now = n[1].at;
      ev({ type: 'timer', slot: n[0] });
      return n[0];
    },
    cnp(fill?: (pkt: Packet) => void) {
      const pkt = createPacket();
      fill?.(pkt);
      ev({ type: 'cnp', pkt });
    },
    tx(sizeBytes = 1062, fill?: (pkt: Packet) => void) {
      const pkt = createPacket();
      pkt.sizeBytes = sizeBytes;
      fill?.(pkt);
      ev({ type: 'tx', pkt, bytes: sizeBytes, retransmit: false });
    },
  };
}
