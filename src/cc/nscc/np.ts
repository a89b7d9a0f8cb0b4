/**
 * NSCC's receiver side: nothing beyond the NIC's ACKs. UET has no CNP; the congestion signal is
 * the ECN echo each ACK carries (ACKed at once when the data was CE-marked: the transport's
 * coalescing rule), so this NP replaces the NIC's default ECN → CNP notification point with
 * one that sends nothing.
 */
import type { NpAlgorithm } from '../types.js';
import type { NsccParams } from './params.js';

export const nsccNp: NpAlgorithm<NsccParams, null, null> = {
  initNic: () => null,
  initQp: () => null,
  onData() {},
};
