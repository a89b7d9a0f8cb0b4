/**
 * The options the reference simulator's validation suite passes to htsim_uec (main_uec.cpp's
 * argument loop), read into one record. An option the harness has no equivalent for is an error,
 * never ignored: a parity run with a silently dropped option would compare different experiments.
 */

export type RefBalancer = 'mixed' | 'oblivious' | 'bitmap' | 'reps';

export interface RefOptions {
  /** NSCC at the senders; RCCC (receiver credits) at the receivers. */
  senderCc: boolean;
  receiverCc: boolean;
  endUs: number;
  /** -cwnd: initial window in packets (NSCC); null = maxwnd. */
  cwndPackets: number | null;
  /** -paths: entropies per connection (default 64). */
  paths: number;
  /** -load_balancing_algo (default mixed). */
  balancer: RefBalancer;
  /** -failed: slowed core links. */
  failed: number;
  /** -topo: a leaf-spine topology file (basename), null = the 3-tier fat tree of the matrix. */
  topo: string | null;
  /** -q: data queue in packets, null = 1 × BDP. */
  queuePackets: number | null;
  /** -sack_threshold: bytes the receiver may leave unacknowledged (default 16 384). */
  sackBytes: number;
  /** -conn_reuse: messages of one id share a connection. */
  connReuse: boolean;
}

const BALANCERS: readonly RefBalancer[] = ['mixed', 'oblivious', 'bitmap', 'reps'];

export function parseRefOptions(params: readonly string[]): RefOptions {
  const o: RefOptions = {
    senderCc: true,
    receiverCc: false,
    endUs: 1000,
    cwndPackets: null,
    paths: 64,
    balancer: 'mixed',
    failed: 0,
    topo: null,
    queuePackets: null,
    sackBytes: 16_384,
    connReuse: false,
  };
  const num = (i: number, what: string): number => {
    const v = Number(params[i]);
    if (params[i] === undefined || !Number.isFinite(v) || v < 0)
      throw new Error(`${what}: expected a number`);
    return v;
  };
  for (let i = 0; i < params.length; i++) {
    const p = params[i];
    switch (p) {
      case '-sender_cc_only':
        o.senderCc = true;
        o.receiverCc = false;
        break;
      case '-receiver_cc_only':
        o.senderCc = false;
        o.receiverCc = true;
        break;
      case '-sender_cc':
        o.senderCc = true;
        break;
      case '-receiver_cc':
        o.receiverCc = true;
        break;
      case '-end':
        o.endUs = num(++i, p);
        break;
      case '-cwnd':
        o.cwndPackets = num(++i, p);
        break;
      case '-paths':
        o.paths = num(++i, p);
        break;
      case '-failed':
        o.failed = num(++i, p);
        break;
      case '-q':
        o.queuePackets = num(++i, p);
        break;
      case '-sack_threshold':
        o.sackBytes = num(++i, p);
        break;
      case '-topo':
        o.topo = (params[++i] ?? '').split('/').pop() ?? '';
        break;
      case '-conn_reuse':
        o.connReuse = true;
        break;
      case '-load_balancing_algo': {
        const b = params[++i] as RefBalancer;
        if (!BALANCERS.includes(b)) throw new Error(`-load_balancing_algo ${b}: no equivalent`);
        o.balancer = b;
        break;
      }
      default:
        throw new Error(`option ${p} has no equivalent in the parity harness`);
    }
  }
  // Without a CC flag the reference runs NSCC (sender_driven); -receiver_cc alone adds RCCC to it.
  return o;
}
