/**
 * Drives DCQCN+'s hooks by hand: a clock, timers fired in (time, arming order) like the engine's
 * scheduler, a settable PFC pause state and the rate log.
 */
import type { DcqcnPlusParams } from '../../../src/cc/dcqcn-plus/params.js';
import { type DcqcnPlusRpState, dcqcnPlusRp } from '../../../src/cc/dcqcn-plus/rp.js';
import { resolveParams } from '../../../src/cc/registry.js';
import type { FlowInfo, RpEvent, RpIo } from '../../../src/cc/types.js';
import { createRng } from '../../../src/env/rng.js';
import { createExt, createPacket } from '../../../src/wire/packet-factory.js';

export const params = (o: Record<string, unknown> = {}, profile?: string) =>
  resolveParams('dcqcn-plus', o, profile) as DcqcnPlusParams;

export function flowInfo(lineRateBps: number): FlowInfo {
  return {
    qpn: 1,
    remoteQpn: 2,
    lineRateBps,
    mtuBytes: 1000,
    baseRttNs: 4000,
    bottleneckRateBps: lineRateBps,
    hops: 1,
  };
}

export function rpRig(p: DcqcnPlusParams, lineRateBps: number) {
  let now = 0;
  let seq = 0;
  let rate = 0;
  let paused = false;
  const timers = new Map<number, { at: number; seq: number }>();
  const log: { t: number; rateBps: number; why: string }[] = [];
  const counts = new Map<string, number>();
  const io: RpIo = {
    now: () => now,
    rng: createRng(1),
    setRate: (r, why) => {
      rate = Math.min(r, lineRateBps);
      log.push({ t: now, rateBps: rate, why });
    },
    setWindow: () => {},
    setTimer: (slot, at) => void timers.set(slot, { at, seq: seq++ }),
    cancelTimer: (slot) => void timers.delete(slot),
    rateBps: () => rate,
    windowBytes: () => null,
    inflightBytes: () => 0,
    paused: () => paused,
    count: (name, d = 1) => void counts.set(name, (counts.get(name) ?? 0) + d),
  };
  const s: DcqcnPlusRpState = dcqcnPlusRp.init(flowInfo(lineRateBps), p, io);
  const ev = (e: RpEvent) => dcqcnPlusRp.onEvent(s, e, p, io);
  const next = () => {
    let best: [number, { at: number; seq: number }] | null = null;
    for (const e of timers)
      if (best === null || e[1].at < best[1].at || (e[1].at === best[1].at && e[1].seq < best[1].seq))
        best = e;
    return best;
  };
  return {
    s,
    timers,
    log,
    counts,
    rate: () => rate,
    now: () => now,
    setPaused(v: boolean) {
      paused = v;
    },
    /** Fire every timer due up to `t` in order, then move the clock to `t`. */
    at(t: number) {
      for (let n = next(); n !== null && n[1].at <= t; n = next()) {
        timers.delete(n[0]);
        now = n[1].at;
        ev({ type: 'timer', slot: n[0] });
      }
      now = t;
    },
    /** Fire the next timer; returns its slot. */
    fire(): number {
      const n = next()!;
      timers.delete(n[0]);
      now = n[1].at;
      ev({ type: 'timer', slot: n[0] });
      return n[0];
    },
    cnp(cnpPeriodNs?: number) {
      const pkt = createPacket();
      if (cnpPeriodNs !== undefined) {
        pkt.ext = createExt();
        pkt.ext.cnpPeriodNs = cnpPeriodNs;
      }
      ev({ type: 'cnp', pkt });
    },
    inspect: () => dcqcnPlusRp.inspect!(s, p, now),
  };
}
