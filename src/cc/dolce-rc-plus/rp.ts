/**
 * Dolce-RC+ reaction point ("Data-Driven Rate Control for RDMA Networks: A Lightweight Online
 * Learning Approach", §VI-A, Alg. 3; docs/algorithms/dolce-rc.md). No rate machine: every
 * message is paced at the rate of the arm DR-UCB holds when its first packet leaves, and every
 * data packet carries the message's MAB iteration, arm, first-packet departure time and id
 * (Fig. 7a). The receiver's per-message ACK echoes them with the message's CE and packet counts
 * (Fig. 7b); the sender then measures MCT = ACK arrival − first departure on its own clock,
 * credits Eq. (5) to the arm that sent the message and picks the arm for the next message.
 *
 * Messages are pipelined (each takes the arm current at its start) unless `strictMessages`.
 * Bandit state is per QP and survives across messages and flows.
 */
import { PSN_MASK, psnDiff } from '../../wire/bth.js';
import { isMessageEnd, isMessageStart } from '../../wire/opcodes.js';
import type { Packet } from '../../wire/packet.js';
import { createExt } from '../../wire/packet-factory.js';
import { DrUcb } from '../dolce-rc/dr-ucb.js';
import type { FlowInfo, RpAlgorithm, RpEvent, RpIo } from '../types.js';
import type { DolceRcPlusParams } from './params.js';
import { armRatesBps, idealMctNs, messageReward } from './reward.js';

/** Names of the extension fields (PacketExt.fields) on data packets and message ACKs. */
export const F_ITER = 'mabIter';
export const F_ARM = 'arm';
export const F_FIRST_TX = 'firstTxNs';
export const F_MSG = 'msgId';
export const F_MSG_BYTES = 'msgBytes';
export const F_CE = 'ceCount';
export const F_PKTS = 'pktCount';

/** What a message carries in every data packet. */
interface MsgStamp {
  firstPsn: number;
  msgId: number;
  arm: number;
  iter: number;
  firstTxNs: number;
}

export interface DolceRcPlusState {
  mab: DrUcb;
  ratesBps: number[];
  capacityBps: number;
  baseRttNs: number;
  /** Arm the next message starts with. */
  curArm: number;
  nextMsgId: number;
  /** Stamps of messages sent and not yet rewarded, oldest first (retransmissions look them up). */
  stamps: MsgStamp[];
  /** One past the highest PSN sent so far (24-bit), null before the first packet. */
  nextNewPsn: number | null;
  lastRewardedMsgId: number;
  messages: number;
  lastReward: number;
  lastMctNs: number;
}

export function initDolceRcPlus(flow: FlowInfo, p: DolceRcPlusParams): DolceRcPlusState {
  const capacityBps = p.capacityBps > 0 ? p.capacityBps : flow.lineRateBps;
  const mab = new DrUcb(p.arms, p.epsilon, p.gamma, p.xi);
  return {
    mab,
    ratesBps: armRatesBps(p.arms, capacityBps),
    capacityBps,
    baseRttNs: p.baseRttNs > 0 ? p.baseRttNs : flow.baseRttNs,
    curArm: mab.select(),
    nextMsgId: 0,
    stamps: [],
    nextNewPsn: null,
    lastRewardedMsgId: -1,
    messages: 0,
    lastReward: -1,
    lastMctNs: -1,
  };
}

function stampFor(s: DolceRcPlusState, pkt: Packet, io: RpIo): MsgStamp | null {
  const psn = pkt.psn;
  const fresh = s.nextNewPsn === null || psnDiff(psn, s.nextNewPsn) >= 0;
  if (fresh) {
    s.nextNewPsn = (psn + 1) & PSN_MASK;
    if (isMessageStart(pkt.opcode)) {
      const arm = s.curArm;
      const stamp: MsgStamp = {
        firstPsn: psn,
        msgId: s.nextMsgId++,
        arm,
        iter: s.mab.t,
        firstTxNs: io.now(),
      };
      s.stamps.push(stamp);
      io.setRate(s.ratesBps[arm], `msg:arm${arm}`);
      return stamp;
    }
    return s.stamps.length > 0 ? s.stamps[s.stamps.length - 1] : null;
  }
  // Go-back-N resend: the message is the newest one that starts at or before this PSN; it keeps
  // its first departure time, so the retransmission shows in its MCT.
  for (let i = s.stamps.length - 1; i >= 0; i--)
    if (psnDiff(psn, s.stamps[i].firstPsn) >= 0) return s.stamps[i];
  return null;
}

function decorate(s: DolceRcPlusState, pkt: Packet, io: RpIo): void {
  const st = stampFor(s, pkt, io);
  if (st === null) return;
  pkt.ext ??= createExt();
  pkt.ext.fields = {
    [F_ITER]: st.iter,
    [F_ARM]: st.arm,
    [F_FIRST_TX]: st.firstTxNs,
    [F_MSG]: st.msgId,
  };
}

function onAck(s: DolceRcPlusState, pkt: Packet, p: DolceRcPlusParams, io: RpIo): void {
  // Stamps of messages wholly acknowledged are not needed for resends any more; this also bounds
  // the list when the receiver does not echo the fields (another algorithm's NP).
  while (s.stamps.length >= 2 && psnDiff(pkt.psn, s.stamps[1].firstPsn) >= 0) s.stamps.shift();
  const f = pkt.ext?.fields ?? null;
  if (f === null) return;
  const msgId = f[F_MSG];
  const arm = f[F_ARM];
  if (msgId === undefined || arm === undefined || !(arm >= 0 && arm < s.ratesBps.length)) return;
  // Messages complete in order on an RC QP, so an id at or below the last rewarded one is a
  // duplicate ACK (e.g. the re-ACK of a duplicate packet).
  if (msgId <= s.lastRewardedMsgId) return;
  s.lastRewardedMsgId = msgId;
  while (s.stamps.length > 0 && s.stamps[0].msgId <= msgId) s.stamps.shift();
  const mctNs = io.now() - (f[F_FIRST_TX] ?? io.now());
  const ideal = idealMctNs(f[F_MSG_BYTES] ?? 0, s.capacityBps, s.baseRttNs);
  const x = messageReward(ideal, mctNs, f[F_CE] ?? 0, f[F_PKTS] ?? 0, arm);
  s.mab.update(arm, x);
  s.curArm = s.mab.select();
  s.messages++;
  s.lastReward = x;
  s.lastMctNs = mctNs;
  io.count('dolceRcPlusMessages');
  io.count(`dolceRcPlusArm${arm}`);
  if (p.strictMessages) io.setWindow(null, 'msg:acked');
}

export const dolceRcPlusRp: RpAlgorithm<DolceRcPlusParams, DolceRcPlusState> = {
  features: { int: null, txTimestamp: false },
  init(flow, p, io) {
    const s = initDolceRcPlus(flow, p);
    io.setRate(s.ratesBps[s.curArm], 'init');
    return s;
  },
  decorateData(s, pkt, _p, io) {
    decorate(s, pkt, io);
  },
  onEvent(s, ev: RpEvent, p, io) {
    switch (ev.type) {
      case 'ack':
        onAck(s, ev.pkt, p, io);
        break;
      case 'tx':
        // W_MSG = 1: once a message's last packet is out, hold the next until its ACK (a window
        // of 1 byte stops the QP while anything is unacknowledged).
        if (p.strictMessages && !ev.retransmit && isMessageEnd(ev.pkt.opcode)) io.setWindow(1, 'msg:sent');
        break;
      default:
        // Dolce-RC+ ignores CNPs (none are sent), NAKs and timeouts: the reliability layer's
        // retransmissions show up in the MCT.
        break;
    }
  },
  inspect(s): Record<string, number> {
    return {
      arm: s.curArm,
      rateArmBps: s.ratesBps[s.curArm],
      mabIter: s.mab.t,
      messages: s.messages,
      lastReward: s.lastReward,
      lastMctNs: s.lastMctNs,
    };
  },
};
