/**
 * DCQCN+ notification point (receiver NIC; DCQCN+ §IV-B-2, Eq. 11): one list of congested flows per NIC,
 * checked round-robin one record per δ. A checked record that saw a mark and has not had a CNP for T_cnp gets
 * one, carrying the CNP period τ = l·δ (Eq. 11) in the CNP's reserved bytes. Every visit costs δ whether or
 * not it sends (P6 in docs/algorithms/dcqcn-plus.md), so τ really is the time between two checks of one
 * record. Records idle for E_idle visits leave the list (ours, P5 in docs/algorithms/dcqcn-plus.md).
 */
import { Ecn, type Packet } from '../../wire/packet.js';
import type { NpAlgorithm, NpNicIo } from '../types.js';
import type { DcqcnPlusParams } from './params.js';

export interface CongestedRecord {
  /** Local (receiver) QPN of the flow. */
  qpn: number;
  /** A CE-marked packet arrived since this record's last CNP. */
  ecn: boolean;
  lastCnpNs: number;
  /** Consecutive visits that found no mark. */
  idleVisits: number;
}

export interface CongestedList {
  records: CongestedRecord[];
  byQpn: Map<number, CongestedRecord>;
  cursor: number;
}

export function createCongestedList(): CongestedList {
  return { records: [], byQpn: new Map(), cursor: 0 };
}

/** Rule 1: a CE packet of flow `qpn` sets its record's bit, appending a record at the tail if new. */
export function markFlow(list: CongestedList, qpn: number): boolean {
  const r = list.byQpn.get(qpn);
  if (r !== undefined) {
    r.ecn = true;
    return false;
  }
  const rec: CongestedRecord = { qpn, ecn: true, lastCnpNs: Number.NEGATIVE_INFINITY, idleVisits: 0 };
  list.records.push(rec);
  list.byQpn.set(qpn, rec);
  return true;
}

export interface VisitParams {
  npCheckIntervalNs: number;
  cnpMinIntervalNs: number;
  evictIdleVisits: number;
}

export interface Cnp {
  qpn: number;
  cnpPeriodNs: number;
}

/**
 * Rules 2-4: check the record under the cursor at `nowNs`. Returns the CNP to send, if any.
 * τ is the list length at the visit times δ.
 */
export function visitNext(list: CongestedList, nowNs: number, p: VisitParams): Cnp | null {
  const recs = list.records;
  if (recs.length === 0) return null;
  if (list.cursor >= recs.length) list.cursor = 0;
  const r = recs[list.cursor];
  if (r.ecn) {
    list.cursor++;
    if (nowNs - r.lastCnpNs < p.cnpMinIntervalNs) return null;
    const cnp = { qpn: r.qpn, cnpPeriodNs: recs.length * p.npCheckIntervalNs };
    r.ecn = false;
    r.lastCnpNs = nowNs;
    r.idleVisits = 0;
    return cnp;
  }
  if (p.evictIdleVisits > 0 && ++r.idleVisits >= p.evictIdleVisits) {
    // The cursor now points at the record that followed the evicted one.
    recs.splice(list.cursor, 1);
    list.byQpn.delete(r.qpn);
    return null;
  }
  list.cursor++;
  return null;
}

export interface NpNicState {
  list: CongestedList;
  io: NpNicIo;
  traversing: boolean;
  visit: VisitParams;
}

const VISIT_TIMER = 0;

function armVisit(nic: NpNicState): void {
  nic.io.setTimer(VISIT_TIMER, nic.io.now() + nic.visit.npCheckIntervalNs);
}

export const dcqcnPlusNp: NpAlgorithm<DcqcnPlusParams, NpNicState, { qpn: number }> = {
  initNic: (p, io) => ({
    list: createCongestedList(),
    io,
    traversing: false,
    visit: {
      // A zero δ would visit forever at one instant.
      npCheckIntervalNs: Math.max(1, p.npCheckIntervalNs),
      cnpMinIntervalNs: p.cnpMinIntervalNs,
      evictIdleVisits: p.evictIdleVisits,
    },
  }),
  initQp: (flow) => ({ qpn: flow.qpn }),
  onData(qp, nic, pkt: Packet) {
    if (pkt.ecn !== Ecn.Ce) return;
    markFlow(nic.list, qp.qpn);
    if (!nic.traversing) {
      nic.traversing = true;
      armVisit(nic);
    }
  },
  onNicTimer(nic, _slot, _p, io) {
    const cnp = visitNext(nic.list, io.now(), nic.visit);
    if (cnp !== null) io.sendCnp(cnp.qpn, { cnpPeriodNs: cnp.cnpPeriodNs });
    if (nic.list.records.length > 0) armVisit(nic);
    else nic.traversing = false;
  },
};
