/**
 * The wires of the virtual runtime: one FirmwareEnv per node and one Link per directed link.
 *
 * A link has a constant propagation delay, so frames leave it in the order they entered. A link
 * hands each frame with its due time to the ring of its delay class (engine-scheduler.ts), which
 * delivers it back to the link in order; in windowed mode it keeps them in a ring of its own,
 * which the receiving node reads in its window. Either way sending a frame allocates nothing and
 * never touches the timer heap.
 */
import type { FirmwareEnv, Logger, NodeFirmware } from '../../env/env.js';
import { nullLogger } from '../../env/env.js';
import type { Rng } from '../../env/rng.js';
import { SMALL_ID_SLOT_LIMIT, timerFireNs } from '../../time/timer-queue.js';
import type { Topology, TopologyNode } from '../../topology/model.js';
import type { FrameKind, Packet } from '../../wire/packet.js';
import { recyclePacket } from '../../wire/packet-factory.js';
import {
  type ArrivalSink,
  type DelayClass,
  type EngineScheduler,
  NodeEvents,
  type WindowLink,
} from './engine-scheduler.js';

/** Observes frames on links (pcap, delivery accounting). Only installed when needed. */
export interface LinkTap {
  /** A frame was put on the wire of (node, port) at `timeNs`. */
  onTx?(node: TopologyNode, port: number, pkt: Packet, timeNs: number): void;
  /** A frame arrives at (node, port) at `timeNs`, just before `receive`. */
  onRx?(node: TopologyNode, port: number, pkt: Packet, timeNs: number): void;
}

/** Decides whether a frame put on (node, port) is lost on the wire (tests, loss experiments). */
export type DropFilter = (node: TopologyNode, port: number, pkt: Packet) => boolean;

export interface LinkLoss {
  /** Per-frame loss probability on every link where `match` holds (default: all links). */
  rate: number;
  match?: (node: TopologyNode, port: number) => boolean;
  /** Frame kinds subject to loss (default: every kind). */
  kinds?: readonly FrameKind[];
}

export class Link implements ArrivalSink, WindowLink {
  // Field order is memory order: what an arrival reads first, then what a send reads, so a link
  // that is cold by the time its frame arrives (a large network) costs one or two cache lines.
  /** Frames on the wire; they wait in the delay class's ring (engine-scheduler.ts). */
  private count = 0;
  peer: NodeFirmware | null = null;
  /** Windowed mode: frames on the wire, in the order sent (engine-scheduler.ts runWindowed). */
  ringCount = 0;
  private ringHead = 0;
  private ringTimes = new Float64Array(8);
  private ringPkts: (Packet | null)[] = new Array(8).fill(null);
  readonly peerPort: number;
  rxTap: NonNullable<LinkTap['onRx']> | null = null;
  readonly cls: DelayClass;
  readonly delayNs: number;
  /** Order of this link's arrivals among others due at the same instant (equalTimeKey). */
  private readonly orderKey: number;
  /** Equal-time order as one number: delay class first, then orderKey (< 2^31). */
  readonly rank: number;
  private readonly sched: EngineScheduler;
  txFrames = 0;
  txBytes = 0;
  txTap: NonNullable<LinkTap['onTx']> | null = null;
  lossRng: Rng | null = null;
  drop: DropFilter | null = null;
  lossRate = 0;
  /** Bit k set: frames of FrameKind k may be lost. */
  lossKindMask = 0xff;
  /** Frames lost on this link (loss model or drop filter). */
  lost = 0;
  /**
   * Hand each frame back to the packet factory once the receiving node returned (host-facing
   * links of a run where nothing else can hold on to a frame: VirtualRunInput.recyclePackets).
   */
  recycle = false;
  readonly from: TopologyNode;
  readonly port: number;
  readonly to: TopologyNode;

  constructor(
    sched: EngineScheduler,
    from: TopologyNode,
    port: number,
    to: TopologyNode,
    peerPort: number,
    delayNs: number,
    orderKey = 0,
  ) {
    this.peerPort = peerPort;
    this.cls = sched.delayClass(delayNs);
    this.delayNs = delayNs;
    this.orderKey = orderKey;
    this.rank = this.cls.index * 2 ** 31 + orderKey;
    this.sched = sched;
    this.from = from;
    this.port = port;
    this.to = to;
  }

  /** Called by the delay class when this link's oldest frame is due. */
  arrive(pkt: Packet | null): void {
    this.count--;
    if (this.rxTap !== null) this.rxTap(this.to, this.peerPort, pkt!, this.sched.now());
    this.peer!.receive(this.peerPort, pkt!);
    if (this.recycle) recyclePacket(pkt!);
  }

  send(pkt: Packet): void {
    const now = this.sched.now();
    this.txFrames++;
    this.txBytes += pkt.sizeBytes;
    if (this.txTap !== null) this.txTap(this.from, this.port, pkt, now);
    if (
      this.lossRng !== null &&
      (this.lossKindMask & (1 << pkt.kind)) !== 0 &&
      this.lossRng.next() < this.lossRate
    ) {
      this.lost++;
      return;
    }
    if (this.drop?.(this.from, this.port, pkt)) {
      this.lost++;
      return;
    }
    this.count++;
    if (this.sched.windowed) this.ringPush(now + this.delayNs, pkt);
    else this.cls.push(this, now + this.delayNs, pkt, this.orderKey);
  }

  get ringHeadNs(): number {
    return this.ringTimes[this.ringHead];
  }

  arriveFromRing(): void {
    this.arrive(this.ringShift());
  }

  touchFrames(lastNs: number): number {
    let sum = 0;
    const mask = this.ringPkts.length - 1;
    for (let k = 0; k < this.ringCount; k++) {
      const i = (this.ringHead + k) & mask;
      if (this.ringTimes[i] > lastNs) break;
      const p = this.ringPkts[i];
      // Integer sums: a double returned from a call is a heap number each time.
      if (p !== null) sum = (sum + p.sizeBytes + p.srcPort + (p.dstIp | 0)) | 0;
    }
    return sum;
  }

  private ringShift(): Packet | null {
    const i = this.ringHead;
    const pkt = this.ringPkts[i];
    this.ringPkts[i] = null;
    this.ringHead = (i + 1) & (this.ringPkts.length - 1);
    this.ringCount--;
    return pkt;
  }

  private ringPush(atNs: number, pkt: Packet): void {
    if (this.ringCount === this.ringPkts.length) this.ringGrow();
    const i = (this.ringHead + this.ringCount) & (this.ringPkts.length - 1);
    this.ringTimes[i] = atNs;
    this.ringPkts[i] = pkt;
    this.ringCount++;
  }

  private ringGrow(): void {
    const n = this.ringPkts.length;
    const times = new Float64Array(n * 2);
    const pkts: (Packet | null)[] = new Array(n * 2).fill(null);
    for (let k = 0; k < this.ringCount; k++) {
      const j = (this.ringHead + k) & (n - 1);
      times[k] = this.ringTimes[j];
      pkts[k] = this.ringPkts[j];
    }
    this.ringTimes = times;
    this.ringPkts = pkts;
    this.ringHead = 0;
  }

  /** Frames still on the wire. */
  get inFlight(): number {
    return this.count;
  }
}

export interface Fabric {
  /** links.get(node)[port]: the directed link leaving that port. */
  links: Map<string, Link[]>;
  envs: Map<string, FirmwareEnv>;
  /** Attach each node's firmware (after creating it with its env). */
  attach(name: string, fw: NodeFirmware): void;
  /** Sends on a port that does not exist (firmware bugs), counted instead of crashing the run. */
  badSends: number;
}

export interface FabricOptions {
  rng: Rng;
  loss?: LinkLoss;
  drop?: DropFilter;
  tap?: LinkTap;
  log?: Logger;
}

export function createFabric(sched: EngineScheduler, topo: Topology, opts: FabricOptions): Fabric {
  const links = new Map<string, Link[]>();
  const envs = new Map<string, FirmwareEnv>();
  const firmware = new Map<string, NodeFirmware>();
  const fabric: Fabric = {
    links,
    envs,
    badSends: 0,
    attach(name, fw) {
      firmware.set(name, fw);
      for (const node of topo.nodes) {
        for (const l of links.get(node.name)!) if (l.to.name === name) l.peer = fw;
      }
    },
  };
  // Windowed mode: each node's own timers and in-links (runWindowed).
  const nodeEvents = new Map<string, NodeEvents>();
  if (sched.windowed) {
    // The nodes' queues share one and a half queues' allowance of small-id slots (TimerQueue):
    // what the hosts' shared queue and the switches' queues had when hosts ran in time order.
    const smallIdSlots = Math.max(
      256,
      Math.floor((1.5 * SMALL_ID_SLOT_LIMIT) / Math.max(1, topo.nodes.length)),
    );
    for (const node of topo.nodes) {
      const ev = new NodeEvents(smallIdSlots);
      nodeEvents.set(node.name, ev);
      (node.kind === 'switch' ? sched.switches : sched.hosts).push(ev);
    }
  }
  topo.nodes.forEach((node, ordinal) => {
    const nodeLinks = node.ports.map((p) => {
      const to = topo.byName.get(p.peerNode)!;
      const link = new Link(sched, node, p.index, to, p.peerPort, p.delayNs, equalTimeKey(ordinal, p.index));
      // The topology's per-link loss, unless the run's loss model covers this link.
      let rate = p.lossRate ?? 0;
      if (opts.loss !== undefined && opts.loss.rate > 0 && (opts.loss.match?.(node, p.index) ?? true)) {
        rate = opts.loss.rate;
        if (opts.loss.kinds !== undefined)
          link.lossKindMask = opts.loss.kinds.reduce<number>((m, k) => m | (1 << k), 0);
      }
      if (rate > 0) {
        link.lossRate = rate;
        link.lossRng = opts.rng.fork(`loss:${node.name}:${p.index}`);
      }
      if (opts.drop !== undefined) link.drop = opts.drop;
      if (opts.tap?.onTx !== undefined) link.txTap = opts.tap.onTx;
      if (opts.tap?.onRx !== undefined) link.rxTap = opts.tap.onRx;
      if (sched.windowed) {
        nodeEvents.get(to.name)!.inLinks.push(link);
        if (p.delayNs < sched.lookaheadNs) sched.lookaheadNs = p.delayNs;
      }
      return link;
    });
    links.set(node.name, nodeLinks);
    let nextId = 0;
    const rng = opts.rng.fork(node.name);
    const own = nodeEvents.get(node.name);
    const env: FirmwareEnv = {
      now: () => sched.now(),
      ...timerService(sched, own),
      send(port, pkt) {
        const l = nodeLinks[port];
        if (l === undefined) {
          fabric.badSends++;
          return;
        }
        l.send(pkt);
      },
      rng,
      log: opts.log ?? nullLogger,
      nextPacketId: () => ++nextId,
    };
    envs.set(node.name, env);
  });
  return fabric;
}

/** A node's timers: its own queue in windowed mode, else the scheduler's. */
function timerService(
  sched: EngineScheduler,
  own: NodeEvents | undefined,
): Pick<FirmwareEnv, 'setTimer' | 'cancelTimer'> {
  if (own !== undefined) {
    const timers = own.timers;
    return {
      setTimer: (atNs, fn) => timers.push(timerFireNs(atNs, sched.now()), fn),
      cancelTimer: (id) => {
        timers.cancel(id);
      },
    };
  }
  return { setTimer: (atNs, fn) => sched.setTimer(atNs, fn), cancelTimer: (id) => sched.cancelTimer(id) };
}

/**
 * The order of a sending port's frames among frames due at one receiver at the same instant
 * (engine-scheduler.ts "Equal-time order"): by the sender's place in `topo.nodes`, then its port.
 */
export function equalTimeKey(nodeOrdinal: number, port: number): number {
  return nodeOrdinal * 65_536 + port;
}
