/**
 * Drives one algorithm's NP hooks by hand, as a receiver NIC would (nic/cc-host.ts): one NIC-wide
 * state, QP states created on demand, per-QP and NIC-wide timers fired in (time, arming order),
 * every CNP recorded with the QP it is for, ACK requests counted, ACK decoration and the counters.
 */
import type { Rng } from '../../env/rng.js';
import type { CnpPayload } from '../../wire/cnp.js';
import { Ecn, FrameKind, type Packet } from '../../wire/packet.js';
import { createPacket } from '../../wire/packet-factory.js';
import type { FlowInfo, NpAlgorithm, NpIo, NpNicIo } from '../types.js';
import { flowInfo, noRng } from './rp.js';
import { HandTimers } from './timers.js';

export interface SentCnp {
  t: number;
  qpn: number;
  fields: CnpPayload | undefined;
}

export interface NpDriveOptions {
  /** The hooks' randomness (default: one that throws on use). */
  rng?: Rng;
  /** Flow facts of QP `qpn` (default: flowInfo({ qpn })). */
  flow?: (qpn: number) => FlowInfo;
}

type TimerKey = string;

export function driveNp<P, N, Q>(np: NpAlgorithm<P, N, Q>, p: P, opts: NpDriveOptions = {}) {
  const timers = new HandTimers<TimerKey>();
  const cnps: SentCnp[] = [];
  const counts = new Map<string, number>();
  const rng = opts.rng ?? noRng;
  const count = (name: string, d = 1) => void counts.set(name, (counts.get(name) ?? 0) + d);
  let ackRequests = 0;
  const qps = new Map<number, { state: Q; io: NpIo }>();
  let nic: N;
  const nicIo: NpNicIo = {
    now: () => timers.nowNs,
    rng,
    sendCnp: (qpn, fields) => void cnps.push({ t: timers.nowNs, qpn, fields }),
    setTimer: (slot, at) => timers.set(`nic:${slot}`, at, () => np.onNicTimer?.(nic, slot, p, nicIo)),
    cancelTimer: (slot) => timers.cancel(`nic:${slot}`),
    count,
  };
  nic = np.initNic(p, nicIo);
  const qp = (qpn: number) => {
    let q = qps.get(qpn);
    if (q === undefined) {
      const io: NpIo = {
        now: () => timers.nowNs,
        rng,
        sendCnp: (fields) => void cnps.push({ t: timers.nowNs, qpn, fields }),
        requestAck: () => void ackRequests++,
        setTimer: (slot, at) =>
          timers.set(`${qpn}:${slot}`, at, () => np.onTimer?.(entry.state, nic, slot, p, io)),
        cancelTimer: (slot) => timers.cancel(`${qpn}:${slot}`),
        count,
      };
      const entry = { state: np.initQp((opts.flow ?? ((n) => flowInfo({ qpn: n })))(qpn), p, nic), io };
      q = entry;
      qps.set(qpn, q);
    }
    return q;
  };
  return {
    nic: () => nic,
    /** QP `qpn`'s NP state (created, with initQp, on first use). */
    qp: (qpn: number) => qp(qpn).state,
    cnps,
    counts,
    ackRequests: () => ackRequests,
    now: () => timers.nowNs,
    pendingTimers: () => timers.size,
    /** When QP `qpn`'s timer `slot` fires, or undefined when it is not armed. */
    timerAt: (qpn: number, slot: number) => timers.atNs(`${qpn}:${slot}`),
    /** When the NIC-wide timer `slot` fires, or undefined. */
    nicTimerAt: (slot: number) => timers.atNs(`nic:${slot}`),
    /** Fire every timer due up to `t` in order, then move the clock to `t`. */
    at(t: number) {
      timers.advance(t);
    },
    /**
     * Fire the next timer (the clock is then at its time), after `before` at that instant;
     * false when none is armed.
     */
    step(before?: () => void): boolean {
      if (timers.size === 0) return false;
      timers.fireNext(before);
      return true;
    },
    /** A data packet on QP `qpn`; `fill` may set PSN, ECN, INT … */
    data(qpn: number, fill?: (pkt: Packet) => void): Packet {
      const q = qp(qpn);
      const pkt = createPacket();
      pkt.kind = FrameKind.Data;
      pkt.destQp = qpn;
      fill?.(pkt);
      np.onData(q.state, nic, pkt, p, q.io);
      return pkt;
    },
    /** A data packet with the given ECN codepoint (CE = marked by a switch). */
    mark(qpn: number, ce = true): Packet {
      return this.data(qpn, (pkt) => {
        pkt.ecn = ce ? Ecn.Ce : Ecn.Ect0;
      });
    },
    /** Let the NP decorate an ACK of QP `qpn`. */
    decorateAck(qpn: number, fill?: (pkt: Packet) => void): Packet {
      const q = qp(qpn);
      const ack = createPacket();
      ack.kind = FrameKind.Ack;
      fill?.(ack);
      np.decorateAck?.(q.state, nic, ack, p, q.io);
      return ack;
    },
    inspect: (qpn: number) => np.inspect?.(qp(qpn).state, nic, p, timers.nowNs) ?? {},
  };
}
