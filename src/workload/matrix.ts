/**
 * Connection matrices of the UEC reference simulator (ultraethernet/uet-htsim,
 * htsim/sim/datacenter/connection_matrix.cpp, `ConnectionMatrix::load`), the traffic of its
 * validation suite: a header (`Nodes N`, `Connections M`, optionally `Triggers`, `Failures`),
 * then one connection a line, `src->dst [id I] [msg [K]] start <µs> size <bytes> [prio P]`, nodes
 * numbered from 0. Lines sharing an `id` with `msg` are messages of one connection (the
 * reference's -conn_reuse). Triggers and failures are not supported and say so. Any other token,
 * a node outside 0..N-1 or a connection count that does not match the header is an error naming
 * the file and line (docs/scenario.md "matrix").
 */
import { existsSync, readFileSync } from 'node:fs';
import type { MatrixWorkload } from '../config/scenario.js';
import { WorkloadError } from './cdf.js';

export interface MatrixConnection {
  src: number;
  dst: number;
  startNs: number;
  sizeBytes: number;
  /** `id` (flow id) of the line, null without one. */
  id: number | null;
  /** A message of connection `id` (connection reuse). */
  msg: boolean;
  line: number;
}

export interface ConnectionMatrix {
  nodes: number;
  connections: MatrixConnection[];
}

const HEADER_KEYS = ['Nodes', 'Connections', 'Triggers', 'Failures'] as const;

function wholeNumber(tok: string | undefined, min: number): number | null {
  if (tok === undefined || !/^\d+$/.test(tok)) return null;
  const n = Number(tok);
  return Number.isSafeInteger(n) && n >= min ? n : null;
}

/** Parse the text of a matrix; `name` (its path) heads every error. */
export function parseMatrix(text: string, name: string): ConnectionMatrix {
  const header: Partial<Record<(typeof HEADER_KEYS)[number], number>> = {};
  const connections: MatrixConnection[] = [];
  const ids = new Map<number, MatrixConnection>();
  const lines = text.split(/\r?\n/);
  const fail = (line: number, what: string): never => {
    throw new WorkloadError(`matrix ${name} line ${line}: ${what}`);
  };
  for (let i = 0; i < lines.length; i++) {
    const ln = i + 1;
    const tokens = lines[i]
      .trim()
      .split(/\s+/)
      .filter((t) => t !== '');
    if (tokens.length === 0 || tokens[0].startsWith('#')) continue;
    const key = tokens[0];
    if ((HEADER_KEYS as readonly string[]).includes(key)) {
      if (connections.length > 0) fail(ln, `${key} after the first connection`);
      const n = wholeNumber(tokens[1], 0);
      if (n === null || tokens.length > 2) fail(ln, `expected "${key} <count>"`);
      header[key as (typeof HEADER_KEYS)[number]] = n as number;
      continue;
    }
    if (key === 'trigger' || key === 'failure') fail(ln, `${key} lines are not supported`);
    const ends = /^(\d+)->(\d+)$/.exec(key);
    if (ends === null) fail(ln, `expected a connection "src->dst start <us> size <bytes>", got "${key}"`);
    const c: MatrixConnection = {
      src: Number(ends![1]),
      dst: Number(ends![2]),
      startNs: -1,
      sizeBytes: 0,
      id: null,
      msg: false,
      line: ln,
    };
    for (let k = 1; k < tokens.length; k++) {
      const tok = tokens[k];
      if (tok === 'start') {
        const us = Number(tokens[++k]);
        if (tokens[k] === undefined || !Number.isFinite(us) || us < 0)
          fail(ln, 'start must be a time in µs ≥ 0');
        c.startNs = Math.round(us * 1000);
      } else if (tok === 'size') {
        const b = wholeNumber(tokens[++k], 1);
        if (b === null) fail(ln, 'size must be a whole number of bytes ≥ 1');
        c.sizeBytes = b as number;
      } else if (tok === 'id') {
        const id = wholeNumber(tokens[++k], 1);
        if (id === null) fail(ln, 'id must be a whole number ≥ 1');
        c.id = id;
      } else if (tok === 'msg') {
        c.msg = true;
        if (wholeNumber(tokens[k + 1], 1) !== null) k++;
      } else if (tok === 'prio') {
        if (wholeNumber(tokens[++k], 0) === null) fail(ln, 'prio must be a whole number');
      } else if (tok === 'trigger' || tok === 'send_done_trigger' || tok === 'recv_done_trigger') {
        fail(ln, `${tok} is not supported (flows start at their start time)`);
      } else {
        fail(ln, `unknown token "${tok}"`);
      }
    }
    if (c.startNs < 0) fail(ln, 'no start time');
    if (c.sizeBytes === 0) fail(ln, 'no size');
    if (c.msg && c.id === null) fail(ln, 'msg needs an id (the connection it reuses)');
    if (c.id !== null) {
      const prev = ids.get(c.id);
      if (prev !== undefined && !(prev.msg && c.msg))
        fail(ln, `id ${c.id} used twice (mark reused connections with msg)`);
      if (prev !== undefined && (prev.src !== c.src || prev.dst !== c.dst))
        fail(ln, `id ${c.id} is ${prev.src}->${prev.dst} on line ${prev.line}`);
      ids.set(c.id, c);
    }
    connections.push(c);
  }
  const nodes = header.Nodes;
  if (nodes === undefined) fail(1, 'no "Nodes <count>" header');
  for (const c of connections) {
    if (c.src >= nodes! || c.dst >= nodes!)
      fail(c.line, `node ${Math.max(c.src, c.dst)} is not in 0..${nodes! - 1}`);
    if (c.src === c.dst) fail(c.line, `connection from node ${c.src} to itself`);
  }
  if (header.Connections !== undefined && header.Connections !== connections.length)
    fail(
      lines.length,
      `the header says ${header.Connections} connections, the file has ${connections.length}`,
    );
  if (connections.length === 0) fail(lines.length, 'no connections');
  return { nodes: nodes!, connections };
}

export function loadMatrix(file: string, written = file): ConnectionMatrix {
  if (!existsSync(file)) throw new WorkloadError(`matrix ${written}: file not found`);
  return parseMatrix(readFileSync(file, 'utf8'), written);
}

export interface MatrixFlow {
  src: string;
  dst: string;
  sizeBytes: number;
  startNs: number;
  /** Messages of one reused connection share a QP. */
  qpKey: string | null;
}

/** The flows of a matrix entry: node i is the entry's i-th host. */
export function matrixFlows(e: MatrixWorkload, entry: number): MatrixFlow[] {
  const m = loadMatrix(e.matrixFile, e.file);
  if (m.nodes !== e.hosts.length)
    throw new WorkloadError(
      `matrix ${e.file}: ${m.nodes} nodes, but the workload entry has ${e.hosts.length} hosts (set hosts to ${m.nodes} of them)`,
    );
  return m.connections.map((c) => ({
    src: e.hosts[c.src],
    dst: e.hosts[c.dst],
    sizeBytes: c.sizeBytes,
    startNs: c.startNs,
    qpKey: c.msg ? `m${entry}:${c.id}` : null,
  }));
}
