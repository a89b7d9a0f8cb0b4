/**
 * The FirmwareEnv of one real-runtime node (docs/realtime.md: time dilation, clock sync,
 * overlay): the dilated, sync-corrected real clock, batched real timers, and one UDP socket that
 * carries every port's frames.
 *
 * Sending: firmware calls send(port, pkt) when the frame's last bit left the port at its emulated
 * line rate (the firmware paces itself on the emulated clock, so serialisation needs nothing
 * here). The frame is encapsulated at once and held for the link's propagation delay on the
 * sender side (one FIFO ring and one timer per port, as the virtual runtime's links), then sent
 * to the peer's address. The real loopback latency (tens of µs, i.e. tens of emulated ns at
 * timeScale 1000) comes on top; docs/realtime.md discusses it.
 *
 * Receiving: the datagram's source address names the peer node, the VNI the peer's egress port,
 * and together they give the local ingress port. Anything that does not decode, or comes from an
 * address that is not a neighbour, is counted by reason and dropped: a node never crashes on a
 * datagram. Sync frames go to clock sync, everything else to firmware.receive.
 */
import type { Socket } from 'node:dgram';
import type { FirmwareEnv, Logger, NodeFirmware, TimerId } from '../../env/env.js';
import type { Rng } from '../../env/rng.js';
import type { Topology, TopologyNode } from '../../topology/model.js';
import {
  createDecapsulatedMeta,
  type DecapsulatedMeta,
  type DecapsulateOptions,
  decapsulateAt,
  decapsulateVxlan,
  encapsulate,
  encapsulateVxlan,
  overlayKindOf,
  PROMISE_OPTION_BYTES,
  type PromiseTrailer,
} from '../../wire/encap.js';
import { FrameKind, type Packet } from '../../wire/packet.js';
import { recyclePacket } from '../../wire/packet-factory.js';
import {
  encodeControl,
  linkSeqDiff,
  readLinkSeq,
  TrainReader,
  TrainWriter,
  trailerBytes,
} from '../../wire/train.js';
import { type AddressMap, addressOf, type Endpoint } from './addresses.js';
import type { EventTimers } from './event-timers.js';
import { copyToSlab, type LocalReceiver, localReceiver, registerLocalReceiver } from './in-process-links.js';
import type { LockstepScheduler } from './lockstep.js';
import { PortRing } from './port-ring.js';
import { addressKey, type ProcessBundler } from './process-bundles.js';
import { ResendRing } from './resend-ring.js';
import { SendsInFlight } from './sends-in-flight.js';

export type Overlay = 'geneve' | 'vxlan';

export interface PortLink {
  /** Local port index. */
  port: number;
  peerNode: string;
  peerPort: number;
  peer: Endpoint;
  delayNs: number;
  rateBps: number;
}

/** Frame observers (metrics, pcap, host accounting). */
export interface FrameTap {
  onTx?(port: number, pkt: Packet, timeNs: number): void;
  onRx?(port: number, pkt: Packet, timeNs: number): void;
}

export interface NodeEnvOptions {
  node: TopologyNode;
  topo: Topology;
  addresses: AddressMap;
  socket: Socket;
  /** Wall-clock mode: timers on the dilated real clock. */
  timers: EventTimers;
  /** Lockstep mode (docs/realtime.md "Lockstep"): frames and timers run by this scheduler instead. */
  lockstep?: LockstepScheduler<Packet>;
  overlay: Overlay;
  rng: Rng;
  log: Logger;
  /** Corrected emulated time, unrounded (clock sync timestamps). */
  preciseNow(): number;
  /** Check the ICRC of received frames (default true). */
  verifyIcrc?: boolean;
  /**
   * HPCC's INT_MULTI the run's switches stamp with (RunSetup.intMulti): HPCC INT stacks are
   * encoded and decoded in its units (docs/wire.md "INT stacks"). Default 1.
   */
  intMulti?: number;
  /**
   * The run's HPCC INT line-rate table (RunSetup.intRatesBps, docs/wire.md "Rate codes"): HPCC INT
   * stacks are encoded and decoded with it. Default the ns-3 table.
   */
  intRatesBps?: readonly number[];
  /**
   * Forward received RoCEv2 frames in place: keep their bytes and patch only what a switch changes
   * instead of encoding them again (docs/wire.md "Forwarding in place"; default false).
   */
  forwardInPlace?: boolean;
  /**
   * Stamp every Geneve frame with its emulated arrival instant and deliver received frames at
   * their stamps (default true; docs/realtime.md "Arrival stamps"). Off: frames arrive when the
   * event loop gets to them.
   */
  arrivalStamps?: boolean;
  /**
   * Frame trains (docs/wire.md §6.1 Frame trains): the stamped frames a link sends in one event-loop turn
   * leave in one datagram (default true; 'off' keeps one frame per datagram).
   */
  trains?: boolean;
  /** Largest UDP payload the real path carries without IP fragmentation (MTU − 28). */
  maxDatagramBytes?: number;
  /** A datagram lost or reordered by the real network that could not be recovered (fatal). */
  onLinkError?(message: string): void;
  /** Tests: lose every n-th first transmission of a sequenced datagram (0: never). */
  dropEvery?: number;
  /**
   * Datagrams to nodes of this process go over memory, not the kernel (in-process-links.ts;
   * scenario key `inProcessLinks: memory`). Default false.
   */
  inProcessLinks?: boolean;
  /**
   * Datagrams to nodes of other processes of this run leave in bundles, one per process and turn
   * (process-bundles.ts; with in-process links only). Default: none.
   */
  bundler?: ProcessBundler | null;
  /** Width of the bins late frames are counted in by the emulated time they were due (default 10 µs). */
  lateBinNs?: number;
  /**
   * Hand every sent Packet back to the packet factory's free list (recyclePacket), which the next
   * decoded frame takes (default false): for a switch, whose firmware lets go of a frame once it
   * is sent (switch/switch.ts txDone), so a forwarded frame costs no new Packet, the largest part
   * of a switch node's young garbage; and for a host whose NIC nothing traces (its port
   * scheduler lets go of a frame once txDone handed it here: nic/port-sched.ts).
   */
  recyclePackets?: boolean;
  /**
   * Hand every received Packet back to the free list once firmware.receive returned (default
   * false): for a host whose NIC nothing traces, which keeps no received frame (virtual time
   * recycles host-bound frames on the same guarantee: VirtualRunInput.recyclePackets). Not for
   * a switch, which queues what it receives. A host's data frames then reuse its ACKs' Packets
   * and the ACKs its data frames', instead of a new Packet each (the largest part of a host
   * node's young garbage).
   */
  recycleReceived?: boolean;
}

/** Sequenced datagrams each output link keeps for a resend (a power of two). */
const RESEND_RING = 8192;
/** Out-of-order datagrams an input link holds while it waits for a resend. */
const MAX_STASHED = 50_000;
/** Real ms between two NACKs of one link. */
const NACK_SPACING_MS = 5;
/**
 * Real ms a sender ignores a repeated NACK of a gap it just resent: a receiver that is behind on
 * its socket keeps asking until the resend reaches it, and answering every ask would multiply
 * the load that made it fall behind (a resend storm).
 */
const RESEND_HOLD_MS = 4 * NACK_SPACING_MS;
/**
 * Wallclock: real ms between acknowledgements of what each input link received (lockstep's acks
 * ride on its promises). Without them a sender keeps its last RESEND_RING datagrams per link, and
 * the old generation that builds up pauses the node for whole garbage collections.
 */
const WALLCLOCK_ACK_MS = 4 * NACK_SPACING_MS;

/** Why a datagram was dropped before firmware saw it. */
export type GarbageReason = 'unknown-peer' | 'bad-overlay' | 'bad-port' | string;

/** Bins of NodeCounters.lateByBin. */
export const LATE_BINS = 100;

/** Largest frame we hold for propagation delay per port before dropping (a stalled socket). */
const MAX_HELD_FRAMES = 1 << 16;

export interface NodeIoCounters {
  txDatagrams: number;
  txBytes: number;
  rxDatagrams: number;
  rxBytes: number;
  /** Datagrams dropped before firmware (garbage), by reason. */
  garbage: Record<string, number>;
  garbageTotal: number;
  /** Frames the wire codec refused to encode (a firmware bug). */
  encodeErrors: number;
  /** Frames sent that kept their received bytes (a switch forwarding in place). */
  inPlaceFrames: number;
  /** Sends on a port that does not exist. */
  badSends: number;
  /** Socket send errors (e.g. the peer's address is gone while it restarts: ECONNREFUSED is silent for UDP). */
  sendErrors: number;
  /** Frames dropped because a port held too many frames for propagation delay. */
  heldDrops: number;
  /** Frames received with an arrival stamp. */
  stampedFrames: number;
  /**
   * Stamped frames firmware saw later than their stamp, because the node had already handled a
   * later event when the datagram came (the sender or this node lagged by more than the link
   * delay): the only way host lag still reaches the emulation. And the largest such lateness, ns.
   */
  lateFrames: number;
  maxLateNs: number;
  /**
   * Late frames by the emulated time they were due, in bins of lateBinNs (the last bin also counts
   * everything after it): whether a run was late at its start only, or throughout.
   */
  lateByBin: number[];
  lateBinNs: number;
  /** Emulated bytes sent per port (for achieved-rate accounting). */
  portTxBytes: number[];
  /** Lockstep: promise (null-message) datagrams sent and received. */
  promisesTx: number;
  promisesRx: number;
  /** Lockstep: data datagrams sent. */
  dataTx: number;
  /** Lockstep: frames not sent because the link's peer was declared down. */
  downDrops: number;
  /** Datagrams with more than one frame, sent and received. */
  trainDatagrams: number;
  /** Datagrams sent in bundles to other processes (process-bundles.ts). */
  bundledTx: number;
  trainsRx: number;
  /** Datagrams lost or reordered by the real network (link sequence gaps). */
  linkSeqErrors: number;
  /**
   * Overlay retransmission: datagrams held after a gap, NACKs sent, datagrams resent, repeated
   * NACKs held (RESEND_HOLD_MS), duplicates dropped.
   */
  outOfOrderDatagrams: number;
  nacksTx: number;
  resentDatagrams: number;
  heldNacks: number;
  duplicateDatagrams: number;
}

export class RealNodeEnv implements FirmwareEnv, LocalReceiver {
  readonly node: TopologyNode;
  readonly links: PortLink[];
  readonly rng: Rng;
  readonly log: Logger;
  readonly counters: NodeIoCounters;
  readonly taps: FrameTap[] = [];
  /** Called for Sync frames (clock sync) instead of firmware. */
  onSync: ((port: number, pkt: Packet, rxTimeNs: number) => void) | null = null;
  private firmware: NodeFirmware | null = null;
  private readonly socket: Socket;
  private readonly timers: EventTimers;
  private readonly lockstep: LockstepScheduler<Packet> | null;
  /** Per output port: the train being built this turn, and the link's next datagram sequence. */
  private readonly writers: TrainWriter[];
  private readonly seqOut: Uint32Array;
  /** Ports whose train holds frames; a flush at the end of the event-loop turn sends them. */
  private readonly dirty: number[] = [];
  private flushQueued = false;
  private readonly trains: boolean;
  /** Per input port: the next datagram sequence expected (−1: none seen yet). */
  private readonly seqIn: Float64Array;
  /** Per output link: the peer acknowledged every sequence before this (docs/realtime.md). */
  private readonly releasedTo: Uint32Array;
  /** Per input link: the last ack sent back to the peer (-1: none yet). */
  private readonly ackSent: Float64Array;
  private readonly reader = new TrainReader();
  /** Per output link: the bytes of its last RESEND_RING sequenced datagrams (resend-ring.ts). */
  private readonly sent: ResendRing[];
  /**
   * Sends handed to the socket, and completed: the ticket of a send is the count issued before
   * it, and it is done once more than that many completed (resend-ring.ts).
   */
  private sendsIssued = 0;
  private sendsDone = 0;
  /** Per input link: datagrams that came after a gap, by sequence, and when we last NACKed. */
  private readonly stash: Map<number, Buffer>[];
  /** The lowest sequence each input link holds (the end of its gap); meaningless when none is held. */
  private readonly stashMinSeq: Float64Array;
  private readonly lastNackMs: Float64Array;
  /** The gap each output link resent last, and when (real ms): repeated NACKs of it are held. */
  private readonly lastResendSeq: Float64Array;
  private readonly lastResendMs: Float64Array;
  private readonly dropEvery: number;
  private dropCount = 0;
  private readonly onLinkError: (message: string) => void;
  /** Lockstep: the promise and end bound last sent on each output port. */
  private readonly promisedNs: Float64Array;
  private readonly boundSentNs: Float64Array;
  /** Lockstep: per port, what the neighbour says it heard from us (−∞: nothing yet). */
  readonly heardByPeerNs: Float64Array;
  /** Lockstep: datagrams from each neighbour since the last liveness check, and its silence so far. */
  private readonly rxSinceCheck: Uint32Array;
  private readonly silentMs: Float64Array;
  /** Lockstep: links whose peer was declared down (frames towards it are dropped and counted). */
  readonly down: boolean[];
  readonly linksDown: { port: number; peer: string; atNs: number }[] = [];
  /** Lockstep: how far ahead of the wall clock a promise may go before we hold the next one. */
  private readonly promiseSlackNs: number;
  private readonly overlay: Overlay;
  private readonly rings: PortRing<Buffer>[];
  private readonly ringFires: (() => void)[];
  /** Receive delay lines: stamped frames per ingress port, each delivered at its stamp. */
  private readonly rxRings: PortRing<Packet>[];
  private readonly rxFires: (() => void)[];
  /** IP, then UDP port, of a neighbour → its candidate links (several when parallel links join two nodes). */
  private readonly ingress = new Map<string, Map<number, PortLink[]>>();
  /** Fallback by IP alone (a peer that sends from another UDP port than it listens on). */
  private readonly ingressByIp = new Map<string, PortLink[]>();
  private readonly decodeOpts: DecapsulateOptions;
  private readonly intMulti: number;
  private readonly intRatesBps: readonly number[] | undefined;
  /** Filled by each Geneve decapsulate: the datagram's arrival stamp, read in the same option walk. */
  private readonly rxMeta: DecapsulatedMeta = createDecapsulatedMeta();
  private packetIds = 0;
  private closed = false;
  /**
   * In-process links: on; each port's address as its peer knows it; the peer that takes our
   * datagrams in memory (null: another process; undefined: not looked up yet); and what undoes
   * our registration.
   */
  private readonly localLinks: boolean;
  private readonly localGroup: number;
  private readonly selfRinfos: { address: string; port: number }[];
  private readonly localPeers: (LocalReceiver | null | undefined)[];
  private readonly unregisterLocal: (() => void)[] = [];
  /**
   * Bundles: the process's bundler (null: off); per port, the outbox of its peer's process (-1:
   * the datagram goes alone) and our and the peer's address keys.
   */
  private readonly bundler: ProcessBundler | null;
  private readonly bundleTo: Int32Array;
  private readonly selfKeys: Float64Array;
  private readonly peerKeys: Float64Array;
  /**
   * Datagrams from nodes of this process, read on our next turn, in the order they were sent: the
   * first `localCount` slots. The arrays keep their length from turn to turn (emptying one with
   * `length = 0` frees its store, and the next turn's pushes grow a new one).
   */
  private readonly localMsgs: (Buffer | null)[] = [];
  private readonly localFrom: ({ address: string; port: number } | null)[] = [];
  private localCount = 0;
  private localScheduled = false;
  readonly preciseNow: () => number;
  private readonly arrivalStamps: boolean;
  /** Frames we send carry arrival stamps (Geneve only), so peers delay them, not us. */
  private readonly stampsOut: boolean;
  /** Per output port: a train is open (begun, maybe empty). */
  private readonly open: boolean[];
  /** Hand sent Packets to the packet factory's free list (opts.recyclePackets). */
  private readonly recyclePackets: boolean;
  /** Hand received Packets to the free list once firmware returned (opts.recycleReceived). */
  private readonly recycleReceived: boolean;
  /** The late frame `deliver` hands to firmware (set just before runAt; no closure per frame). */
  private rxPort = 0;
  private rxPkt: Packet | null = null;

  constructor(opts: NodeEnvOptions) {
    this.node = opts.node;
    this.socket = opts.socket;
    this.timers = opts.timers;
    this.lockstep = opts.lockstep ?? null;
    this.onLinkError = opts.onLinkError ?? ((m) => this.log.error({}, m));
    this.overlay = opts.overlay;
    this.rng = opts.rng;
    this.log = opts.log;
    this.preciseNow = opts.preciseNow;
    this.arrivalStamps = opts.arrivalStamps ?? true;
    this.intMulti = opts.intMulti ?? 1;
    this.intRatesBps = opts.intRatesBps;
    this.decodeOpts = {
      intMulti: this.intMulti,
      intRatesBps: this.intRatesBps,
      payload: 'drop',
      verifyIcrc: opts.verifyIcrc ?? true,
      keepWire: opts.forwardInPlace === true,
    };
    this.links = opts.node.ports.map((p) => ({
      port: p.index,
      peerNode: p.peerNode,
      peerPort: p.peerPort,
      peer: addressOf(opts.addresses, p.peerNode, p.peerPort),
      delayNs: p.delayNs,
      rateBps: p.rateBps,
    }));
    for (const l of this.links) {
      let byPort = this.ingress.get(l.peer.host);
      if (byPort === undefined) this.ingress.set(l.peer.host, (byPort = new Map()));
      const list = byPort.get(l.peer.port);
      if (list === undefined) byPort.set(l.peer.port, [l]);
      else list.push(l);
      const byIp = this.ingressByIp.get(l.peer.host);
      if (byIp === undefined) this.ingressByIp.set(l.peer.host, [l]);
      else byIp.push(l);
    }
    this.localLinks = opts.inProcessLinks === true;
    // Memory links join the nodes of one group (in-process-links.ts): the bundler's process, or
    // group 0 when this process is the run's only one.
    this.localGroup = this.localLinks ? (opts.bundler?.self ?? 0) : 0;
    // Our address per port as each peer knows it (the `from` of what we hand over), only in use
    // with in-process links.
    this.selfRinfos = this.localLinks
      ? this.links.map((l) => {
          const e = addressOf(opts.addresses, opts.node.name, l.port);
          return { address: e.host, port: e.port };
        })
      : [];
    this.localPeers = this.links.map(() => undefined);
    const bundler = this.localLinks ? (opts.bundler ?? null) : null;
    this.bundler = bundler;
    this.bundleTo = Int32Array.from(this.links, (l) =>
      bundler === null ? -1 : bundler.outboxFor(l.peerNode, l.peer),
    );
    this.selfKeys = Float64Array.from(this.selfRinfos, (e) =>
      bundler === null ? 0 : addressKey(e.address, e.port),
    );
    this.peerKeys = Float64Array.from(this.links, (l) =>
      bundler === null ? 0 : addressKey(l.peer.host, l.peer.port),
    );
    // Ports that share an address register it again: the same receiver, undone alike.
    for (let p = 0; p < this.selfRinfos.length; p++) {
      const e = this.selfRinfos[p];
      this.unregisterLocal.push(
        registerLocalReceiver(
          e.address,
          e.port,
          this,
          bundler === null ? undefined : this.selfKeys[p],
          this.localGroup,
        ),
      );
    }
    this.rings = this.links.map(() => new PortRing<Buffer>());
    this.ringFires = this.links.map((_, i) => () => this.fireRing(i));
    this.rxRings = this.links.map(() => new PortRing<Packet>());
    this.rxFires = this.links.map((_, i) => () => this.fireRx(i));
    this.stampsOut = (this.arrivalStamps || this.lockstep !== null) && this.overlay === 'geneve';
    this.trains = this.stampsOut && opts.trains !== false;
    const maxDatagramBytes = opts.maxDatagramBytes ?? 1472;
    this.writers = this.links.map(
      () =>
        new TrainWriter({
          maxDatagramBytes,
          intMulti: this.intMulti,
          intRatesBps: this.intRatesBps,
          reserveEndBound: this.lockstep !== null,
        }),
    );
    this.seqOut = new Uint32Array(this.links.length);
    this.seqIn = new Float64Array(this.links.length).fill(-1);
    this.sent = this.links.map(() => new ResendRing(RESEND_RING));
    this.releasedTo = new Uint32Array(this.links.length);
    this.ackSent = new Float64Array(this.links.length).fill(-1);
    this.stash = this.links.map(() => new Map<number, Buffer>());
    this.stashMinSeq = new Float64Array(this.links.length);
    this.lastNackMs = new Float64Array(this.links.length).fill(Number.NEGATIVE_INFINITY);
    this.lastResendSeq = new Float64Array(this.links.length).fill(-1);
    this.lastResendMs = new Float64Array(this.links.length).fill(Number.NEGATIVE_INFINITY);
    this.dropEvery = opts.dropEvery ?? 0;
    this.recyclePackets = opts.recyclePackets === true;
    this.recycleReceived = opts.recycleReceived === true;
    this.open = this.links.map(() => false);
    this.promisedNs = new Float64Array(this.links.length);
    this.boundSentNs = new Float64Array(this.links.length);
    this.heardByPeerNs = new Float64Array(this.links.length).fill(Number.NEGATIVE_INFINITY);
    this.rxSinceCheck = new Uint32Array(this.links.length);
    this.silentMs = new Float64Array(this.links.length);
    this.down = this.links.map(() => false);
    // Two real milliseconds of emulated time: a held promise is released by a wall timer of
    // about that period, so a quiet link costs a few hundred datagrams per second at most.
    this.promiseSlackNs = opts.lockstep !== undefined ? 2e6 / opts.lockstep.clock.timeScale : 0;
    this.counters = {
      txDatagrams: 0,
      txBytes: 0,
      rxDatagrams: 0,
      rxBytes: 0,
      garbage: {},
      garbageTotal: 0,
      encodeErrors: 0,
      inPlaceFrames: 0,
      badSends: 0,
      sendErrors: 0,
      heldDrops: 0,
      stampedFrames: 0,
      lateFrames: 0,
      maxLateNs: 0,
      lateByBin: new Array<number>(LATE_BINS).fill(0),
      lateBinNs: Math.max(1, Math.round(opts.lateBinNs ?? 10_000)),
      portTxBytes: this.links.map(() => 0),
      promisesTx: 0,
      promisesRx: 0,
      dataTx: 0,
      downDrops: 0,
      trainDatagrams: 0,
      bundledTx: 0,
      trainsRx: 0,
      linkSeqErrors: 0,
      outOfOrderDatagrams: 0,
      nacksTx: 0,
      resentDatagrams: 0,
      heldNacks: 0,
      duplicateDatagrams: 0,
    };
    if (bundler !== null) this.reportsBundler = bundler.attach(this.socket, this.onMessage);
    else this.socket.on('message', this.onMessage);
    if (this.lockstep === null) {
      this.ackTimer = setInterval(this.sendWallclockAcks, WALLCLOCK_ACK_MS);
      this.ackTimer.unref();
    }
  }

  /**
   * Timers of overlay retransmission, armed only while there is work, so an idle or lockstep
   * node does not wake for nothing (every wake costs CPU: docs/realtime.md "Known limits").
   */
  private nackTimer: NodeJS.Timeout | null = null;
  private ackTimer: NodeJS.Timeout | null = null;

  /** Ask again, 2 × NACK_SPACING_MS later, for gaps that nothing new arrives after (the end of a burst). */
  private armNackRetry(): void {
    if (this.nackTimer !== null || this.closed) return;
    this.nackTimer = setTimeout(this.retryNacks, 2 * NACK_SPACING_MS);
    this.nackTimer.unref();
  }

  private readonly retryNacks = (): void => {
    this.nackTimer = null;
    if (this.closed) return;
    let waiting = false;
    for (let p = 0; p < this.links.length; p++) {
      if (this.stash[p].size === 0) continue;
      waiting = true;
      this.sendNack(this.links[p]);
    }
    if (waiting) this.armNackRetry();
  };

  /**
   * The sequence to acknowledge on `port` (the next one its input link expects), marked as sent;
   * undefined when nothing arrived since the last ack.
   */
  private takeAck(port: number): number | undefined {
    const ack = this.seqIn[port];
    if (ack < 0 || ack === this.ackSent[port]) return undefined;
    this.ackSent[port] = ack;
    return ack;
  }

  /** Wallclock: acknowledge each input link's datagrams that arrived since the last ack. */
  private readonly sendWallclockAcks = (): void => {
    if (this.closed) return;
    for (let p = 0; p < this.links.length; p++) {
      const ack = this.takeAck(p);
      if (ack === undefined) continue;
      // Outside the link's sequence, promising nothing, like a NACK.
      this.transmit(
        this.links[p],
        encodeControl({ vni: p, promiseNs: Number.NEGATIVE_INFINITY, ackSeq: ack }),
      );
    }
  };

  attach(fw: NodeFirmware): void {
    this.firmware = fw;
  }

  now(): number {
    return this.lockstep !== null ? this.lockstep.now() : this.timers.now();
  }

  setTimer(atNs: number, fn: () => void): TimerId {
    return this.lockstep !== null ? this.lockstep.setTimer(atNs, fn) : this.timers.setTimer(atNs, fn);
  }

  cancelTimer(id: TimerId): void {
    if (this.lockstep !== null) this.lockstep.cancelTimer(id);
    else this.timers.cancelTimer(id);
  }

  nextPacketId(): number {
    return ++this.packetIds;
  }

  send(port: number, pkt: Packet): void {
    this.sendFrame(port, pkt);
    // Encoded (or dropped): nothing here holds the Packet any more, and the firmware lets go of
    // it; decoding (createPacket) takes it back from the free list.
    if (this.recyclePackets) recyclePacket(pkt);
  }

  private sendFrame(port: number, pkt: Packet): void {
    if (this.closed) return;
    const link = this.links[port];
    if (link === undefined) {
      this.counters.badSends++;
      return;
    }
    const now = this.now();
    for (let i = 0; i < this.taps.length; i++) this.taps[i].onTx?.(port, pkt, now);
    this.counters.portTxBytes[port] += pkt.sizeBytes;
    if (this.lockstep !== null && this.down[port]) {
      this.counters.downDrops++;
      return;
    }
    const stampNs = now + Math.max(0, link.delayNs);
    // Counted in both modes: wallclock's late frames are judged per data frame sent.
    this.counters.dataTx++;
    if (this.lockstep !== null) {
      // The frame is also a promise: nothing later on this link arrives before its stamp.
      if (stampNs > this.promisedNs[port]) this.promisedNs[port] = stampNs;
    }
    if (pkt.wire !== null) this.counters.inPlaceFrames++;
    if (this.trains) {
      this.appendToTrain(port, pkt, stampNs);
      return;
    }
    let buf: Buffer;
    try {
      buf = this.encode(pkt, port, now + Math.max(0, link.delayNs));
    } catch (err) {
      this.counters.encodeErrors++;
      if (this.counters.encodeErrors <= 5)
        this.log.error({ err: (err as Error).message, port, kind: pkt.kind }, 'frame not encodable');
      return;
    }
    if (this.lockstep !== null) {
      this.recordAndTransmit(link, buf, buf.length);
      return;
    }
    // With arrival stamps the receiver holds the frame until its stamp (its delay line), so the
    // datagram leaves now and the whole link delay is slack for host scheduling and loopback.
    if (link.delayNs <= 0 || this.stampsOut) {
      this.recordAndTransmit(link, buf, buf.length);
      return;
    }
    const ring = this.rings[port];
    if (ring.length >= MAX_HELD_FRAMES) {
      this.counters.heldDrops++;
      return;
    }
    ring.push(buf, now + link.delayNs);
    if (ring.length === 1) ring.timer = this.timers.setTimer(now + link.delayNs, this.ringFires[port]);
  }

  /** Send a runtime-level frame (clock sync) on `port` now, always in Geneve. */
  sendControl(port: number, pkt: Packet): void {
    const link = this.links[port];
    if (link === undefined || this.closed) return;
    pkt.sizeBytes = 0;
    let buf: Buffer;
    try {
      buf = encapsulate(pkt, { vni: port });
    } catch (err) {
      this.counters.encodeErrors++;
      this.log.error({ err: (err as Error).message }, 'control frame not encodable');
      return;
    }
    this.transmit(link, buf, true);
  }

  private encode(pkt: Packet, port: number, arrivalNs: number): Buffer {
    if (this.overlay !== 'geneve') return encapsulateVxlan(pkt, { vni: port });
    return encapsulate(
      pkt,
      this.stampsOut
        ? {
            vni: port,
            intMulti: this.intMulti,
            intRatesBps: this.intRatesBps,
            arrivalNs,
            linkSeq: this.nextSeq(port),
          }
        : { vni: port, intMulti: this.intMulti, intRatesBps: this.intRatesBps },
    );
  }

  private nextSeq(port: number): number {
    const s = this.seqOut[port];
    this.seqOut[port] = (s + 1) >>> 0;
    return s;
  }

  /** Add a stamped frame to the port's train; a full train leaves at once, the rest at the turn's end. */
  private appendToTrain(port: number, pkt: Packet, stampNs: number): void {
    const w = this.writers[port];
    try {
      if (!this.open[port]) {
        w.begin(port, this.nextSeq(port));
        this.open[port] = true;
      }
      if (!w.append(pkt, stampNs)) {
        // Full: this train leaves now (as a train of its own), the frame starts the next one.
        this.transmitTrain(port, w.finishInPlace());
        w.begin(port, this.nextSeq(port));
        this.open[port] = true;
        w.append(pkt, stampNs);
      }
    } catch (err) {
      this.counters.encodeErrors++;
      if (this.counters.encodeErrors <= 5)
        this.log.error({ err: (err as Error).message, port, kind: pkt.kind }, 'frame not encodable');
      return;
    }
    if (w.frames === 1) this.dirty.push(port);
    if (!this.flushQueued && this.lockstep === null) {
      this.flushQueued = true;
      setImmediate(this.flushTrains);
    }
  }

  /** The datagram the port's writer just finished in place (its first `bytes` bytes) leaves. */
  private transmitTrain(port: number, bytes: number): void {
    this.open[port] = false;
    const w = this.writers[port];
    if (w.frames > 1) this.counters.trainDatagrams++;
    this.recordAndTransmit(this.links[port], w.datagram, bytes);
  }

  /** Wallclock: at the end of the event-loop turn, every train with frames leaves. */
  private readonly flushTrains = (): void => {
    this.flushQueued = false;
    if (this.closed) return;
    for (const port of this.dirty) {
      const w = this.writers[port];
      if (this.open[port] && w.frames > 0) this.transmitTrain(port, w.finishInPlace());
    }
    this.dirty.length = 0;
  };

  /**
   * Lockstep: send `promiseNs` (with the end bound, and the heard promise on keepalives) on
   * `port`: on the last packet of the train the turn built, else in a control packet. Both carry
   * the link sequence.
   */
  private sendPromiseOn(port: number, promiseNs: number, boundNs: number, heardNs?: number): void {
    const w = this.writers[port];
    const trailer: PromiseTrailer = { endBoundNs: boundNs };
    if (heardNs !== undefined) trailer.heardNs = heardNs;
    // Acknowledge what arrived on the reverse link, so the peer stops keeping it for a resend.
    const ack = this.takeAck(port);
    if (ack !== undefined) trailer.ackSeq = ack;
    try {
      if (this.open[port] && w.frames > 0) {
        if (w.canCarry(PROMISE_OPTION_BYTES + trailerBytes(trailer))) {
          this.transmitTrain(port, w.finishInPlace(promiseNs, trailer));
          return;
        }
        this.transmitTrain(port, w.finishInPlace());
      }
      if (!this.open[port]) w.begin(port, this.nextSeq(port));
      this.open[port] = false;
      this.counters.promisesTx++;
      this.recordAndTransmit(this.links[port], w.datagram, w.finishInPlace(promiseNs, trailer));
    } catch (err) {
      this.open[port] = false;
      this.counters.encodeErrors++;
      this.log.error({ err: (err as Error).message, port }, 'promise not encodable');
    }
  }

  /**
   * Lockstep, after every turn: promise on each output link what our frontier allows (frontier +
   * the link's delay), with the end bound we know, when either grew. A promise already further
   * ahead of the wall clock than the slack is not needed yet: it is held and a wall timer sends it
   * when it may be (nodes never run ahead of the wall clock, so nobody can wait on it before).
   */
  flushPromises(): void {
    const ls = this.lockstep;
    if (ls === null || this.closed) return;
    const frontier = ls.frontierNs();
    const bound = ls.endBoundOut();
    const wall = ls.clock.now();
    let holdUntil = Number.POSITIVE_INFINITY;
    for (let p = 0; p < this.links.length; p++) {
      if (this.down[p]) continue;
      const link = this.links[p];
      const promise = frontier + Math.max(0, link.delayNs);
      const sentP = this.promisedNs[p];
      const sentB = this.boundSentNs[p];
      if (this.open[p] && this.writers[p].frames > 0) {
        // Frames leave now, and the promise rides on their datagram for free.
        this.sendPromise(p, Math.max(promise, sentP), Math.max(bound, sentB));
        continue;
      }
      if (!(promise > sentP) && !(bound > sentB)) continue;
      const ahead = Math.min(sentP, sentB) - this.promiseSlackNs;
      if (ahead > wall) {
        if (ahead < holdUntil) holdUntil = ahead;
        continue;
      }
      this.sendPromise(p, Math.max(promise, sentP), Math.max(bound, sentB));
    }
    if (holdUntil !== Number.POSITIVE_INFINITY) ls.wakeAtWall(holdUntil);
    this.dirty.length = 0;
  }

  /**
   * Lockstep: promise +∞ on every link (this node sends nothing more: it finished at `endNs`).
   * The end bound it passes on is that end, never +∞: a neighbour that has not yet heard the
   * launcher's `finish` (each process hears it at its own moment) must still stop at the end,
   * and a +∞ bound let it run on to its horizon (a spine forwarded a pull after the last flow
   * completed, 1 run in 7 of an RCCC incast in namespaces).
   */
  promiseForever(endNs: number): void {
    if (this.lockstep === null || this.closed) return;
    for (let p = 0; p < this.links.length; p++)
      if (!this.down[p]) this.sendPromise(p, Number.POSITIVE_INFINITY, endNs);
  }

  /**
   * Lockstep, about once a real second: repeat the current promise on every link. It tells a
   * neighbour we are alive, and tells a restarted neighbour what we heard from it.
   */
  keepalive(): void {
    const ls = this.lockstep;
    if (ls === null || this.closed) return;
    for (let p = 0; p < this.links.length; p++)
      if (!this.down[p]) this.sendPromise(p, this.promisedNs[p], this.boundSentNs[p], true);
  }

  /**
   * Lockstep liveness, every `periodMs`: a neighbour silent for `timeoutMs` (no data, no promise,
   * no keepalive) is declared down: its link promises +∞ so the run goes on without it, frames
   * towards it are dropped and counted, and the report says when (emulated) it went down. A
   * neighbour that promised +∞ has finished and is never declared down.
   */
  checkPeers(periodMs: number, timeoutMs: number): { port: number; peer: string; atNs: number }[] {
    const ls = this.lockstep;
    const fresh: { port: number; peer: string; atNs: number }[] = [];
    if (ls === null || this.closed) return fresh;
    for (let p = 0; p < this.links.length; p++) {
      if (this.down[p] || ls.channelNs[p] === Number.POSITIVE_INFINITY) continue;
      if (this.rxSinceCheck[p] > 0) this.silentMs[p] = 0;
      else this.silentMs[p] += periodMs;
      this.rxSinceCheck[p] = 0;
      if (this.silentMs[p] < timeoutMs) continue;
      this.down[p] = true;
      const ev = { port: p, peer: this.links[p].peerNode, atNs: Math.max(0, ls.lastEventNs) };
      this.linksDown.push(ev);
      fresh.push(ev);
      ls.linkDown(p);
    }
    return fresh;
  }

  private sendPromise(port: number, promiseNs: number, boundNs: number, withHeard = false): void {
    this.promisedNs[port] = promiseNs;
    this.boundSentNs[port] = boundNs;
    const heard = withHeard ? (this.lockstep?.channelNs[port] ?? Number.NEGATIVE_INFINITY) : undefined;
    this.sendPromiseOn(port, promiseNs, boundNs, heard);
  }

  private fireRing(port: number): void {
    const ring = this.rings[port];
    ring.timer = null;
    const link = this.links[port];
    const now = this.timers.now();
    while (ring.length > 0 && ring.peekKey() <= now) this.transmit(link, ring.shift()!);
    if (ring.length > 0) ring.timer = this.timers.setTimer(ring.peekKey(), this.ringFires[port]);
  }

  /**
   * Send the datagram in the first `bytes` bytes of `src` (a writer's, reused at once): a
   * sequenced one is copied into the link's resend ring, kept for a resend the peer may ask for
   * (resendFrom), and sent from there.
   */
  private recordAndTransmit(link: PortLink, src: Buffer, bytes: number): void {
    const seq = readLinkSeq(src);
    if (seq === null) {
      // Unsequenced (VXLAN, or no stamps): a fresh encoding, never a writer's (trains are sequenced).
      this.transmit(link, bytes === src.length ? src : Buffer.from(src.subarray(0, bytes)));
      return;
    }
    const ring = this.sent[link.port];
    ring.record(seq, src, bytes, this.sendsDone);
    // Fault injection (tests): lose every n-th first transmission; resends always go out.
    if (this.dropEvery > 0 && ++this.dropCount % this.dropEvery === 0) {
      this.counters.txDatagrams++;
      return;
    }
    ring.sent(seq, this.sendsIssued);
    this.transmit(link, ring.view(seq)!);
  }

  /** `alone`: never in a bundle (clock sync, whose receive time is what it measures). */
  private transmit(link: PortLink, buf: Buffer, alone = false): void {
    // After close the socket may be gone (a node stopped while a train's flush or a delayed
    // frame was still queued): what was not sent by then is not sent.
    if (this.closed) return;
    this.counters.txDatagrams++;
    this.counters.txBytes += buf.length;
    if (this.localLinks) {
      let peer = this.localPeers[link.port];
      if (peer === undefined)
        peer = this.localPeers[link.port] =
          localReceiver(link.peer.host, link.peer.port, this.localGroup) ?? null;
      if (peer !== null) {
        // A copy, so the send is complete at once (the resend ring may reuse its bytes).
        this.sendsIssued++;
        this.sendsDone++;
        peer.receiveLocal(copyToSlab(buf), this.selfRinfos[link.port]);
        return;
      }
    }
    const outbox = this.bundleTo[link.port];
    if (
      outbox >= 0 &&
      !alone &&
      this.bundler!.append(outbox, this.selfKeys[link.port], this.peerKeys[link.port], buf, buf.length)
    ) {
      // Copied into the bundle: complete at once, like a send in memory.
      this.sendsIssued++;
      this.sendsDone++;
      this.counters.bundledTx++;
      return;
    }
    this.sending.started();
    this.sendsIssued++;
    this.socket.send(buf, link.peer.port, link.peer.host, this.onSent);
  }

  /** A datagram another socket of this process read for us (a bundle's, process-bundles.ts). */
  receiveDatagram(msg: Buffer, from: { address: string; port: number }): void {
    this.onMessage(msg, from);
  }

  /** A datagram from a node of this process (in-process-links.ts): read on our next turn, as the socket's would be. */
  receiveLocal(msg: Buffer, from: { address: string; port: number }): void {
    const i = this.localCount++;
    this.localMsgs[i] = msg;
    this.localFrom[i] = from;
    if (!this.localScheduled) {
      this.localScheduled = true;
      setImmediate(this.readLocal);
    }
  }

  private readonly readLocal = (): void => {
    this.localScheduled = false;
    const msgs = this.localMsgs;
    const from = this.localFrom;
    // localCount is read each time round: what arrives meanwhile is read in this turn too.
    for (let i = 0; i < this.localCount; i++) {
      const msg = msgs[i]!;
      const rinfo = from[i]!;
      // Let go of the datagram (its slab) once read.
      msgs[i] = null;
      from[i] = null;
      this.onMessage(msg, rinfo);
    }
    this.localCount = 0;
  };

  /** Datagrams handed to the socket whose send has not completed yet. */
  private readonly sending = new SendsInFlight();

  /**
   * Resolves once every datagram handed to the socket has left it (or after `maxMs`): closing
   * the socket earlier would drop them, and a lockstep node's last promises must arrive.
   */
  drain(maxMs = 1000): Promise<void> {
    if (this.bundler === null) return this.sending.drained(maxMs);
    return Promise.all([this.bundler.drain(maxMs), this.sending.drained(maxMs)]).then(() => undefined);
  }

  private readonly onSent = (err: Error | null): void => {
    this.sendsDone++;
    this.sending.done();
    if (err !== null) this.counters.sendErrors++;
  };

  private garbage(reason: GarbageReason): void {
    this.counters.garbageTotal++;
    this.counters.garbage[reason] = (this.counters.garbage[reason] ?? 0) + 1;
  }

  private readonly onMessage = (msg: Buffer, rinfo: { address: string; port: number }): void => {
    if (this.closed) return;
    // Clock-sync receive timestamp: before any other work, so it is as close to arrival as we get.
    const rxPreciseNs = this.preciseNow();
    this.counters.rxDatagrams++;
    this.counters.rxBytes += msg.length;
    // By IP, then port: an "ip:port" key would be a string built per datagram.
    let cands = this.ingress.get(rinfo.address)?.get(rinfo.port);
    if (cands === undefined) cands = this.ingressByIp.get(rinfo.address);
    if (cands === undefined) {
      this.garbage('unknown-peer');
      return;
    }
    const kind = overlayKindOf(msg);
    if (kind === null) {
      this.garbage('bad-overlay');
      return;
    }
    let link = cands[0];
    // The VNI is the sender's egress port: it picks the link among parallel ones.
    const vni = (msg[4] << 16) | (msg[5] << 8) | msg[6];
    if (cands.length > 1 || link.peerPort !== vni) {
      let found: PortLink | undefined;
      for (const c of cands) if (c.peerPort === vni) found = c;
      if (found === undefined) {
        this.garbage('bad-port');
        return;
      }
      link = found;
    }
    const ls = this.lockstep;
    if (ls !== null) {
      if (this.down[link.port]) {
        this.garbage('link-down');
        return;
      }
      this.rxSinceCheck[link.port]++;
    }
    if (kind === 'vxlan') {
      const pkt = decapsulateVxlan(msg, this.decodeOpts);
      if ('code' in pkt) this.garbage(pkt.code);
      else this.receiveFrame(link, pkt, rxPreciseNs, null);
      return;
    }
    const r = this.reader;
    const err = r.reset(msg);
    if (err !== null) {
      this.garbage(err.code);
      return;
    }
    // A NACK is handled at once, whatever its place in its own link's order: two links that
    // both lost a datagram must not wait on each other's resend.
    if (r.nackSeq !== null) this.resendFrom(link, r.nackSeq, r.nackCount);
    if (r.ackSeq !== null) this.release(link.port, r.ackSeq);
    const port = link.port;
    if (r.linkSeq !== null) {
      const want = this.seqIn[port];
      if (want >= 0 && r.linkSeq !== 0) {
        const d = linkSeqDiff(r.linkSeq, want);
        if (d < 0) {
          this.counters.duplicateDatagrams++;
          return;
        }
        if (d > 0) {
          this.holdOutOfOrder(link, r.linkSeq, msg, want);
          return;
        }
      } else if (r.linkSeq === 0 && want > 0) {
        // A restarted peer starts its sequence again.
        this.stash[port].clear();
      }
      this.seqIn[port] = (r.linkSeq + 1) >>> 0;
    }
    this.processDatagram(link, rxPreciseNs);
    const stash = this.stash[port];
    let drained = false;
    while (stash.size > 0) {
      const next = stash.get(this.seqIn[port]);
      if (next === undefined) break;
      stash.delete(this.seqIn[port]);
      drained = true;
      this.seqIn[port] = (this.seqIn[port] + 1) >>> 0;
      if (this.reader.reset(next) === null) this.processDatagram(link, rxPreciseNs);
    }
    if (drained && stash.size > 0) {
      // A gap filled and another remains: find where the next one ends.
      let min = -1;
      for (const s of stash.keys()) if (min < 0 || linkSeqDiff(s, min) < 0) min = s;
      this.stashMinSeq[port] = min;
    }
  };

  /** The frames and promise of the datagram in `this.reader`, in link order. */
  private processDatagram(link: PortLink, rxPreciseNs: number): void {
    const r = this.reader;
    const ls = this.lockstep;
    if (r.count > 1) this.counters.trainsRx++;
    const opts = this.decodeOpts;
    // The datagram's late or unstamped frames share one read of the clock (EventTimers.holdHorizon).
    this.timers.holdHorizon();
    try {
      for (let i = 0; !r.control && i < r.count; i++) {
        const at = r.offset(i);
        const pkt = decapsulateAt(r.datagram, at, at + r.length(i), opts, this.rxMeta);
        if ('code' in pkt) {
          this.garbage(pkt.code);
          continue;
        }
        this.receiveFrame(link, pkt, rxPreciseNs, this.rxMeta.arrivalNs);
      }
    } finally {
      this.timers.releaseHorizon();
    }
    if (ls !== null && r.promiseNs !== null) {
      if (r.control) this.counters.promisesRx++;
      if (r.heardNs !== null && r.heardNs > this.heardByPeerNs[link.port])
        this.heardByPeerNs[link.port] = r.heardNs;
      ls.promise(link.port, r.promiseNs, r.endBoundNs ?? Number.NEGATIVE_INFINITY);
    }
  }

  /**
   * A datagram after a gap in its link's sequence: the real network (a full socket buffer, a tc
   * queue, a CNI) lost or reordered the ones before it. Losing them would pass for an emulated
   * loss, so it waits here, in order, while a NACK asks the peer to resend from the gap (overlay
   * retransmission, docs/realtime.md). A NACK goes out at most every 5 ms real per link.
   */
  private holdOutOfOrder(link: PortLink, seq: number, msg: Buffer, want: number): void {
    const stash = this.stash[link.port];
    if (stash.size === 0 || linkSeqDiff(seq, this.stashMinSeq[link.port]) < 0)
      this.stashMinSeq[link.port] = seq;
    if (!stash.has(seq)) stash.set(seq, msg);
    this.counters.outOfOrderDatagrams++;
    if (stash.size > MAX_STASHED) {
      this.onLinkError(
        `${stash.size} datagrams from ${link.peerNode} wait for a resend of sequence ${want} that does not come (port ${link.port})`,
      );
      return;
    }
    this.sendNack(link);
    this.armNackRetry();
  }

  /** Ask the peer for the gap before the first datagram this link holds (at most every NACK_SPACING_MS). */
  private sendNack(link: PortLink): void {
    const now = performance.now();
    if (now - this.lastNackMs[link.port] < NACK_SPACING_MS) return;
    this.lastNackMs[link.port] = now;
    const want = this.seqIn[link.port];
    const stash = this.stash[link.port];
    this.counters.nacksTx++;
    // Only the gap: what follows it is held here, and asking for it again would double the load.
    const missing = linkSeqDiff(this.stashMinSeq[link.port], want);
    this.log.debug(
      { port: link.port, peer: link.peerNode, want, missing, held: stash.size },
      'overlay: nack',
    );
    try {
      // Outside the link's sequence (never resent, so a resend cannot echo it) and promising
      // nothing (−∞): it must not overtake what it asks for.
      this.transmit(
        link,
        encodeControl({
          vni: link.port,
          promiseNs: Number.NEGATIVE_INFINITY,
          nackSeq: want,
          nackCount: Math.max(1, missing),
        }),
      );
    } catch (err) {
      this.log.error({ err: (err as Error).message }, 'nack not encodable');
    }
  }

  /**
   * The peer has every datagram of this link before `ackSeq`: they need not be kept for a resend
   * any more. Without this a link keeps its last RESEND_RING datagrams, hundreds of MB on a busy
   * switch over a long run.
   */
  private release(port: number, ackSeq: number): void {
    // Only forward, and never past what was sent (a stale ack, or one for an earlier incarnation).
    if (linkSeqDiff(ackSeq, this.seqOut[port]) > 0) return;
    if (linkSeqDiff(ackSeq, this.releasedTo[port]) <= 0) return;
    this.sent[port].releaseBefore(ackSeq, this.sendsDone);
    this.releasedTo[port] = ackSeq;
  }

  /**
   * The peer misses `count` of our datagrams on this link from `seq` on (+∞: all from `seq` on):
   * send them again, in order.
   */
  private resendFrom(link: PortLink, seq: number, count: number): void {
    const port = link.port;
    const nowMs = performance.now();
    if (this.lastResendSeq[port] === seq && nowMs - this.lastResendMs[port] < RESEND_HOLD_MS) {
      this.counters.heldNacks++;
      return;
    }
    this.lastResendSeq[port] = seq;
    this.lastResendMs[port] = nowMs;
    this.log.debug(
      { port, peer: link.peerNode, from: seq, count, next: this.seqOut[port] },
      'overlay: resend',
    );
    const ring = this.sent[port];
    // A train still being built holds the newest sequence number: it leaves at the turn's end.
    let end = this.open[port] ? (this.seqOut[port] - 1) >>> 0 : this.seqOut[port];
    if (count < linkSeqDiff(end, seq)) end = (seq + count) >>> 0;
    for (let s = seq; s !== end; s = (s + 1) >>> 0) {
      const buf = ring.view(s);
      if (buf === null) {
        this.onLinkError(
          `${link.peerNode} misses datagram ${s} of the link from ${this.node.name} port ${port}, which is no longer kept (the last ${RESEND_RING} are)`,
        );
        return;
      }
      this.counters.resentDatagrams++;
      ring.sent(s, this.sendsIssued);
      this.transmit(link, buf);
    }
  }

  /** One received frame (of a train or alone): clock sync, lockstep queue, or the wallclock path. */
  private receiveFrame(link: PortLink, pkt: Packet, rxPreciseNs: number, stampNs: number | null): void {
    const ls = this.lockstep;
    if (pkt.kind === FrameKind.Sync) {
      // Everything due before this datagram arrived happens first, so time stays monotonic.
      if (ls === null) this.timers.runDue();
      this.onSync?.(link.port, pkt, rxPreciseNs);
      return;
    }
    if (this.firmware === null) return;
    if (ls !== null) {
      if (stampNs === null) {
        this.garbage('unstamped');
        return;
      }
      this.counters.stampedFrames++;
      ls.frame(link.port, stampNs, pkt);
      return;
    }
    // A stamp is honoured whatever our own setting: the sender did not hold the frame.
    const stamp = stampNs;
    if (stamp !== null) this.counters.stampedFrames++;
    const ring = this.rxRings[link.port];
    if (stamp !== null && (ring.length > 0 || stamp > this.holdAfterNs())) {
      // Early (the usual case: the sender did not hold it for the link delay): into this port's
      // delay line, delivered by a timer at its stamp, in order with every other event.
      if (ring.length >= MAX_HELD_FRAMES) {
        this.counters.heldDrops++;
        return;
      }
      ring.push(pkt, stamp);
      if (ring.length === 1) ring.timer = this.timers.setTimer(stamp, this.rxFires[link.port]);
      return;
    }
    // Late or unstamped: now, or at the stamp if that is still after the last event.
    if (stamp !== null) this.countLate(stamp, this.timers.lastEventNs - stamp);
    this.rxPort = link.port;
    this.rxPkt = pkt;
    this.timers.runAt(stamp ?? Number.POSITIVE_INFINITY, this.deliver);
  }

  /**
   * A frame stamped after this waits in its port's delay line: after the clock, or in time windows
   * after the last event run (the next batch runs it, even when the clock has passed its stamp).
   */
  private holdAfterNs(): number {
    return this.timers.windowNs > 0 ? this.timers.lastEventNs : this.timers.clock.now();
  }

  /** One frame of port's delay line is due: deliver it, then wait for the next one's stamp. */
  private fireRx(port: number): void {
    const ring = this.rxRings[port];
    ring.timer = null;
    if (ring.length === 0) return;
    // Due at its stamp rounded up to whole ns: later than that, an event of a late frame came first.
    this.countLate(ring.peekKey(), this.timers.now() - ring.peekKey() - 1);
    this.deliverTo(port, ring.shift()!);
    if (ring.length > 0) ring.timer = this.timers.setTimer(ring.peekKey(), this.rxFires[port]);
  }

  /** A frame due at `dueNs` came `lateNs` after an event later than that had run (if > 0). */
  private countLate(dueNs: number, lateNs: number): void {
    if (!(lateNs > 0)) return;
    const c = this.counters;
    c.lateByBin[Math.min(LATE_BINS - 1, Math.max(0, Math.floor(dueNs / c.lateBinNs)))]++;
    c.lateFrames++;
    if (lateNs > c.maxLateNs) c.maxLateNs = lateNs;
  }

  /** runAt's callback for the frame in rxPort/rxPkt (fireRx, which runAt may run first, does not touch them). */
  private readonly deliver = (): void => {
    const pkt = this.rxPkt;
    this.rxPkt = null;
    if (pkt !== null) this.deliverTo(this.rxPort, pkt);
  };

  private deliverTo(port: number, pkt: Packet): void {
    const fw = this.firmware;
    if (fw === null) return;
    const now = this.now();
    for (let i = 0; i < this.taps.length; i++) this.taps[i].onRx?.(port, pkt, now);
    fw.receive(port, pkt);
    if (this.recycleReceived) recyclePacket(pkt);
  }

  /** Lockstep: hand a due frame to firmware (the scheduler's `deliver`). */
  readonly deliverLockstep = (port: number, pkt: Packet): void => {
    this.deliverTo(port, pkt);
  };

  /** Frames still held for propagation delay. */
  get heldFrames(): number {
    let n = 0;
    for (const r of this.rings) n += r.length;
    for (const r of this.rxRings) n += r.length;
    return n;
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    for (const undo of this.unregisterLocal) undo();
    if (this.nackTimer !== null) clearTimeout(this.nackTimer);
    if (this.ackTimer !== null) clearInterval(this.ackTimer);
    if (this.bundler !== null) this.bundler.detach(this.socket);
    else this.socket.off('message', this.onMessage);
  }

  /** This node's report carries the process's bundle counters (it attached first). */
  readonly reportsBundler: boolean = false;

  /** Bundles: the process's bundler this node's socket is attached to (it closes the socket). */
  get bundledBy(): ProcessBundler | null {
    return this.bundler;
  }
}
