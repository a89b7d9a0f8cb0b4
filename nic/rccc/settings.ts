/**
 * RCCC, the Ultra Ethernet Transport's receiver-credit congestion control (UET 1.0 CMS "RCCC";
 * the UEC reference simulator's UecPullPacer, UecSink::pull and UecSrc's credit, uec.cpp, and
 * OversubscribedCC, oversubscribed_cc.cpp): the settings of one receiver NIC. A NIC setting
 * (scenario key `defaults.nic.rccc`, per host too), not a `cc`: it lives at the receiver and
 * combines with whatever window the sender's `cc` keeps (docs/algorithms/rccc.md).
 */

/** Credit is counted in quanta of 256 bytes on the wire (UEC_PULL_QUANTUM). */
export const PULL_QUANTUM_BYTES = 256;

export interface RcccSettings {
  enabled: boolean;
  /** Pull pacing rate as a fraction of the line rate (UecPullPacer pull_rate_modifier 0.99). */
  pullRate: number;
  /** Credit granted per pull, in MTUs (UecSink::_mtus_per_pull 4). */
  creditPerPullMtu: number;
  /**
   * Receiver rate control for oversubscribed fabrics (OversubscribedCC): `auto` = on when the
   * fabric is oversubscribed and the senders keep no window of their own (the reference enables it
   * then, main_uec.cpp), `on`, `off`.
   */
  oversubscription: 'auto' | 'on' | 'off';
  /** Target fraction of ECN-marked packets (OversubscribedCC::_target_congestion 0.3). */
  targetCongestion: number;
  /** Additive increase of the relative rate per interval (_Ai 0.01), doubling while no ECN is seen. */
  rateAi: number;
  /** Multiplicative decrease per unit of g above target (_Md 0.5). */
  rateMd: number;
  /** Gain of the EWMA of the ECN fraction g (_alpha 0.5). */
  gain: number;
}

export const RCCC_DEFAULTS: RcccSettings = {
  enabled: false,
  pullRate: 0.99,
  creditPerPullMtu: 4,
  oversubscription: 'auto',
  targetCongestion: 0.3,
  rateAi: 0.01,
  rateMd: 0.5,
  gain: 0.5,
};

/** Bytes → whole quanta, rounded down (quantize_floor) or up (quantize_ceil). */
export function quantaFloor(bytes: number): number {
  return Math.floor(bytes / PULL_QUANTUM_BYTES);
}
export function quantaCeil(bytes: number): number {
  return Math.ceil(bytes / PULL_QUANTUM_BYTES);
}

/** Credit of one pull, quanta: creditPerPullMtu × MSS, rounded down (UecSink::_credit_per_pull). */
export function creditPerPullQuanta(s: RcccSettings, mssBytes: number): number {
  return Math.max(1, quantaFloor(s.creditPerPullMtu * mssBytes));
}

/**
 * Lowest relative rate of the oversubscription control: 0.9 / oversubscription ratio, at least
 * 1 % (OversubscribedCC::setOversubscriptionRatio).
 */
export function minRelativeRate(oversubscriptionRatio: number): number {
  return Math.max(0.01, 0.9 / Math.max(1, oversubscriptionRatio));
}
