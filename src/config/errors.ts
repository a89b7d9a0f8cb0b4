/**
 * Bad configuration: always one line, `<where>: <what>`, e.g.
 * `workload[0].size: expected a size like 64KB, got -5`. The CLI prints it prefixed with the
 * file name and exits 2; other modules (topology builders, the cc registry, runtimes) may throw
 * it for bad input they detect later.
 */
export class ConfigError extends Error {
  override name = 'ConfigError';
  /** Tag that survives duplicate module instances (src vs dist), for `isConfigError`. */
  readonly code = 'ROCELAB_CONFIG';
  /** Key path (`workload[0].size`) or location (`line 3, column 5`); empty for whole-file problems. */
  readonly where: string;
  readonly detail: string;
  /** Scenario file the error is about, when known. */
  file: string | undefined;
  /** 1-based line in that file of the offending YAML node, when known. */
  line: number | undefined;

  constructor(where: string, detail: string, file?: string) {
    super(where === '' ? detail : `${where}: ${detail}`);
    this.where = where;
    this.detail = detail;
    this.file = file;
    this.line = undefined;
  }

  /** The one line the CLI prints after `rocelab: `: `file:line: where: detail`. */
  describe(): string {
    const loc =
      this.file === undefined
        ? ''
        : this.line === undefined
          ? `${this.file}: `
          : `${this.file}:${this.line}: `;
    return loc + this.message;
  }
}

export function isConfigError(err: unknown): err is ConfigError {
  return err instanceof ConfigError || (err as { code?: unknown } | null)?.code === 'ROCELAB_CONFIG';
}

/** `['workload', 0, 'size']` → `workload[0].size`. */
export function formatPath(path: ReadonlyArray<PropertyKey>): string {
  let out = '';
  for (const seg of path) {
    if (typeof seg === 'number') out += `[${seg}]`;
    else {
      const s = String(seg);
      out += /^[A-Za-z_$][\w$-]*$/.test(s) ? (out === '' ? s : `.${s}`) : `[${JSON.stringify(s)}]`;
    }
  }
  return out;
}

/** Closest candidate to a misspelt `word` (edit distance ≤ 2, or a case-only difference). */
export function suggest(word: string, candidates: Iterable<string>): string | undefined {
  let best: string | undefined;
  let bestD = Number.POSITIVE_INFINITY;
  const lw = word.toLowerCase();
  for (const c of candidates) {
    if (c.toLowerCase() === lw) return c;
    const d = editDistance(lw, c.toLowerCase());
    // Ties go to the candidate with the same first letter (s2 → s1 rather than h2).
    if (d < bestD || (d === bestD && best !== undefined && c[0] === word[0] && best[0] !== word[0])) {
      bestD = d;
      best = c;
    }
  }
  const limit = word.length <= 3 ? 1 : 2;
  return bestD <= limit ? best : undefined;
}

function editDistance(a: string, b: string): number {
  // Optimal string alignment: Levenshtein plus adjacent transposition ("pmxa" → "pmax" = 1).
  const d: number[][] = [];
  for (let i = 0; i <= a.length; i++) d.push([i, ...new Array<number>(b.length).fill(0)]);
  for (let j = 0; j <= b.length; j++) d[0][j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[a.length][b.length];
}
