/**
 * The traffic of one channel of a collective: which rank sends which part of the buffer to
 * which rank in which step (docs/scenario.md "kind: collective"). Ranges are byte offsets in the
 * channel's own buffer, so that the generator (./generate.ts) can derive each send's data
 * dependencies: a send waits for every receive of its rank, in an earlier step, of bytes it
 * sends (a reduction needs all of them; a forward needs the one that brought them).
 *
 * Algorithms (n ranks, rank r, buffer of n blocks where the op has blocks):
 * - ring (Thakur et al., "Optimization of Collective Communication Operations in MPICH",
 *   IJHPCA 2005; NCCL's ring): reduce-scatter in n−1 steps, rank r sending block (r−k−1) mod n
 *   to r+1 in step k, so rank r ends with block r reduced; all-gather in n−1 steps, rank r
 *   sending block (r−k) mod n; all-reduce = the two; broadcast: a chain from rank 0.
 * - halving-doubling (Rabenseifner, as in Thakur et al. §3.3/§4.4): reduce-scatter by recursive
 *   halving with partners at distance n/2, n/4, …, 1 (the paper's order, so the largest steps
 *   pair ranks n/2 apart), the lower rank of a pair keeping the lower half; all-gather by
 *   recursive doubling, the mirror (distance 1, 2, …, n/2).
 * - direct: every rank sends to every other at once (all-gather: its block; reduce-scatter: block
 *   d to rank d; all-to-all: its row of sizes).
 * - double-binary-tree (Sanders et al., "Two-tree algorithms for full bandwidth broadcast,
 *   reduction and scan", 2009; NCCL's tree): two in-order binary trees whose inner nodes are
 *   each other's leaves, each carrying half of the buffer; all-reduce reduces up each tree (a
 *   node sends once all its children's data arrived) and broadcasts down; broadcast: rank 0
 *   sends each tree's root its half, which goes down the tree.
 */
import type { CollectiveAlgorithm, CollectiveOp } from './ops.js';

export interface Transfer {
  step: number;
  src: number;
  dst: number;
  /** Bytes [lo, hi) of the channel's buffer. */
  lo: number;
  hi: number;
}

export interface ChannelShape {
  op: CollectiveOp;
  algorithm: CollectiveAlgorithm;
  n: number;
  /**
   * The channel's unit: a block (ring, halving-doubling, direct all-gather/reduce-scatter), the
   * whole buffer (ring broadcast), half of it (double-binary-tree: each tree's part).
   */
  unitBytes: number;
  /** alltoall: bytes rank i sends rank j on this channel. */
  pairBytes?: (i: number, j: number) => number;
}

export interface ChannelSchedule {
  transfers: Transfer[];
  /** Steps, 0..steps−1. */
  steps: number;
  /** double-binary-tree: the trees' height (levels from the deepest leaf to the root). */
  treeHeight: number;
}

const mod = (a: number, n: number) => ((a % n) + n) % n;

export function channelSchedule(c: ChannelShape): ChannelSchedule {
  const t: Transfer[] = [];
  const { n, unitBytes: b } = c;
  const block = (step: number, src: number, dst: number, k: number) =>
    t.push({ step, src, dst, lo: k * b, hi: (k + 1) * b });
  switch (c.algorithm) {
    case 'ring': {
      if (c.op === 'broadcast') {
        for (let k = 0; k < n - 1; k++) t.push({ step: k, src: k, dst: k + 1, lo: 0, hi: b });
        return { transfers: t, steps: n - 1, treeHeight: 0 };
      }
      const rs = c.op === 'allreduce' || c.op === 'reducescatter' ? n - 1 : 0;
      const ag = c.op === 'allreduce' || c.op === 'allgather' ? n - 1 : 0;
      for (let k = 0; k < rs; k++) for (let r = 0; r < n; r++) block(k, r, (r + 1) % n, mod(r - k - 1, n));
      for (let k = 0; k < ag; k++) for (let r = 0; r < n; r++) block(rs + k, r, (r + 1) % n, mod(r - k, n));
      return { transfers: t, steps: rs + ag, treeHeight: 0 };
    }
    case 'halving-doubling':
      return halvingDoubling(c.op, n, b);
    case 'direct': {
      for (let r = 0; r < n; r++)
        for (let d = 0; d < n; d++) {
          if (d === r) continue;
          if (c.op === 'alltoall') {
            const bytes = c.pairBytes?.(r, d) ?? b;
            if (bytes > 0) t.push({ step: 0, src: r, dst: d, lo: 0, hi: bytes });
          } else block(0, r, d, c.op === 'allgather' ? r : d);
        }
      return { transfers: t, steps: 1, treeHeight: 0 };
    }
    case 'double-binary-tree':
      return doubleBinaryTree(c.op, n, b);
  }
}

function halvingDoubling(op: CollectiveOp, n: number, b: number): ChannelSchedule {
  const t: Transfer[] = [];
  const levels = Math.round(Math.log2(n));
  // Each rank's current part of the buffer.
  const lo = new Array<number>(n).fill(0);
  const hi = new Array<number>(n).fill(n * b);
  let step = 0;
  if (op === 'allreduce' || op === 'reducescatter') {
    for (let k = 0; k < levels; k++, step++) {
      const d = n >> (k + 1);
      const next = lo.map((l, r) => {
        const mid = (l + hi[r]) / 2;
        const keepLower = (r & d) === 0;
        t.push({ step, src: r, dst: r ^ d, lo: keepLower ? mid : l, hi: keepLower ? hi[r] : mid });
        return keepLower ? [l, mid] : [mid, hi[r]];
      });
      next.forEach(([l, h], r) => {
        lo[r] = l;
        hi[r] = h;
      });
    }
  } else {
    for (let r = 0; r < n; r++) {
      lo[r] = r * b;
      hi[r] = (r + 1) * b;
    }
  }
  if (op === 'allreduce' || op === 'allgather') {
    for (let k = 0; k < levels; k++, step++) {
      const d = 1 << k;
      for (let r = 0; r < n; r++) t.push({ step, src: r, dst: r ^ d, lo: lo[r], hi: hi[r] });
      const next = lo.map((l, r) => [Math.min(l, lo[r ^ d]), Math.max(hi[r], hi[r ^ d])]);
      next.forEach(([l, h], r) => {
        lo[r] = l;
        hi[r] = h;
      });
    }
  }
  return { transfers: t, steps: step, treeHeight: 0 };
}

interface Tree {
  parent: number[];
  children: number[][];
  /** Levels below each node (0: a leaf), and its distance from the root. */
  height: number[];
  depth: number[];
  root: number;
}

/**
 * The in-order binary tree over positions 1..m of Sanders et al. (NCCL's ncclGetBtree): the
 * node at position p with lowest set bit b has children p − b/2 and p + b/2 (or, past m, the
 * nearest p + b/4, p + b/8, … within m); the root is the largest power of two ≤ m. The leaves
 * are the odd positions. `rankOf` maps positions to ranks.
 */
function inOrderTree(n: number, m: number, rankOf: (p: number) => number): Tree {
  const tree: Tree = {
    parent: new Array(n).fill(-1),
    children: Array.from({ length: n }, () => []),
    height: new Array(n).fill(0),
    depth: new Array(n).fill(0),
    root: -1,
  };
  let top = 1;
  while (top * 2 <= m) top *= 2;
  const build = (p: number, parent: number, depth: number): number => {
    const r = rankOf(p);
    tree.parent[r] = parent;
    tree.depth[r] = depth;
    const b = p & -p;
    const kids: number[] = [];
    if (b > 1) {
      kids.push(p - b / 2);
      let d = b / 2;
      while (d >= 1 && p + d > m) d /= 2;
      if (d >= 1) kids.push(p + d);
    }
    let h = 0;
    for (const q of kids) {
      const c = build(q, r, depth + 1);
      tree.children[r].push(c);
      h = Math.max(h, tree.height[c] + 1);
    }
    tree.height[r] = h;
    return r;
  };
  if (m >= 1) tree.root = build(top, -1, 0);
  return tree;
}

/**
 * Two trees over m nodes (ranks first..first+m−1) whose inner nodes differ: the second is the
 * mirror of the first for even m (an odd position, a leaf, becomes an even one), the first
 * shifted by one for odd m (Sanders et al. §3).
 */
function twoTrees(n: number, first: number, m: number): Tree[] {
  const a = inOrderTree(n, m, (p) => first + p - 1);
  const b = inOrderTree(n, m, (p) => first + (m % 2 === 0 ? m - p : p % m));
  return [a, b];
}

function doubleBinaryTree(op: CollectiveOp, n: number, half: number): ChannelSchedule {
  const t: Transfer[] = [];
  // All-reduce: both trees over every rank, reduced up and broadcast down. Broadcast: rank 0,
  // the root of the operation, feeds each tree (over ranks 1..n−1) its half.
  const reduce = op === 'allreduce';
  const trees = reduce ? twoTrees(n, 0, n) : twoTrees(n, 1, n - 1);
  const height = Math.max(...trees.map((x) => (x.root < 0 ? 0 : x.height[x.root])));
  const downFrom = reduce ? height + 1 : 1;
  trees.forEach((tree, i) => {
    const lo = i * half;
    const hi = lo + half;
    if (tree.root < 0) return;
    if (!reduce) t.push({ step: 0, src: 0, dst: tree.root, lo, hi });
    for (let r = 0; r < n; r++) {
      if (reduce && tree.parent[r] >= 0)
        t.push({ step: tree.height[r], src: r, dst: tree.parent[r], lo, hi });
      if (!reduce && r === 0) continue;
      for (const c of tree.children[r]) t.push({ step: downFrom + tree.depth[r], src: r, dst: c, lo, hi });
    }
  });
  const steps = Math.max(...t.map((x) => x.step)) + 1;
  t.sort((a, b) => a.step - b.step || a.src - b.src || a.dst - b.dst || a.lo - b.lo);
  return { transfers: t, steps, treeHeight: height + (reduce ? 0 : 1) };
}
