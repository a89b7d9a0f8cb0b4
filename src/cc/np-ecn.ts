/**
 * The standard RoCEv2 notification point: a CNP back to the sender QP when CE-marked data arrives, at most
 * one per `intervalNs` per QP (DCQCN, Zhu et al., SIGCOMM'15; as DCQCN+ §II-B-2 restates it). On real NICs
 * this is firmware, not user code (NVIDIA DOCA PCC); the NIC uses it for algorithms without an NP of their
 * own, and algorithms can reuse it with their parameters.
 */
import { Ecn, type Packet } from '../wire/packet.js';
import type { NpAlgorithm, NpIo } from './types.js';

export interface EcnNpConfig {
  /** Minimum time between two CNPs of one QP, ns (0 = one CNP per CE packet). */
  intervalNs: number;
  /**
   * `immediate`: a CE packet inside the hold-off is ignored (the paper's wording).
   * `deferred`: it is remembered and one CNP leaves when the hold-off ends (the ns-3 DCQCN code
   * and the original paper's NIC behaviour); both give at most one CNP per interval.
   */
  mode: 'immediate' | 'deferred';
  /** False: no CNPs at all (e.g. congestion is echoed in ACKs instead). */
  enabled: boolean;
}

interface EcnNpQp {
  cfg: EcnNpConfig;
  lastCnpNs: number;
  pendingMarks: number;
  flushArmed: boolean;
}

const FLUSH_SLOT = 0;

export function ecnCnpNp<P>(select: (params: P) => EcnNpConfig): NpAlgorithm<P, null, EcnNpQp> {
  const send = (qp: EcnNpQp, io: NpIo, now: number) => {
    qp.lastCnpNs = now;
    qp.pendingMarks = 0;
    io.sendCnp();
  };
  return {
    initNic: () => null,
    initQp: (_flow, params) => ({
      cfg: select(params),
      lastCnpNs: Number.NEGATIVE_INFINITY,
      pendingMarks: 0,
      flushArmed: false,
    }),
    onData(qp, _nic, pkt: Packet, _params, io) {
      if (pkt.ecn !== Ecn.Ce || !qp.cfg.enabled) return;
      const now = io.now();
      if (now - qp.lastCnpNs >= qp.cfg.intervalNs) {
        send(qp, io, now);
      } else if (qp.cfg.mode === 'deferred') {
        qp.pendingMarks++;
        if (!qp.flushArmed) {
          qp.flushArmed = true;
          io.setTimer(FLUSH_SLOT, qp.lastCnpNs + qp.cfg.intervalNs);
        }
      }
    },
    onTimer(qp, _nic, _slot, _params, io) {
      qp.flushArmed = false;
      if (qp.pendingMarks > 0) send(qp, io, io.now());
    },
  };
}
