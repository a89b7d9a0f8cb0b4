/**
 * SRCC's switch arithmetic as pure functions (SRCC, Hu et al., TII 2024, §III-C to §III-E, Eqs.
 * 1-6). Queues and thresholds are in bytes, rates in bit/s, times in ns; the C·d products of Eq. 6
 * are converted to bytes here.
 */

/** N_TTL: links between this switch and the flow's source, the host link included (P13). */
export function hopsFromSource(ttlOnArrival: number, ttlInit: number): number {
  return Math.max(1, ttlInit - ttlOnArrival + 1);
}

/** Bytes a port of `rateBps` sends during `delayNs` (C·d of Eq. 6 in bytes). */
export function bytesInFlight(rateBps: number, delayNs: number): number {
  return (rateBps * delayNs) / 8e9;
}

/**
 * Eq. 6: Q_cth = Q_PFC/M − κ·N_TTL·d·C·(m − 1), unclamped (it goes negative at modest fan-in,
 * P5). `hopBytes` = C·d in bytes.
 */
export function eq6ThresholdBytes(
  qPfcBytes: number,
  egressPorts: number,
  hops: number,
  hopBytes: number,
  flows: number,
  kappa: number,
): number {
  return qPfcBytes / Math.max(1, egressPorts) - kappa * hops * hopBytes * Math.max(0, flows - 1);
}

/**
 * Eq. 5 with the measured aggregate arrival rate Λ of the egress in place of the worst case
 * m·C: Q_cth = Q_PFC/M − κ·N_TTL·d·max(0, Λ − C), all converted to bytes.
 */
export function eq5ThresholdBytes(
  qPfcBytes: number,
  egressPorts: number,
  hops: number,
  hopDelayNs: number,
  arrivalRateBps: number,
  rateBps: number,
  kappa: number,
): number {
  const excessBps = Math.max(0, arrivalRateBps - rateBps);
  return qPfcBytes / Math.max(1, egressPorts) - kappa * hops * bytesInFlight(excessBps, hopDelayNs);
}

/**
 * Clamp of Eq. 6 (P5 in docs/algorithms/srcc.md): at least Q_floor (a 1-2 packet queue is normal), at most
 * Q_PFC/M (Eq. 4).
 */
export function clampThresholdBytes(
  rawBytes: number,
  floorBytes: number,
  qPfcBytes: number,
  egressPorts: number,
): number {
  return Math.min(Math.max(rawBytes, floorBytes), qPfcBytes / Math.max(1, egressPorts));
}

/** SRCC §III-D: the fair share C_e / m_e of the congested egress, bit/s. */
export function targetRateBps(egressRateBps: number, flows: number): number {
  return egressRateBps / Math.max(1, flows);
}

/** The CNM's 32-bit kbit/s field: floor(R / 1000), saturating. */
export function encodeTargetKbps(rateBps: number): number {
  return Math.min(0xffffffff, Math.max(0, Math.floor(rateBps / 1000)));
}

/**
 * τ_cnm = factor · N_TTL · d: the time a previous CNM's effect needs to come back (our choice;
 * docs/algorithms/srcc.md "Switch side").
 */
export function cnmIntervalNs(factor: number, hops: number, hopDelayNs: number): number {
  return factor * hops * hopDelayNs;
}

/** Saturating int32 of a (possibly huge or infinite) threshold, for the CNM's qCthRaw field. */
export function toInt32(x: number): number {
  if (Number.isNaN(x)) return 0;
  if (x >= 0x7fffffff) return 0x7fffffff;
  if (x <= -0x80000000) return -0x80000000;
  return Math.trunc(x);
}
