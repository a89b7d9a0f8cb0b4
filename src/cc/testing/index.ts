/**
 * The one RP/NP test harness: every algorithm's unit tests and the conformance test over the
 * registry drive hooks through these (docs/cc-api.md, "Testing an algorithm"). Pure and sans-IO
 * like the hooks themselves.
 */
export { driveNp, type NpDriveOptions, type SentCnp } from './np.js';
export {
  type AckOptions,
  ackEvent,
  cnmBody,
  cnmEvent,
  cnpEvent,
  driveRp,
  flowInfo,
  intHop,
  messageCompleteEvent,
  nackEvent,
  noRng,
  type RpChange,
  type RpDrive,
  type RpDriveOptions,
  timeoutEvent,
  txEvent,
} from './rp.js';
export { HandTimers } from './timers.js';
