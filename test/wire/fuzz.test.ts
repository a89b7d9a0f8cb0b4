/**
 * Fuzz: >100,000 random and mutated frames/datagrams through every decoder. Decoders must return
 * a Packet or a typed DecodeError and never throw; whatever decodes must re-encode to the same
 * Packet. Seeded, so a failure reproduces.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeAeth } from '../../src/wire/aeth.js';
import { decodeBth } from '../../src/wire/bth.js';
import { toHex } from '../../src/wire/bytes.js';
import { decodeCnmBody } from '../../src/wire/cnm.js';
import { decapsulate, decapsulateVxlan, encapsulate, encapsulateVxlan } from '../../src/wire/encap.js';
import { type DecodeError, type DecodeErrorCode, isDecodeError } from '../../src/wire/errors.js';
import { decodeEthernet } from '../../src/wire/ethernet.js';
import { decodeFrame, decodeIpv4Packet, encodeFrame } from '../../src/wire/frame.js';
import { decodeGeneveOptions } from '../../src/wire/geneve.js';
import { writeIcrc } from '../../src/wire/icrc.js';
import { decodeHpccInt } from '../../src/wire/int-hpcc.js';
import { decodeMpccInt } from '../../src/wire/int-mpcc.js';
import { decodeIpv4, writeIpv4Checksum } from '../../src/wire/ipv4.js';
import { decodeOuterFrame, encodeOuterFrame, outerHeaders } from '../../src/wire/outer.js';
import type { Packet } from '../../src/wire/packet.js';
import { parsePcap, pcapGlobalHeader, pcapRecord } from '../../src/wire/pcap.js';
import { decodePfcBody } from '../../src/wire/pfc.js';
import { decodeReth } from '../../src/wire/reth.js';
import { encodeControl, readLinkSeq, readPromise, TrainReader, TrainWriter } from '../../src/wire/train.js';
import { decodeUdp } from '../../src/wire/udp.js';
import { FrameView } from '../../src/wire/view.js';
import { decodeVxlanHeader } from '../../src/wire/vxlan.js';
import { arbPacket } from './arbitraries.js';
import { hex, loadVectors } from './shared.js';

const FUZZ_INPUTS = 120_000;
const SEED = 0x5eed_2026;

const CODES = new Set<DecodeErrorCode>([
  'truncated',
  'bad-length',
  'bad-checksum',
  'bad-icrc',
  'unknown-opcode',
  'unknown-ethertype',
  'unknown-protocol',
  'unknown-port',
  'bad-version',
  'bad-field',
  'unsupported',
  'oversized',
  'bad-option',
]);

/** xorshift32: fast and reproducible; fast-check is used for the valid corpus only. */
function rng(seed: number) {
  let s = seed >>> 0 || 1;
  const next = () => {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    return s;
  };
  return {
    next,
    int: (n: number) => next() % n,
    bytes: (n: number) => {
      const b = Buffer.allocUnsafe(n);
      for (let i = 0; i < n; i++) b[i] = next() & 0xff;
      return b;
    },
  };
}

/** Valid inputs of every shape the decoders take. */
function corpus(): Buffer[] {
  const out: Buffer[] = [];
  const roce = loadVectors('roce.json');
  const overlay = loadVectors('overlay.json');
  for (const v of [...roce.vectors, ...overlay.vectors]) out.push(hex(v.frame_hex));
  const plain = fc.sample(arbPacket({ maxPayloadBytes: 300 }), { numRuns: 400, seed: SEED });
  const rich = fc.sample(arbPacket({ telemetry: true, maxPayloadBytes: 300 }), {
    numRuns: 400,
    seed: SEED + 1,
  });
  for (const p of plain) {
    out.push(encodeFrame(p));
    out.push(encapsulateVxlan(p, { vni: 100 }));
  }
  for (const p of rich) {
    const g = encapsulate(p, { vni: 100 });
    out.push(g);
    out.push(encodeOuterFrame(g, outerHeaders(0xc6120001, 0xc6120002, 6081)));
  }
  // trains of 2..6 frames with stamps, link sequence and promise; control packets
  const w = new TrainWriter({ maxDatagramBytes: 9000 });
  for (let i = 0; i + 6 <= 120; i += 6) {
    w.begin(100, i);
    for (let k = 0; k < 2 + (i % 5); k++) {
      try {
        w.append(plain[i + k], i * 1000 + k, i % 2 === 0 ? i * 1000 : undefined);
      } catch {
        // a packet with too many fields for the runtime options: not part of the corpus
      }
    }
    out.push(w.frames > 0 ? w.finish(i * 1000 + 10) : encodeControl({ vni: 100, promiseNs: i }));
    out.push(encodeControl({ vni: 100, promiseNs: i * 1e6, linkSeq: i }));
  }
  out.push(
    Buffer.concat([
      pcapGlobalHeader(),
      ...plain.slice(0, 5).map((p, i) => pcapRecord(i * 1000, encodeFrame(p))),
    ]),
  );
  return out;
}

/** Makes a mutated frame consistent again where it can, so the mutation reaches deeper checks. */
function reseal(f: Buffer, ipOff: number): void {
  if (f.length >= ipOff + 44 && f[ipOff] === 0x45) {
    writeIpv4Checksum(f, ipOff);
    writeIcrc(f, ipOff, f.length - 4);
  }
}

function mutate(r: ReturnType<typeof rng>, base: Buffer, other: Buffer): Buffer {
  const f = Buffer.from(base);
  switch (r.int(9)) {
    case 0: // truncation
      return f.subarray(0, r.int(f.length + 1));
    case 1: // extension
      return Buffer.concat([f, r.bytes(1 + r.int(40))]);
    case 2: {
      // bit flips
      const n = 1 + r.int(8);
      for (let i = 0; i < n && f.length > 0; i++) f[r.int(f.length)] ^= 1 << r.int(8);
      return f;
    }
    case 3: {
      // bad length fields: IPv4 total, UDP length, Geneve OptLen / option length, then reseal
      const at = [16, 38, 0, 11, 19, 58][r.int(6)];
      if (at + 1 < f.length)
        f.writeUInt16BE(r.int(3) === 0 ? r.int(0x10000) : (f.readUInt16BE(at) + r.int(9) - 4) & 0xffff, at);
      reseal(f, 14);
      return f;
    }
    case 4: // bad ICRC
      if (f.length > 0) f[f.length - 1 - r.int(4)] ^= 1 << r.int(8);
      return f;
    case 5: {
      // unknown / other opcodes, resealed so the opcode check is reached
      if (f.length > 42) f[42] = r.int(256);
      if (f.length > 43 && r.int(2) === 0) f[43] = r.int(256);
      reseal(f, 14);
      return f;
    }
    case 6: {
      // random bytes anywhere, resealed
      const n = 1 + r.int(4);
      for (let i = 0; i < n && f.length > 0; i++) f[r.int(f.length)] = r.int(256);
      reseal(f, 14);
      return f;
    }
    case 7: // pure noise
      return r.bytes(r.int(300));
    default: // splice two inputs
      return Buffer.concat([f.subarray(0, r.int(f.length + 1)), other.subarray(r.int(other.length + 1))]);
  }
}

interface Stats {
  inputs: number;
  decoderCalls: number;
  packets: number;
  errors: Map<string, number>;
  throws: string[];
}

function check(stats: Stats, what: string, input: Buffer, run: () => unknown): unknown {
  stats.decoderCalls++;
  let r: unknown;
  try {
    r = run();
  } catch (e) {
    if (stats.throws.length < 10)
      stats.throws.push(`${what} threw ${String(e)} on ${toHex(input).slice(0, 4000)}`);
    return undefined;
  }
  if (isDecodeError(r)) {
    const e = r as DecodeError;
    if (!CODES.has(e.code) || typeof e.message !== 'string' || !Number.isInteger(e.offset)) {
      stats.throws.push(`${what} returned a malformed error ${JSON.stringify(e)}`);
    }
    stats.errors.set(e.code, (stats.errors.get(e.code) ?? 0) + 1);
  }
  return r;
}

/** Decoded packets must re-encode and decode to themselves. */
function reencodes(
  stats: Stats,
  what: string,
  input: Buffer,
  p: Packet,
  enc: (p: Packet) => Buffer,
  dec: (b: Buffer) => unknown,
) {
  stats.packets++;
  try {
    const again = dec(enc(p));
    expect(again).toEqual(p);
  } catch (e) {
    if (stats.throws.length < 10)
      stats.throws.push(
        `${what} decoded but did not round-trip (${String(e).slice(0, 300)}) on ${toHex(input).slice(0, 4000)}`,
      );
  }
}

describe('fuzz', () => {
  it(`${FUZZ_INPUTS} random and mutated inputs: every decoder returns a Packet or a typed error`, () => {
    const r = rng(SEED);
    const base = corpus();
    const view = new FrameView();
    const trains = new TrainReader();
    let trainPackets = 0;
    const stats: Stats = { inputs: 0, decoderCalls: 0, packets: 0, errors: new Map(), throws: [] };
    const t0 = performance.now();
    for (let i = 0; i < FUZZ_INPUTS; i++) {
      const input = mutate(r, base[r.int(base.length)], base[r.int(base.length)]);
      stats.inputs++;
      const frame = check(stats, 'decodeFrame', input, () => decodeFrame(input));
      if (frame !== undefined && !isDecodeError(frame)) {
        reencodes(
          stats,
          'decodeFrame',
          input,
          frame as Packet,
          (p) => encodeFrame(p),
          (b) => decodeFrame(b),
        );
      }
      check(stats, 'decodeFrame(header-only)', input, () =>
        decodeFrame(input, { verifyIcrc: false, verifyChecksums: false, payload: 'drop' }),
      );
      check(stats, 'decodeIpv4Packet', input, () =>
        decodeIpv4Packet(input.subarray(Math.min(14, input.length))),
      );
      const g = check(stats, 'decapsulate', input, () => decapsulate(input));
      if (g !== undefined && !isDecodeError(g)) {
        reencodes(
          stats,
          'decapsulate',
          input,
          g as Packet,
          (p) => encapsulate(p, { vni: 1 }),
          (b) => decapsulate(b),
        );
      }
      check(stats, 'decapsulateVxlan', input, () => decapsulateVxlan(input));
      const t = check(stats, 'TrainReader', input, () => trains.reset(input));
      if (t === null) {
        for (let k = 0; k < trains.count && !trains.control; k++) {
          trainPackets++;
          check(stats, 'decapsulate(train packet)', input, () => decapsulate(trains.packet(k)));
        }
      }
      check(
        stats,
        'readPromise/readLinkSeq',
        input,
        () => (readPromise(input) ?? 0) + (readLinkSeq(input) ?? 0),
      );
      const o = check(stats, 'decodeOuterFrame', input, () => decodeOuterFrame(input));
      if (o !== undefined && !isDecodeError(o)) {
        const payload = (o as { payload: Uint8Array }).payload;
        check(stats, 'decapsulate(outer payload)', input, () => decapsulate(payload));
      }
      check(stats, 'FrameView', input, () => {
        view.reset(input);
        return view.kind >= 0 && view.bthOff >= 0 ? view.psn + view.destQp + view.opcode + view.ecn : 0;
      });
      const off = r.int(Math.max(1, Math.min(input.length, 60)));
      for (const [name, dec] of [
        ['decodeEthernet', decodeEthernet],
        ['decodeIpv4', decodeIpv4],
        ['decodeUdp', decodeUdp],
        ['decodeBth', decodeBth],
        ['decodeReth', decodeReth],
        ['decodeAeth', decodeAeth],
        ['decodePfcBody', decodePfcBody],
        ['decodeCnmBody', decodeCnmBody],
        ['decodeHpccInt', decodeHpccInt],
        ['decodeMpccInt', decodeMpccInt],
        ['decodeVxlanHeader', decodeVxlanHeader],
        ['decodeGeneveOptions', decodeGeneveOptions],
      ] as const) {
        check(stats, name, input, () => (dec as (b: Uint8Array, o: number) => unknown)(input, off));
      }
      if (i % 16 === 0) check(stats, 'parsePcap', input, () => parsePcap(input));
    }
    const seconds = (performance.now() - t0) / 1000;
    console.log(
      `fuzz: ${stats.inputs} inputs, ${stats.decoderCalls} decoder calls, ${stats.packets} decoded packets re-encoded, ` +
        `${seconds.toFixed(1)} s; errors by code: ${JSON.stringify(Object.fromEntries([...stats.errors].sort()))}`,
    );
    expect(stats.throws).toEqual([]);
    expect(stats.inputs).toBeGreaterThanOrEqual(100_000);
    // the mutations reach every decode stage, not just the first length check
    for (const code of [
      'truncated',
      'bad-length',
      'bad-checksum',
      'bad-icrc',
      'unknown-opcode',
      'bad-option',
      'unknown-ethertype',
    ]) {
      expect(stats.errors.get(code) ?? 0, code).toBeGreaterThan(100);
    }
    expect(stats.packets).toBeGreaterThan(1000);
    expect(trainPackets).toBeGreaterThan(1000);
  });
});
