/**
 * One-line progress for long runs on a terminal (stderr): emulated time done/total, engine
 * speed and an ETA, redrawn in place. The CLI only creates it when stderr is a TTY and --json
 * is off, so logs and pipes never see control characters.
 */

export interface ProgressSnapshot {
  emulatedNs: number;
  totalNs: number;
  events: number;
  packetHops: number;
  /** Wall time since the engine started, ms. */
  wallMs: number;
  done: boolean;
}

const BAR = 24;

function emu(ns: number, unitNs: number): string {
  return (ns / unitNs).toFixed(unitNs === 1e6 ? 2 : 1);
}

function perSecond(n: number, wallMs: number): string {
  if (wallMs <= 0) return '–';
  const r = (n * 1000) / wallMs;
  if (r >= 1e6) return `${(r / 1e6).toFixed(2)} M`;
  if (r >= 1e3) return `${(r / 1e3).toFixed(1)} k`;
  return r.toFixed(0);
}

function eta(p: ProgressSnapshot): string {
  if (p.done) return 'done';
  if (p.emulatedNs <= 0 || p.wallMs < 200) return 'ETA –';
  const s = (p.wallMs * (p.totalNs - p.emulatedNs)) / p.emulatedNs / 1000;
  if (s >= 3600) return `ETA ${Math.floor(s / 3600)} h ${Math.round((s % 3600) / 60)} min`;
  if (s >= 60) return `ETA ${Math.floor(s / 60)} min ${Math.round(s % 60)} s`;
  return `ETA ${s.toFixed(s < 10 ? 1 : 0)} s`;
}

/**
 * `dcqcn [██████░░░░…]  42% 2.10/5.00 ms emulated · 3.12 M events/s · 1.05 M pkt-hops/s · ETA 4.1 s`
 * The ETA assumes the rest of the run goes as fast as the part done; runs that end when every
 * flow completed finish earlier than it says.
 */
export function formatProgress(p: ProgressSnapshot, label: string): string {
  const frac = p.totalNs > 0 ? Math.min(1, Math.max(0, p.emulatedNs / p.totalNs)) : 1;
  const full = Math.round(frac * BAR);
  const unitNs = p.totalNs >= 1e6 ? 1e6 : 1e3;
  const unit = unitNs === 1e6 ? 'ms' : 'µs';
  return [
    `${label}${label !== '' ? ' ' : ''}[${'█'.repeat(full)}${'░'.repeat(BAR - full)}] ${String(Math.floor(frac * 100)).padStart(3)}%`,
    `${emu(p.emulatedNs, unitNs)}/${emu(p.totalNs, unitNs)} ${unit} emulated`,
    `${perSecond(p.events, p.wallMs)} events/s`,
    `${perSecond(p.packetHops, p.wallMs)} pkt-hops/s`,
    eta(p),
  ].join(' · ');
}

export interface ProgressLine {
  update(p: ProgressSnapshot): void;
  /** Erase the line (before other output, and at the end). */
  clear(): void;
}

/** Redraws one line with CR + erase-to-end; cut to the terminal width so it never wraps. */
export function progressLine(write: (text: string) => void, label: string, columns = 100): ProgressLine {
  let shown = false;
  const width = Math.max(20, columns - 1);
  return {
    update(p) {
      const line = formatProgress(p, label);
      write(`\r${[...line].slice(0, width).join('')}\x1b[K`);
      shown = true;
      if (p.done) this.clear();
    },
    clear() {
      if (!shown) return;
      write('\r\x1b[K');
      shown = false;
    },
  };
}
