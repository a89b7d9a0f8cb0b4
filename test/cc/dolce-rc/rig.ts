/** The Dolce-RC unit tests drive RPs with the reproduction checks' own driver. */
export { driveRp as rpRig, flowInfo, noRng } from '../../../src/reproduce/rp-drive.js';

export const G = 1e9;
export const M = 1e6;
export const US = 1000;
