/**
 * Dolce-RC notification point (paper §IV-B.1; docs/algorithms/dolce-rc.md "ECN-ratio estimators"). Ideal
 * mode: CE-marked data packets are counted, and the count since the previous CNP rides in the CNP (7-bit BTH
 * reserved field, saturating at 127, and exactly in the `ecnCount` extension), at most one CNP per τ_CNP per
 * QP; a mark inside the hold-off is sent when it ends, so no mark goes uncounted. Actual mode (the hardware
 * prototype): a bare CNP for a CE packet whenever ≥ 1 µs has passed since the previous one.
 */
import { cnpResv7OfEcnCount } from '../../wire/cnp.js';
import { Ecn, type Packet } from '../../wire/packet.js';
import type { NpAlgorithm, NpIo } from '../types.js';
import type { DolceRcParams } from './params.js';

interface DolceRcNpQp {
  ideal: boolean;
  /** Also send the exact count (extension field), not only the saturating 7 bits. */
  exact: boolean;
  intervalNs: number;
  lastCnpNs: number;
  pendingMarks: number;
  flushArmed: boolean;
}

const FLUSH_SLOT = 0;

function sendCounted(qp: DolceRcNpQp, io: NpIo, nowNs: number): void {
  const count = qp.pendingMarks;
  qp.lastCnpNs = nowNs;
  qp.pendingMarks = 0;
  const bthResv7 = cnpResv7OfEcnCount(count);
  io.sendCnp(qp.exact ? { bthResv7, ecnCount: count } : { bthResv7 });
}

export const dolceRcNp: NpAlgorithm<DolceRcParams, null, DolceRcNpQp> = {
  initNic: () => null,
  initQp: (_flow, p) => ({
    ideal: p.ecnEstimator === 'ideal',
    exact: p.cnpCount === 'exact',
    intervalNs: p.ecnEstimator === 'ideal' ? p.cnpIntervalNs : p.actualCnpIntervalNs,
    lastCnpNs: Number.NEGATIVE_INFINITY,
    pendingMarks: 0,
    flushArmed: false,
  }),
  onData(qp, _nic, pkt: Packet, _p, io) {
    if (pkt.ecn !== Ecn.Ce) return;
    const now = io.now();
    if (!qp.ideal) {
      if (now - qp.lastCnpNs >= qp.intervalNs) {
        qp.lastCnpNs = now;
        io.sendCnp();
      }
      return;
    }
    qp.pendingMarks++;
    if (now - qp.lastCnpNs >= qp.intervalNs) {
      sendCounted(qp, io, now);
    } else if (!qp.flushArmed) {
      qp.flushArmed = true;
      io.setTimer(FLUSH_SLOT, qp.lastCnpNs + qp.intervalNs);
    }
  },
  onTimer(qp, _nic, _slot, _p, io) {
    qp.flushArmed = false;
    if (qp.pendingMarks > 0) sendCounted(qp, io, io.now());
  },
  inspect: (qp) => ({ npPendingMarks: qp.pendingMarks }),
};
