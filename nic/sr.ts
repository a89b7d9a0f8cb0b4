/**
 * Selective repeat, the `rocev2-sr` and `uet` transports: the requester (sr-tx.ts) and the
 * responder (sr-rx.ts) of one NIC behind the Transport contract. The two differ only in their
 * defaults (docs/scenario.md): `uet` resends on NACK and RTO alone (the reference's default, its
 * SLEEK gap detection off) with the reference's ~100 µs RTO, `rocev2-sr` also on a SACK gap past
 * the reorder threshold.
 */
import type { Packet } from '../src/wire/packet.js';
import type { SelectiveRepeatConfig } from './api.js';
import type { Qp } from './qp.js';
import { SrResponder } from './sr-rx.js';
import { SrRequester } from './sr-tx.js';
import type { NextData, Transport, TransportHost } from './transport.js';

export class SelectiveRepeat implements Transport {
  private readonly tx: SrRequester;
  private readonly rx: SrResponder;

  constructor(host: TransportHost, cfg: SelectiveRepeatConfig) {
    const w = cfg.windowPackets;
    if (!Number.isInteger(w) || w < 64 || w > 1 << 22 || (w & (w - 1)) !== 0)
      throw new Error(`selective repeat: windowPackets must be a power of two in 64..2^22, got ${w}`);
    if (!(cfg.ackBytes >= 0)) throw new Error(`selective repeat: bad ackBytes ${cfg.ackBytes}`);
    this.tx = new SrRequester(host, cfg);
    this.rx = new SrResponder(host, cfg);
  }

  attach(qp: Qp): void {
    this.tx.attach(qp);
    this.rx.attach(qp);
  }

  canSend(qp: Qp): boolean {
    return this.tx.canSend(qp);
  }

  nextData(qp: Qp): NextData {
    return this.tx.nextData(qp);
  }

  dataBuilt(qp: Qp, pkt: Packet): void {
    this.tx.dataBuilt(qp, pkt);
  }

  onData(qp: Qp, pkt: Packet): void {
    this.rx.onData(qp, pkt);
  }

  onAck(qp: Qp, pkt: Packet): void {
    this.tx.onAck(qp, pkt);
  }

  inflightBytes(qp: Qp): number {
    return qp.srInflightBytes;
  }
}
