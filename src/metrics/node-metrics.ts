/**
 * Prometheus metrics of one real-runtime node (docs/metrics.md): a prom-client
 * registry per node, filled at scrape time from the firmware's own counters (collect callbacks)
 * plus the few per-frame tallies only the runtime sees (per-priority tx, CE marks, PFC frames,
 * per-QP CNP/CNM/NACK). Per-frame work is an array increment; labels are built only on scrape.
 *
 * QP label cardinality is capped: the `qpLabelCap` lowest QPNs of the node get their own `qp`
 * label, every other QP is summed into `qp="other"`.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { Nic } from '../../nic/api.js';
import type { PortCounters, Switch } from '../../switch/api.js';
import { Ecn, FrameKind, type Packet } from '../wire/packet.js';

export const DEFAULT_QP_LABEL_CAP = 64;
const PRIOS = 8;

export interface MetricsSources {
  node: string;
  kind: 'host' | 'switch';
  timeScale: number;
  /** The firmware, once it exists (the server is up before it is created). */
  nic(): Nic | null;
  sw(): Switch | null;
  /** QPNs of this host (senders and receivers). */
  qpns(): number[];
  ports: { port: number; rateBps: number }[];
  /** Residual of the latest clock-sync round, emulated ns (NaN before the first / on the reference). */
  clockResidualNs(): number;
  clockCorrectionNs(): number;
  eventLoop(): { p50Ns: number; p99Ns: number; maxNs: number; meanNs: number };
  timerLateNs(): { meanNs: number; maxNs: number };
  /** Achieved rate (emulated bit/s) of each port over its latest loaded window, NaN when idle. */
  achievedBps(port: number): number;
  garbage(): Record<string, number>;
  datagrams(): { tx: number; rx: number };
  /**
   * Lockstep: achieved dilation over the last progress window (real ns per emulated ns; NaN
   * before the first window or in wallclock mode), the emulated time every event before which has
   * run, and null messages sent and received.
   */
  sync?(): { dilation: number; doneNs: number; promisesTx: number; promisesRx: number };
  qpLabelCap?: number;
}

/** Per-frame tallies the runtime keeps for metrics (taps call these). */
export class FrameTallies {
  readonly txFrames: Float64Array;
  readonly txBytes: Float64Array;
  readonly ceTx: Float64Array;
  readonly pfcTx: Float64Array;
  readonly pfcRx: Float64Array;
  /** Sent PFC frames that moved a priority from XON to XOFF (refreshes and XONs excluded). */
  readonly xoffTx: Float64Array;
  private readonly pausedTx: Uint8Array;
  /** qpn → [cnpRx, cnmRx, nackRx, cnpTx, nackTx]. */
  readonly perQp = new Map<number, Float64Array>();
  /** Latest RTT sample per QP (emulated ns), from ACKs that echo a timestamp. */
  readonly rttNs = new Map<number, number>();

  constructor(readonly nPorts: number) {
    this.txFrames = new Float64Array(nPorts * PRIOS);
    this.txBytes = new Float64Array(nPorts * PRIOS);
    this.ceTx = new Float64Array(nPorts * PRIOS);
    this.pfcTx = new Float64Array(nPorts * PRIOS);
    this.pfcRx = new Float64Array(nPorts * PRIOS);
    this.xoffTx = new Float64Array(nPorts * PRIOS);
    this.pausedTx = new Uint8Array(nPorts * PRIOS);
  }

  private qp(qpn: number): Float64Array {
    let a = this.perQp.get(qpn);
    if (a === undefined) {
      a = new Float64Array(5);
      this.perQp.set(qpn, a);
    }
    return a;
  }

  onTx(port: number, pkt: Packet): void {
    const i = port * PRIOS + (pkt.prio & 7);
    this.txFrames[i]++;
    this.txBytes[i] += pkt.sizeBytes;
    if (pkt.kind === FrameKind.Data) {
      if (pkt.ecn === Ecn.Ce) this.ceTx[i]++;
    } else if (pkt.kind === FrameKind.Pfc) {
      this.countPfc(this.pfcTx, port, pkt);
      this.countXoff(port, pkt);
    } else if (pkt.kind === FrameKind.Cnp) {
      // sent by the receiver NIC on its QP towards the sender: count on the local QP it answers for
      this.qp(pkt.destQp)[3]++;
    } else if (pkt.kind === FrameKind.Nak) {
      this.qp(pkt.destQp)[4]++;
    }
  }

  onRx(port: number, pkt: Packet, nowNs: number): void {
    switch (pkt.kind) {
      case FrameKind.Pfc:
        this.countPfc(this.pfcRx, port, pkt);
        break;
      case FrameKind.Cnp:
        this.qp(pkt.destQp)[0]++;
        break;
      case FrameKind.Cnm:
        if (pkt.cnm !== null) this.qp(pkt.cnm.destQpn)[1]++;
        break;
      case FrameKind.Nak:
        this.qp(pkt.destQp)[2]++;
        break;
      case FrameKind.Ack: {
        const echo = pkt.ext?.tsEchoNs;
        if (echo !== null && echo !== undefined) this.rttNs.set(pkt.destQp, nowNs - echo);
        break;
      }
    }
  }

  /**
   * XOFF transitions as DCQCN+ check A7 counts them (docs/algorithms/dcqcn-plus.md "Measurements used by the
   * checks"): pause frames that are not refreshes.
   */
  private countXoff(port: number, pkt: Packet): void {
    const pfc = pkt.pfc;
    if (pfc === null) return;
    for (let p = 0; p < PRIOS; p++) {
      if ((pfc.classEnable & (1 << p)) === 0) continue;
      const i = port * PRIOS + p;
      if ((pfc.quanta[p] ?? 0) > 0) {
        if (this.pausedTx[i] === 0) this.xoffTx[i]++;
        this.pausedTx[i] = 1;
      } else {
        this.pausedTx[i] = 0;
      }
    }
  }

  private countPfc(arr: Float64Array, port: number, pkt: Packet): void {
    const pfc = pkt.pfc;
    if (pfc === null) return;
    for (let p = 0; p < PRIOS; p++) {
      if ((pfc.classEnable & (1 << p)) !== 0 && (pfc.quanta[p] ?? 0) > 0) arr[port * PRIOS + p]++;
    }
  }
}

export interface NodeMetrics {
  registry: Registry;
  tallies: FrameTallies;
  /** A flow this node sent completed: FCT and slowdown histograms. */
  observeFlow(fctNs: number, slowdown: number | null): void;
  /** Start GET /metrics on host:port (port 0 = any); resolves to the bound "host:port". */
  listen(host: string, port: number): Promise<string>;
  close(): Promise<void>;
}

/** FCT buckets in emulated seconds: 1 µs … ~1 s. */
const FCT_BUCKETS_S = [1e-6, 2e-6, 5e-6, 1e-5, 2e-5, 5e-5, 1e-4, 2e-4, 5e-4, 1e-3, 2e-3, 5e-3, 1e-2, 0.1, 1];
const SLOWDOWN_BUCKETS = [1, 1.2, 1.5, 2, 3, 5, 10, 20, 50, 100, 1000];

export function createNodeMetrics(src: MetricsSources): NodeMetrics {
  const registry = new Registry();
  registry.setDefaultLabels({ node: src.node });
  const tallies = new FrameTallies(src.ports.length);
  const cap = src.qpLabelCap ?? DEFAULT_QP_LABEL_CAP;
  const reg = [registry];

  /** QP label of each QPN: its own below the cap, else "other". */
  const qpLabels = (): Map<number, string> => {
    const qpns = [...new Set([...src.qpns(), ...tallies.perQp.keys()])].sort((a, b) => a - b);
    const m = new Map<number, string>();
    for (let i = 0; i < qpns.length; i++) m.set(qpns[i], i < cap ? String(qpns[i]) : 'other');
    return m;
  };

  const counterFrom = <L extends string>(
    name: string,
    help: string,
    labelNames: L[],
    fill: (set: (labels: Record<L, string | number>, v: number) => void) => void,
  ) =>
    new Counter({
      name,
      help,
      labelNames,
      registers: reg,
      collect() {
        this.reset();
        fill((labels, v) => {
          if (v > 0) this.inc(labels as never, v);
        });
      },
    });
  const gaugeFrom = <L extends string>(
    name: string,
    help: string,
    labelNames: L[],
    fill: (set: (labels: Record<L, string | number>, v: number) => void) => void,
  ) =>
    new Gauge({
      name,
      help,
      labelNames,
      registers: reg,
      collect() {
        this.reset();
        fill((labels, v) => {
          if (Number.isFinite(v)) this.set(labels as never, v);
        });
      },
    });

  // ---- per QP (hosts) ---------------------------------------------------------------------
  if (src.kind === 'host') {
    const perQpSum = (fill: (qpn: number) => number, set: (l: { qp: string }, v: number) => void) => {
      const sums = new Map<string, number>();
      for (const [qpn, label] of qpLabels()) {
        const v = fill(qpn);
        if (Number.isFinite(v)) sums.set(label, (sums.get(label) ?? 0) + v);
      }
      for (const [qp, v] of sums) set({ qp }, v);
    };
    gaugeFrom(
      'rocelab_qp_rate_bps',
      'Pacing rate of the QP, emulated bit/s (qp="other": sum)',
      ['qp'],
      (set) => {
        const nic = src.nic();
        if (nic !== null) perQpSum((q) => nic.qpRateBps(q), set);
      },
    );
    gaugeFrom('rocelab_qp_window_bytes', 'Window of the QP in bytes (absent: unlimited)', ['qp'], (set) => {
      const nic = src.nic();
      if (nic !== null) perQpSum((q) => nic.qpWindowBytes(q) ?? Number.NaN, set);
    });
    gaugeFrom(
      'rocelab_qp_state',
      "The algorithm's state variables of the QP (alpha, target rate, …) as qpInspect reports them",
      ['qp', 'var'],
      (set) => {
        const nic = src.nic();
        if (nic === null) return;
        for (const [qpn, label] of qpLabels()) {
          if (label === 'other') continue;
          const vars = nic.qpInspect(qpn);
          for (const [k, v] of Object.entries(vars)) if (typeof v === 'number') set({ qp: label, var: k }, v);
        }
      },
    );
    const qpCounter = (name: string, help: string, idx: number) =>
      counterFrom(name, help, ['qp'], (set) => perQpSum((q) => tallies.perQp.get(q)?.[idx] ?? 0, set));
    qpCounter('rocelab_qp_cnp_rx_total', 'CNPs received for the QP (reaction point)', 0);
    qpCounter('rocelab_qp_cnm_rx_total', 'Switch congestion notifications received for the QP', 1);
    qpCounter('rocelab_qp_nack_rx_total', 'NAKs received by the QP', 2);
    qpCounter('rocelab_qp_cnp_tx_total', 'CNPs sent for the QP (notification point)', 3);
    qpCounter('rocelab_qp_nack_tx_total', 'NAKs sent by the QP', 4);
    gaugeFrom(
      'rocelab_qp_rtt_seconds',
      'Latest RTT sample of the QP (timestamp echo), emulated s',
      ['qp'],
      (set) => {
        for (const [qpn, label] of qpLabels()) {
          const r = tallies.rttNs.get(qpn);
          if (label !== 'other' && r !== undefined) set({ qp: label }, r / 1e9);
        }
      },
    );
    counterFrom(
      'rocelab_host_events_total',
      'NIC counters (cnpTx, retransmits, timeouts, …)',
      ['event'],
      (set) => {
        const nic = src.nic();
        if (nic === null) return;
        const c = nic.counters() as unknown as Record<string, number>;
        for (const [k, v] of Object.entries(c))
          if (typeof v === 'number' && k !== 'pausedNs' && k !== 'reorderMaxPackets') set({ event: k }, v);
      },
    );
    gaugeFrom(
      'rocelab_host_reorder_max_packets',
      'Selective repeat: the most packets a QP of this host held out of order at once',
      [],
      (set) => {
        const nic = src.nic();
        if (nic !== null) set({}, nic.counters().reorderMaxPackets);
      },
    );
    counterFrom(
      'rocelab_host_entropy_tx_bytes_total',
      'Payload bytes sent per entropy index (UDP source port choice), summed over QPs; spraying hosts only',
      ['entropy'],
      (set) => {
        const mp = src.nic()?.multipath() ?? null;
        if (mp === null || mp.policy === 'ecmp') return;
        for (const [i, b] of mp.entropyTxBytes.entries()) set({ entropy: i }, b);
      },
    );
  }

  // ---- per port and priority ------------------------------------------------------------------
  const portsOf = () => src.ports.map((p) => p.port);
  /** A counter per (port, priority) read from a tally laid out port-major, PRIOS per port. */
  const perPortPrio = (name: string, help: string, tally: ArrayLike<number>) =>
    counterFrom(name, help, ['port', 'prio'], (set) => {
      for (const p of portsOf())
        for (let q = 0; q < PRIOS; q++) set({ port: p, prio: q }, tally[p * PRIOS + q]);
    });
  perPortPrio(
    'rocelab_port_tx_bytes_total',
    'Emulated bytes sent by the port, per priority',
    tallies.txBytes,
  );
  perPortPrio('rocelab_port_tx_frames_total', 'Frames sent by the port, per priority', tallies.txFrames);
  perPortPrio(
    'rocelab_port_ecn_marked_total',
    'Data frames leaving the port with ECN CE, per priority',
    tallies.ceTx,
  );
  counterFrom(
    'rocelab_pfc_pause_frames_total',
    'PFC frames pausing a priority, sent (dir="tx") or received (dir="rx")',
    ['port', 'prio', 'dir'],
    (set) => {
      for (const p of portsOf()) {
        for (let q = 0; q < PRIOS; q++) {
          set({ port: p, prio: q, dir: 'tx' }, tallies.pfcTx[p * PRIOS + q]);
          set({ port: p, prio: q, dir: 'rx' }, tallies.pfcRx[p * PRIOS + q]);
        }
      }
    },
  );
  perPortPrio(
    'rocelab_pfc_xoff_transitions_total',
    'PFC frames sent that moved a priority from XON to XOFF (not refreshes)',
    tallies.xoffTx,
  );
  if (src.kind === 'switch') {
    const portCounters = () => src.sw()?.portCounters() ?? [];
    gaugeFrom(
      'rocelab_port_queue_bytes',
      'Bytes queued at the egress port (all priorities)',
      ['port'],
      (set) => {
        const sw = src.sw();
        if (sw !== null) for (const p of portsOf()) set({ port: p }, sw.queueBytes(p));
      },
    );
    // Series read from the firmware's per-port counters, one value per port: [gauge?, name, help, value].
    const perPort: [boolean, string, string, (c: PortCounters) => number][] = [
      [
        true,
        'rocelab_port_queue_max_bytes',
        'Largest egress queue of the port so far',
        (c) => c.maxQueueBytes,
      ],
      [
        false,
        'rocelab_port_paused_seconds_total',
        'Time a priority of the port was paused by PFC, emulated s',
        (c) => c.pausedNs / 1e9,
      ],
      [false, 'rocelab_port_drops_total', 'Frames dropped at the port', (c) => c.drops + c.ingressDrops],
      [false, 'rocelab_port_cnm_tx_total', 'Congestion notifications sent for the port', (c) => c.cnmTx],
      [false, 'rocelab_port_trims_total', 'Data frames the egress port trimmed to headers', (c) => c.trims],
      [
        false,
        'rocelab_port_header_drops_total',
        'Frames dropped because the port’s header queue was full',
        (c) => c.headerDrops,
      ],
      [
        true,
        'rocelab_port_header_queue_max_bytes',
        'Largest header queue (trimmed frames) of the port so far',
        (c) => c.maxHeaderQueueBytes,
      ],
      [
        false,
        'rocelab_port_link_down_drops_total',
        'Frames lost because the port’s link was down',
        (c) => c.linkDownDrops,
      ],
    ];
    for (const [gauge, name, help, pick] of perPort) {
      (gauge ? gaugeFrom : counterFrom)(name, help, ['port'], (set) => {
        for (const c of portCounters()) set({ port: c.port }, pick(c));
      });
    }
    gaugeFrom(
      'rocelab_link_rate_bps',
      'Current line rate of the port (a link event may change it; 0 while down), emulated bit/s',
      ['port'],
      (set) => {
        const sw = src.sw();
        if (sw !== null) for (const p of portsOf()) set({ port: p }, sw.portRateBps(p));
      },
    );
  } else {
    counterFrom(
      'rocelab_port_paused_seconds_total',
      'Time a priority of the port was paused by PFC, emulated s',
      ['port'],
      (set) => {
        const nic = src.nic();
        if (nic !== null) set({ port: 0 }, nic.counters().pausedNs / 1e9);
      },
    );
  }
  gaugeFrom(
    'rocelab_link_rate_configured_bps',
    'Configured line rate of the port, emulated bit/s',
    ['port'],
    (set) => {
      for (const p of src.ports) set({ port: p.port }, p.rateBps);
    },
  );
  gaugeFrom(
    'rocelab_link_rate_achieved_bps',
    'Rate the port achieved in its latest window with work queued, emulated bit/s',
    ['port'],
    (set) => {
      for (const p of src.ports) set({ port: p.port }, src.achievedBps(p.port));
    },
  );

  // ---- per node ---------------------------------------------------------------------------
  const fct = new Histogram({
    name: 'rocelab_fct_seconds',
    help: 'Flow completion time of flows sent by this host, emulated s',
    buckets: FCT_BUCKETS_S,
    registers: reg,
  });
  const slow = new Histogram({
    name: 'rocelab_slowdown',
    help: 'FCT / ideal FCT of flows sent by this host',
    buckets: SLOWDOWN_BUCKETS,
    registers: reg,
  });
  gaugeFrom(
    'rocelab_clock_offset_seconds',
    'Clock-sync residual: offset to the parent clock measured by the latest round before correcting, real s',
    [],
    (set) => set({}, (src.clockResidualNs() * src.timeScale) / 1e9),
  );
  gaugeFrom(
    'rocelab_clock_correction_seconds',
    'Total clock-sync correction applied, emulated s',
    [],
    (set) => set({}, src.clockCorrectionNs() / 1e9),
  );
  gaugeFrom(
    'rocelab_event_loop_lag_seconds',
    'Event-loop delay of the node process, real s',
    ['stat'],
    (set) => {
      const e = src.eventLoop();
      set({ stat: 'p50' }, e.p50Ns / 1e9);
      set({ stat: 'p99' }, e.p99Ns / 1e9);
      set({ stat: 'max' }, e.maxNs / 1e9);
      set({ stat: 'mean' }, e.meanNs / 1e9);
    },
  );
  gaugeFrom('rocelab_timer_late_seconds', 'Lateness of firmware timers, emulated s', ['stat'], (set) => {
    const l = src.timerLateNs();
    set({ stat: 'mean' }, l.meanNs / 1e9);
    set({ stat: 'max' }, l.maxNs / 1e9);
  });
  if (src.sync !== undefined) {
    const sync = src.sync;
    gaugeFrom(
      'rocelab_dilation',
      'Achieved time dilation over the last window (lockstep): real s per emulated s, timeScale when the host keeps up',
      [],
      (set) => set({}, sync().dilation),
    );
    gaugeFrom(
      'rocelab_emulated_seconds',
      'Emulated time before which every event of this node has run (lockstep)',
      [],
      (set) => set({}, sync().doneNs / 1e9),
    );
    counterFrom(
      'rocelab_promise_datagrams_total',
      'Lockstep null messages (promise datagrams), by direction',
      ['dir'],
      (set) => {
        const s = sync();
        set({ dir: 'tx' }, s.promisesTx);
        set({ dir: 'rx' }, s.promisesRx);
      },
    );
  }
  gaugeFrom(
    'rocelab_time_scale',
    'Time-dilation factor: emulated time runs this many times slower',
    [],
    (set) => set({}, src.timeScale),
  );
  counterFrom(
    'rocelab_garbage_datagrams_total',
    'Datagrams dropped before firmware, by reason',
    ['reason'],
    (set) => {
      for (const [k, v] of Object.entries(src.garbage())) set({ reason: k }, v);
    },
  );
  counterFrom('rocelab_datagrams_total', 'UDP datagrams sent and received', ['dir'], (set) => {
    const d = src.datagrams();
    set({ dir: 'tx' }, d.tx);
    set({ dir: 'rx' }, d.rx);
  });

  let server: Server | null = null;
  return {
    registry,
    tallies,
    observeFlow(fctNs, slowdown) {
      fct.observe(fctNs / 1e9);
      if (slowdown !== null && Number.isFinite(slowdown)) slow.observe(slowdown);
    },
    listen(host, port) {
      return new Promise((resolve, reject) => {
        const s = createServer((req, res) => {
          if (req.method === 'GET' && (req.url === '/metrics' || req.url?.startsWith('/metrics?'))) {
            registry.metrics().then(
              (text) => {
                res.writeHead(200, { 'content-type': registry.contentType });
                res.end(text);
              },
              (err: unknown) => {
                res.writeHead(500, { 'content-type': 'text/plain' });
                res.end(String(err));
              },
            );
          } else if (req.method === 'GET' && req.url === '/healthz') {
            res.writeHead(200, { 'content-type': 'text/plain' });
            res.end('ok\n');
          } else {
            res.writeHead(404, { 'content-type': 'text/plain' });
            res.end('not found: try GET /metrics\n');
          }
        });
        s.once('error', reject);
        s.listen(port, host, () => {
          s.off('error', reject);
          server = s;
          const a = s.address() as AddressInfo;
          resolve(`${a.address}:${a.port}`);
        });
      });
    },
    close() {
      return new Promise((resolve) => {
        if (server === null) {
          resolve();
          return;
        }
        server.closeAllConnections?.();
        server.close(() => resolve());
        server = null;
      });
    },
  };
}
