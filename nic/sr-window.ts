/**
 * What both selective-repeat halves share: the window (reorder buffer, packets; a power of two
 * that divides 2^24, so per-PSN state is indexed by PSN or sequence number mod the window).
 */
import type { SelectiveRepeatConfig } from './api.js';
import type { TransportHost } from './transport.js';

export abstract class SrWindowed {
  protected readonly window: number;
  protected readonly mask: number;

  constructor(
    protected readonly host: TransportHost,
    protected readonly cfg: SelectiveRepeatConfig,
  ) {
    this.window = cfg.windowPackets;
    this.mask = cfg.windowPackets - 1;
  }
}
