/**
 * Minimal NIC and switch firmware for testing the virtual runtime on its own: store-and-forward
 * FIFO ports at line rate, a NIC that sends each message at line rate and an ACK per packet, and
 * reports a receiver completion when a message's last packet arrives (with the id announced by
 * `expect`, else the message's ordinal on the QP). No congestion control, no loss recovery.
 * Exact timing makes FCTs predictable.
 */
import {
  type HostCounters,
  type MessageRequest,
  type Nic,
  type NicConfig,
  type QpSetup,
  zeroHostCounters,
} from '../../nic/api.js';
import type { FirmwareEnv } from '../../src/env/env.js';
import { Opcode } from '../../src/wire/opcodes.js';
import { FrameKind, type Packet } from '../../src/wire/packet.js';
import { createPacket } from '../../src/wire/packet-factory.js';
import { emulatedSizeBytes } from '../../src/wire/size.js';
import { type PortCounters, type Switch, type SwitchConfig, zeroSwitchCounters } from '../../switch/api.js';

class TxPort {
  queue: Packet[] = [];
  queueBytes = 0;
  busy = false;
  txBytes = 0;
  maxQueueBytes = 0;
  constructor(
    private readonly env: FirmwareEnv,
    private readonly port: number,
    private readonly rateBps: number,
  ) {}
  enqueue(pkt: Packet): void {
    this.queue.push(pkt);
    this.queueBytes += pkt.sizeBytes;
    this.maxQueueBytes = Math.max(this.maxQueueBytes, this.queueBytes);
    if (!this.busy) this.next();
  }
  private next(): void {
    const pkt = this.queue.shift();
    if (pkt === undefined) {
      this.busy = false;
      return;
    }
    this.queueBytes -= pkt.sizeBytes;
    this.busy = true;
    const done = this.env.now() + (pkt.sizeBytes * 8e9) / this.rateBps;
    this.env.setTimer(done, () => {
      this.txBytes += pkt.sizeBytes;
      this.env.send(this.port, pkt);
      this.next();
    });
  }
}

export function createStubSwitch(env: FirmwareEnv, cfg: SwitchConfig): Switch {
  const ports = cfg.ports.map((p, i) => new TxPort(env, i, p.rateBps));
  return {
    name: cfg.name,
    receive(_port: number, pkt: Packet) {
      const out = cfg.routes.get(pkt.dstIp);
      if (out === undefined) return;
      ports[out[pkt.srcPort % out.length]].enqueue(pkt);
    },
    portCounters(): PortCounters[] {
      return ports.map((p, i) => ({
        port: i,
        txBytes: p.txBytes,
        txPackets: 0,
        queueBytes: p.queueBytes,
        maxQueueBytes: p.maxQueueBytes,
        queueByteNs: 0,
        ecnMarked: 0,
        pfcPauseTx: 0,
        pfcPauseRx: 0,
        pausedNs: 0,
        drops: 0,
        cnmTx: 0,
        pfcResumeTx: 0,
        pfcResumeRx: 0,
        ingressDrops: 0,
        rxPackets: 0,
        rxBytes: 0,
        trims: 0,
        headerDrops: 0,
        maxHeaderQueueBytes: 0,
        linkDownDrops: 0,
      }));
    },
    queueBytes: (port: number) => ports[port].queueBytes,
    portRateBps: (port: number) => cfg.ports[port]?.rateBps ?? 0,
    trimming: false,
    linkEvents: false,
    switchCounters: () => zeroSwitchCounters(),
  };
}

interface StubQp {
  setup: QpSetup;
  msgs: { req: MessageRequest; postNs: number; lastPsn: number }[];
  nextPsn: number;
  rxPsn: number;
  /** Receiver: ids announced by `expect`, messages completed, the current message's bytes and first arrival. */
  expected: number[];
  rxOrdinal: number;
  rxBytes: number;
  rxFirstNs: number;
}

export function createStubNic(env: FirmwareEnv, cfg: NicConfig): Nic {
  const port = new TxPort(env, 0, cfg.port.rateBps);
  const qps = new Map<number, StubQp>();
  const counters: HostCounters = zeroHostCounters();
  const frame = (qp: StubQp, kind: FrameKind): Packet => {
    const p = createPacket();
    p.id = env.nextPacketId();
    p.kind = kind;
    p.srcMac = cfg.port.mac;
    p.dstMac = cfg.port.peerMac;
    p.srcIp = cfg.ip;
    p.dstIp = qp.setup.remoteIp;
    p.srcPort = qp.setup.srcPort;
    p.destQp = qp.setup.remoteQpn;
    return p;
  };
  return {
    name: cfg.name,
    createQp(setup) {
      qps.set(setup.qpn, {
        setup,
        msgs: [],
        nextPsn: 0,
        rxPsn: 0,
        expected: [],
        rxOrdinal: 0,
        rxBytes: 0,
        rxFirstNs: 0,
      });
    },
    post(req) {
      const qp = qps.get(req.qpn)!;
      const n = Math.max(1, Math.ceil(req.bytes / cfg.mtuBytes));
      for (let i = 0; i < n; i++) {
        const p = frame(qp, FrameKind.Data);
        p.payloadLen = Math.min(cfg.mtuBytes, req.bytes - i * cfg.mtuBytes);
        p.opcode =
          n === 1
            ? Opcode.SendOnly
            : i === 0
              ? Opcode.SendFirst
              : i === n - 1
                ? Opcode.SendLast
                : Opcode.SendMiddle;
        p.psn = qp.nextPsn++;
        p.sizeBytes = emulatedSizeBytes(p);
        counters.txBytes += p.sizeBytes;
        port.enqueue(p);
      }
      qp.msgs.push({ req, postNs: env.now(), lastPsn: qp.nextPsn - 1 });
    },
    receive(_port, pkt) {
      const qp = qps.get(pkt.destQp);
      if (qp === undefined) return;
      if (pkt.kind === FrameKind.Data) {
        counters.rxBytes += pkt.payloadLen;
        // A lossless stub: every data frame arrives in order, delivered as it comes.
        if (pkt.psn === qp.rxPsn) cfg.observer.onDelivered?.(qp.setup.qpn, pkt.payloadLen);
        qp.rxPsn = pkt.psn + 1;
        if (pkt.opcode === Opcode.SendFirst || pkt.opcode === Opcode.SendOnly) {
          qp.rxBytes = 0;
          qp.rxFirstNs = env.now();
        }
        qp.rxBytes += pkt.payloadLen;
        if (pkt.opcode === Opcode.SendLast || pkt.opcode === Opcode.SendOnly) {
          const k = qp.rxOrdinal++;
          cfg.observer.onMessageComplete({
            id: qp.expected[k] ?? k,
            qpn: pkt.destQp,
            bytes: qp.rxBytes,
            postNs: qp.rxFirstNs,
            completeNs: env.now(),
            role: 'receiver',
          });
        }
        const ack = frame(qp, FrameKind.Ack);
        ack.opcode = Opcode.Acknowledge;
        ack.psn = pkt.psn;
        ack.aeth = { syndrome: 0x1f, msn: 0 };
        ack.sizeBytes = emulatedSizeBytes(ack);
        port.enqueue(ack);
      } else if (pkt.kind === FrameKind.Ack) {
        while (qp.msgs.length > 0 && qp.msgs[0].lastPsn <= pkt.psn) {
          const m = qp.msgs.shift()!;
          cfg.observer.onMessageComplete({
            id: m.req.id,
            qpn: m.req.qpn,
            bytes: m.req.bytes,
            postNs: m.postNs,
            completeNs: env.now(),
            role: 'sender',
          });
        }
      }
    },
    expect(msg) {
      qps.get(msg.qpn)?.expected.push(msg.id);
    },
    counters: () => ({ ...counters }),
    qpRateBps: () => cfg.port.rateBps,
    qpWindowBytes: () => null,
    qpInspect: () => ({}),
    rateTrace: () => [],
    ccCounters: () => ({}),
    multipath: () => null,
  };
}
