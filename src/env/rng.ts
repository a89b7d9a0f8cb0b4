/**
 * Seeded PRNG (xoshiro128**), deterministic across platforms: the same seed gives the same
 * stream in every runtime. Firmware must draw randomness only from an injected Rng.
 */
export interface Rng {
  /** Uniform float in [0, 1). */
  next(): number;
  /** Uniform 32-bit unsigned integer. */
  nextU32(): number;
  /** Uniform integer in [0, n). */
  int(n: number): number;
  /** An independent stream derived from this generator's seed and a label (e.g. a node name). */
  fork(label: string): Rng;
}

function splitmix32(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x9e3779b9) >>> 0;
    let z = s;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
    return (z ^ (z >>> 16)) >>> 0;
  };
}

/** FNV-1a hash of a string, to mix labels into seeds. */
export function hashString(label: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < label.length; i++) {
    h ^= label.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

export function createRng(seed: number): Rng {
  const init = splitmix32(seed);
  let a = init();
  let b = init();
  let c = init();
  let d = init();
  if ((a | b | c | d) === 0) a = 1;
  const nextU32 = (): number => {
    const result = Math.imul(rotl(Math.imul(b, 5) >>> 0, 7), 9) >>> 0;
    const t = (b << 9) >>> 0;
    c ^= a;
    d ^= b;
    b ^= c;
    a ^= d;
    c ^= t;
    d = rotl(d, 11);
    return result;
  };
  const rng: Rng = {
    nextU32,
    next: () => nextU32() / 4294967296,
    int: (n: number) => Math.floor((nextU32() / 4294967296) * n),
    // Forks depend only on (seed, label), not on how much of the parent stream was drawn.
    fork: (label: string) => createRng((Math.imul(seed >>> 0, 0x9e3779b1) ^ hashString(label)) >>> 0),
  };
  return rng;
}

function rotl(x: number, k: number): number {
  return ((x << k) | (x >>> (32 - k))) >>> 0;
}
