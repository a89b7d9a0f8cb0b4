// A V8 heap snapshot (.heapsnapshot) read as a stream, for scripts/heap-census.mjs and
// scripts/heap-retainers.mjs: a large heap's snapshot exceeds V8's string limit, so it is never
// parsed whole. Returns the graph with accessors by node index.
import { openSync, readSync } from 'node:fs';
import { StringDecoder } from 'node:string_decoder';

/** The snapshot in FILE as a graph: node count, accessors by node index, and each node's strong retainers. */
export function readSnapshot(file) {
  const fd = openSync(file, 'r');
  const chunk = Buffer.alloc(1 << 24);
  const decoder = new StringDecoder('utf8');
  let buf = '';
  let pos = 0;
  let eof = false;
  function more() {
    if (eof) return false;
    const n = readSync(fd, chunk, 0, chunk.length, null);
    if (n === 0) {
      eof = true;
      buf = buf.slice(pos) + decoder.end();
    } else buf = buf.slice(pos) + decoder.write(chunk.subarray(0, n));
    pos = 0;
    return true;
  }
  function skipTo(marker) {
    for (;;) {
      const i = buf.indexOf(marker, pos);
      if (i >= 0) {
        const head = buf.slice(pos, i);
        pos = i + marker.length;
        return head;
      }
      if (!more()) throw new Error(`${marker} not found`);
    }
  }
  /** Unsigned integers up to the closing bracket, into a growable Float64Array. */
  function readInts(expected) {
    let out = new Float64Array(Math.max(16, expected));
    let n = 0;
    let v = -1;
    for (;;) {
      if (pos >= buf.length && !more()) throw new Error('truncated array');
      const c = buf.charCodeAt(pos++);
      if (c >= 48 && c <= 57) v = v < 0 ? c - 48 : v * 10 + (c - 48);
      else {
        if (v >= 0) {
          if (n === out.length) {
            const g = new Float64Array(out.length * 2);
            g.set(out);
            out = g;
          }
          out[n++] = v;
          v = -1;
        }
        if (c === 93) return out.subarray(0, n);
      }
    }
  }
  function readStrings() {
    const out = [];
    for (;;) {
      if (pos >= buf.length && !more()) throw new Error('truncated strings');
      const c = buf.charCodeAt(pos);
      if (c === 93) return out;
      if (c !== 34) {
        pos++;
        continue;
      }
      // A JSON string: find its closing quote (not escaped).
      let j = pos + 1;
      for (;;) {
        while (j >= buf.length) {
          const off = j - pos;
          if (!more()) throw new Error('truncated string');
          j = pos + off;
        }
        const d = buf.charCodeAt(j);
        if (d === 92) j += 2;
        else if (d === 34) break;
        else j++;
      }
      out.push(JSON.parse(buf.slice(pos, j + 1)));
      pos = j + 1;
    }
  }

  const header = JSON.parse(`${skipTo('"nodes":[').trim().replace(/,$/, '')}}`);
  const meta = header.snapshot.meta;
  const nodes = readInts(header.snapshot.node_count * meta.node_fields.length);
  skipTo('"edges":[');
  const edges = readInts(header.snapshot.edge_count * meta.edge_fields.length);
  skipTo('"strings":[');
  const strings = readStrings();

  const NF = meta.node_fields.length;
  const EF = meta.edge_fields.length;
  const N_TYPE = meta.node_fields.indexOf('type');
  const N_NAME = meta.node_fields.indexOf('name');
  const N_SIZE = meta.node_fields.indexOf('self_size');
  const N_EDGES = meta.node_fields.indexOf('edge_count');
  const E_TYPE = meta.edge_fields.indexOf('type');
  const E_NAME = meta.edge_fields.indexOf('name_or_index');
  const E_TO = meta.edge_fields.indexOf('to_node');
  const nodeTypes = meta.node_types[0];
  const edgeTypes = meta.edge_types[0];
  const nodeCount = nodes.length / NF;
  const firstEdge = new Float64Array(nodeCount + 1);
  for (let i = 0, e = 0; i < nodeCount; i++) {
    firstEdge[i] = e;
    e += nodes[i * NF + N_EDGES] * EF;
    firstEdge[i + 1] = e;
  }
  const retainers = new Uint32Array(nodeCount);
  const WEAK = edgeTypes.indexOf('weak');
  for (let e = 0; e < edges.length; e += EF)
    if (edges[e + E_TYPE] !== WEAK) retainers[edges[e + E_TO] / NF]++;

  const typeOf = (i) => nodeTypes[nodes[i * NF + N_TYPE]];
  const nameOf = (i) => strings[nodes[i * NF + N_NAME]];
  const sizeOf = (i) => nodes[i * NF + N_SIZE];
  function* edgesOf(i) {
    for (let e = firstEdge[i]; e < firstEdge[i + 1]; e += EF) {
      const t = edgeTypes[edges[e + E_TYPE]];
      const name = t === 'element' || t === 'hidden' ? edges[e + E_NAME] : strings[edges[e + E_NAME]];
      yield { type: t, name, to: edges[e + E_TO] / NF };
    }
  }
  return { nodeCount, typeOf, nameOf, sizeOf, edgesOf, retainers };
}
