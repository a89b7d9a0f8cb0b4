/**
 * An egress port of the switch: its transmitter (TxPort), eight priority queues and the header
 * queue of trimmed frames, PFC state, RED thresholds per queue and counters. Plain typed fields
 * and arrays, so the hot path reads numbers, not objects (docs/switch.md "Performance").
 */
import type { FirmwareEnv } from '../src/env/env.js';
import { PfcOutbox, PfcPause } from '../src/port/pfc.js';
import { TxPort } from '../src/port/tx-port.js';
import { PFC_PRIORITIES } from '../src/wire/pfc.js';
import type { EcnConfig, TrimConfig } from './api.js';
import type { ActiveFlowCounter } from './flow-counter.js';
import { FrameQueue } from './frame-queue.js';

const PRIOS = PFC_PRIORITIES;
/** Index of the header queue among a port's queues, after the eight priorities. */
export const HEADER_QUEUE = PRIOS;
/** Its bit in `nonEmptyMask`; outside every priority mask (PFC, data, control). */
export const HEADER_QUEUE_BIT = 1 << HEADER_QUEUE;

export class Port extends TxPort {
  /**
   * Queue q (0..7: priorities, 8: headers): frames, each with its ingress port beside it (-1 for
   * CP frames and headers, which the MMU does not charge to an ingress) for the MMU release.
   */
  readonly queues: FrameQueue[] = [];
  readonly queueBytesOf = new Float64Array(PRIOS + 1);
  /** Bytes in every queue of the port, headers included. */
  queueBytes = 0;
  /** Bit q set when queue q holds a frame (bit 8: the header queue). */
  nonEmptyMask = 0;

  /** Our XOFF/XON decisions for the peer on this port; they go out ahead of every queue. */
  readonly pfcOut = new PfcOutbox();
  /** Priorities paused by PFC frames received on this port (the control class never is). */
  readonly pause: PfcPause;

  drrQueue = 0;
  readonly deficitBytes = new Float64Array(PRIOS + 1);

  readonly ecnOn: boolean;
  /** RED thresholds of queue q: the port's (or the switch's), the trim ones on trimming queues. */
  readonly kminOf = new Float64Array(PRIOS);
  readonly kmaxOf = new Float64Array(PRIOS);
  readonly pmaxOf = new Float64Array(PRIOS);

  /** Bit q set: data queue q trims instead of dropping (a lossy priority with trimming on). */
  readonly trimMask: number;
  /** Cap of a trimming data queue, and of the header queue, bytes (a link event may change them). */
  trimQueueBytes: number;
  headerQueueCapBytes: number;

  txBytes = 0;
  txPackets = 0;
  maxQueueBytes = 0;
  queueByteNs = 0;
  queueSinceNs = 0;
  ecnMarked = 0;
  drops = 0;
  ingressDrops = 0;
  cnmTx = 0;
  rxPackets = 0;
  rxBytes = 0;
  trims = 0;
  headerDrops = 0;
  maxHeaderQueueBytes = 0;
  /** The link is down (a link event): nothing is sent or received on it. */
  down = false;
  linkDownDrops = 0;

  constructor(
    env: FirmwareEnv,
    readonly index: number,
    rateBps: number,
    readonly mac: number,
    readonly peerMac: number,
    /** The peer is a host: a frame trimmed here is a last-hop trim. */
    readonly peerIsHost: boolean,
    ecn: EcnConfig,
    readonly flows: ActiveFlowCounter | null,
    controlPrio: number,
    trim: TrimConfig | null,
    trimMask: number,
  ) {
    super(env, rateBps);
    for (let q = 0; q <= HEADER_QUEUE; q++) this.queues.push(new FrameQueue());
    this.pause = new PfcPause(env, rateBps, 1 << controlPrio);
    this.ecnOn = ecn.enabled !== false;
    this.trimMask = trim !== null ? trimMask : 0;
    this.trimQueueBytes = 0;
    this.headerQueueCapBytes = 0;
    this.setThresholds(ecn, trim);
  }

  /** RED thresholds of the data queues and, when trimming, its caps; what is absent stays. */
  setThresholds(ecn: Thresholds | undefined, trim: TrimConfig | null | undefined): void {
    if (trim != null && this.trimMask !== 0) {
      this.trimQueueBytes = trim.queueBytes;
      this.headerQueueCapBytes = trim.headerQueueBytes;
    }
    for (let q = 0; q < PRIOS; q++) {
      const t = (this.trimMask >>> q) & 1 ? trim?.ecn : ecn;
      if (t == null) continue;
      this.kminOf[q] = t.kminBytes;
      this.kmaxOf[q] = t.kmaxBytes;
      this.pmaxOf[q] = t.pmax;
    }
  }
}

type Thresholds = Pick<EcnConfig, 'kminBytes' | 'kmaxBytes' | 'pmax'>;
