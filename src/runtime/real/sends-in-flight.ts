/**
 * Datagrams handed to a socket whose send callback has not come yet, and who waits for them to
 * have left: closing a socket earlier drops them (a lockstep node's last promises must arrive).
 * Any number may wait at once; the bundler of a process (process-bundles.ts) is drained by each
 * of its nodes as it finishes.
 */
export class SendsInFlight {
  private count = 0;
  private waiters: (() => void)[] = [];

  /** A send was handed to the socket. */
  started(): void {
    this.count++;
  }

  /** A send's callback came. */
  done(): void {
    if (--this.count > 0 || this.waiters.length === 0) return;
    const w = this.waiters;
    this.waiters = [];
    for (const wake of w) wake();
  }

  /** Resolves once no send is in flight (at once when none is), or after `maxMs`. */
  drained(maxMs: number): Promise<void> {
    if (this.count === 0) return Promise.resolve();
    return new Promise((resolve) => {
      const t = setTimeout(resolve, maxMs);
      this.waiters.push(() => {
        clearTimeout(t);
        resolve();
      });
    });
  }
}
