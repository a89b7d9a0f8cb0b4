/**
 * The Wireshark Lua dissector (deploy/wireshark/rocelab.lua) against tshark: a pcap of real
 * Ethernet/IPv4/UDP 6081 datagrams — single frames, trains, control packets — must decode every
 * inner frame down to the BTH and show our options by name. tshark is required: when it is
 * missing this test FAILS (CI installs it in .ci/run), it never skips.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { encapsulate } from '../../src/wire/encap.js';
import { Opcode } from '../../src/wire/opcodes.js';
import { encodeOuterFrame, outerHeaders } from '../../src/wire/outer.js';
import { Ecn, FrameKind, type Packet } from '../../src/wire/packet.js';
import { createExt, createPacket } from '../../src/wire/packet-factory.js';
import { PcapWriter } from '../../src/wire/pcap.js';
import { emulatedSizeBytes } from '../../src/wire/size.js';
import { encodeControl, TrainReader, TrainWriter } from '../../src/wire/train.js';
import { trimToHeader } from '../../src/wire/trim.js';
import { repoRoot } from './shared.js';
import { requireTshark } from './tshark.js';

const DISSECTOR = join(repoRoot, 'deploy/wireshark/rocelab.lua');

const dir = mkdtempSync(join(tmpdir(), 'rocelab-wireshark-'));
// ROCELAB_KEEP_PCAP=1 keeps the capture for a look in Wireshark (its path is printed).
afterAll(() => {
  if (process.env.ROCELAB_KEEP_PCAP === undefined) rmSync(dir, { recursive: true, force: true });
  else console.log(`capture kept: ${join(dir, 'rocelab.pcap')}`);
});

function roce(opcode: number, destQp: number, psn: number, payloadLen = 64): Packet {
  const p = createPacket();
  p.kind =
    opcode === Opcode.Acknowledge ? FrameKind.Ack : opcode === Opcode.Cnp ? FrameKind.Cnp : FrameKind.Data;
  p.opcode = opcode;
  p.dstMac = 0x02000a000002;
  p.srcMac = 0x02000a000001;
  p.srcIp = 0x0a000001;
  p.dstIp = 0x0a000002;
  p.dscp = 26;
  p.ecn = Ecn.Ect0;
  p.srcPort = 49200 + (psn % 100);
  p.destQp = destQp;
  p.psn = psn;
  p.prio = 3;
  if (p.kind === FrameKind.Data) p.payloadLen = payloadLen;
  if (opcode === Opcode.WriteFirst) p.reth = { vaHi: 1, vaLo: 0x1000, rkey: 0x77, dmaLength: 4096 };
  if (p.kind === FrameKind.Ack) p.aeth = { syndrome: 0x1f, msn: psn };
  if (p.kind === FrameKind.Cnp) {
    p.becn = true;
    p.dscp = 48;
    p.prio = 6;
  }
  p.sizeBytes = emulatedSizeBytes(p);
  return p;
}

/** What one captured datagram must show. */
interface Expected {
  frames: { opcode: number; destQp: number; psn: number }[];
  arrivalNs: number[];
  promiseNs: number[];
  linkSeq: number | null;
  trainLens: number;
  control: boolean;
}

function expectation(frames: Packet[], extra: Partial<Expected>): Expected {
  return {
    frames: frames.map((p) => ({ opcode: p.opcode, destQp: p.destQp, psn: p.psn })),
    arrivalNs: [],
    promiseNs: [],
    linkSeq: null,
    trainLens: Math.max(0, frames.length - 1),
    control: false,
    ...extra,
  };
}

function buildCapture(): { file: string; expected: Expected[] } {
  const datagrams: Buffer[] = [];
  const expected: Expected[] = [];
  // 1. a plain one-frame datagram, no options at all
  const plain = roce(Opcode.SendOnly, 0x22b3, 100, 1000);
  datagrams.push(encapsulate(plain, { vni: 1 }));
  expected.push(expectation([plain], {}));

  // 2. one frame with stamp, link sequence, HPCC INT with active flows, PacketExt and meta
  const rich = roce(Opcode.SendMiddle, 0x1234, 101);
  rich.id = 987654321;
  rich.int = {
    layout: 'hpcc',
    nhop: 2,
    hops: [
      { lineRateBps: 100e9, timeNs: 5000, txBytes: 128 * 40, qlenBytes: 80 * 3, activeFlows: 4 },
      { lineRateBps: 400e9, timeNs: 6000, txBytes: 128 * 50, qlenBytes: 0, activeFlows: 0 },
    ],
  };
  rich.ext = { ...createExt(), txTsNs: 123456789, windowBytes: 65536, fields: { arm: 2, rate: 1.5 } };
  rich.sizeBytes = emulatedSizeBytes(rich);
  datagrams.push(encapsulate(rich, { vni: 2, arrivalNs: 1_000_250.5, linkSeq: 41 }));
  expected.push(expectation([rich], { arrivalNs: [1_000_250.5], linkSeq: 41 }));

  // 3. a train of five frames of different kinds, each stamped, MPCC INT on one, a promise at the end
  const w = new TrainWriter({ maxDatagramBytes: 9000 });
  const train = [
    roce(Opcode.WriteFirst, 0x00abcd, 200, 1024),
    roce(Opcode.WriteMiddle, 0x00abcd, 201, 1024),
    roce(Opcode.Acknowledge, 0x000777, 55),
    roce(Opcode.Cnp, 0x000888, 0),
    roce(Opcode.SendLast, 0xfffffe, 0xffffff, 3),
  ];
  train[1].int = {
    layout: 'mpcc',
    nhop: 1,
    hops: [{ lineRateBps: 0, timeNs: 0, txBytes: 0, qlenBytes: 30000, activeFlows: 3 }],
  };
  train[2].ext = {
    ...createExt(),
    tsEchoNs: 777,
    ecnCount: 12,
    sack: { refPsn: 0x123456, basePsn: 57, bitsLo: 0x80000001, bitsHi: 0xff, oooPackets: 9, lastHop: true },
  };
  train[3].ext = { ...createExt(), cnpPeriodNs: 50000, ecnCount: 3 };
  for (const p of train) p.sizeBytes = emulatedSizeBytes(p);
  w.begin(3, 42);
  const stamps = train.map((_, i) => 2_000_000 + 1000 * i + 0.25);
  for (const [i, p] of train.entries()) expect(w.append(p, stamps[i])).toBe(true);
  datagrams.push(w.finish(2_100_000));
  expected.push(expectation(train, { arrivalNs: stamps, promiseNs: [2_100_000], linkSeq: 42 }));

  // 4. control packets: a promise alone, and the end of a link (+Infinity)
  datagrams.push(encodeControl({ vni: 3, promiseNs: 2_500_000.75, linkSeq: 43 }));
  expected.push(expectation([], { promiseNs: [2_500_000.75], linkSeq: 43, control: true }));
  datagrams.push(encodeControl({ vni: 3, promiseNs: Number.POSITIVE_INFINITY }));
  expected.push(expectation([], { promiseNs: [Number.POSITIVE_INFINITY], control: true }));

  // 5. a long train on a loopback-sized datagram: 40 ACK/data frames
  const w2 = new TrainWriter({ maxDatagramBytes: 65507 });
  w2.begin(4, 44);
  const long: Packet[] = [];
  for (let i = 0; i < 40; i++) {
    const p =
      i % 2 === 0
        ? roce(Opcode.SendMiddle, 0x4000 + i, 1000 + i, 256)
        : roce(Opcode.Acknowledge, 0x5000 + i, i);
    long.push(p);
    expect(w2.append(p, 3_000_000 + i)).toBe(true);
  }
  datagrams.push(w2.finish());
  expected.push(expectation(long, { arrivalNs: long.map((_, i) => 3_000_000 + i), linkSeq: 44 }));

  // 6. a data frame trimmed at the second switch, its egress facing the destination (option 0x30)
  const cut = roce(Opcode.WriteMiddle, 0x6000, 600, 4096);
  cut.ttl = 62;
  trimToHeader(cut, true);
  datagrams.push(encapsulate(cut, { vni: 5, linkSeq: 45 }));
  expected.push(expectation([cut], { linkSeq: 45 }));

  // 7. RCCC: a data frame carrying its pull target (option 0x17) and a UET pull (opcode 0xC0)
  const wants = roce(Opcode.SendMiddle, 0x7000, 700, 4086);
  wants.ext = { ...createExt(), pullTarget: 0xfedcba98 };
  wants.sizeBytes = emulatedSizeBytes(wants);
  datagrams.push(encapsulate(wants, { vni: 6, linkSeq: 46 }));
  expected.push(expectation([wants], { linkSeq: 46 }));
  const pull = roce(Opcode.Acknowledge, 0x7001, 0);
  pull.kind = FrameKind.Pull;
  pull.opcode = Opcode.UetPull;
  pull.aeth = null;
  pull.ext = { ...createExt(), pull: { quanta: 100_000_063, slow: true } };
  pull.sizeBytes = emulatedSizeBytes(pull);
  datagrams.push(encapsulate(pull, { vni: 7, linkSeq: 47 }));
  expected.push(expectation([pull], { linkSeq: 47 }));

  // 8. a malformed train: the first packet's train length runs past the datagram
  const bad = Buffer.from(datagrams[2]);
  const firstOpts = 8 + (bad[0] & 0x3f) * 4;
  bad.writeUInt32BE(bad.length, firstOpts - 4); // TrainLen is the first packet's last option
  datagrams.push(bad);

  const chunks: Buffer[] = [];
  const pcap = new PcapWriter((c) => chunks.push(Buffer.from(c)));
  for (const [i, d] of datagrams.entries()) {
    pcap.writeFrame(
      1000 * (i + 1),
      encodeOuterFrame(d, outerHeaders(0xc6120001, 0xc6120002, 6081, 40000 + i)),
    );
  }
  pcap.flush();
  const file = join(dir, 'rocelab.pcap');
  writeFileSync(file, Buffer.concat(chunks));
  return { file, expected };
}

const FIELDS = [
  'frame.protocols',
  'rocelab.packets',
  'rocelab.control',
  'rocelab.link_seq',
  'rocelab.arrival_ns',
  'rocelab.promise_ns',
  'rocelab.train_len',
  'infiniband.bth.opcode',
  'infiniband.bth.destqp',
  'infiniband.bth.psn',
  'rocelab.hpcc.nhop',
  'rocelab.hpcc.time_ns',
  'rocelab.hpcc.rate',
  'rocelab.hpcc.rate_bps',
  'rocelab.hpcc.qlen_units',
  'rocelab.hpcc.qlen_high_units',
  'rocelab.active_flows',
  'rocelab.mpcc.qlen_bytes',
  'rocelab.tx_ts_ns',
  'rocelab.ts_echo_ns',
  'rocelab.window_bytes',
  'rocelab.ecn_count',
  'rocelab.cnp_period_ns',
  'rocelab.sack.last_hop',
  'rocelab.sack.ref_psn',
  'rocelab.sack.base_psn',
  'rocelab.sack.bits_lo',
  'rocelab.sack.ooo',
  'rocelab.pull_target',
  'rocelab.pull.quanta',
  'rocelab.pull.slow',
  'rocelab.field.name',
  'rocelab.field.u32',
  'rocelab.field.f64',
  'rocelab.meta.id',
  'rocelab.trim.hop',
  'rocelab.trim.last_hop',
  'rocelab.trim.payload_len',
  'ip.len',
  'rocelab.bundle.count',
  'rocelab.bundle.src',
  'rocelab.bundle.src_port',
  'rocelab.bundle.dst',
  'rocelab.bundle.dst_port',
  '_ws.col.Info',
  '_ws.expert.message',
] as const;

function runTshark(file: string, prefs: string[] = []): Record<(typeof FIELDS)[number], string[]>[] {
  const tshark = requireTshark();
  // Wireshark's RPC-over-RDMA heuristic reports a SEND with a 3-byte payload as a malformed
  // packet (with or without our dissector): off, so any expert message left is about our bytes.
  const args = ['-n', '--disable-heuristic', 'rpcrdma_infiniband', '-X', `lua_script:${DISSECTOR}`];
  for (const p of prefs) args.push('-o', p);
  args.push('-r', file, '-T', 'fields');
  args.push('-E', 'occurrence=a', '-E', 'aggregator=|', '-E', 'separator=/t');
  for (const f of FIELDS) args.push('-e', f);
  const out = execFileSync(tshark, args, {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, HOME: process.env.HOME ?? '/tmp' },
  });
  return out
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => {
      const cols = l.split('\t');
      const row = {} as Record<(typeof FIELDS)[number], string[]>;
      FIELDS.forEach((f, i) => {
        row[f] = cols[i] === undefined || cols[i] === '' ? [] : cols[i].split('|');
      });
      return row;
    });
}

const num = (s: string) => (s === 'inf' || s === 'Infinity' ? Number.POSITIVE_INFINITY : Number(s));

describe('Wireshark dissector deploy/wireshark/rocelab.lua', () => {
  it('decodes single frames, trains and control packets down to the BTH, with our options named', () => {
    const { file, expected } = buildCapture();
    const all = runTshark(file);
    expect(all.length).toBe(expected.length + 1);
    const malformed = all[expected.length];
    expect(malformed['_ws.expert.message']).toEqual([
      expect.stringMatching(/train length \d+ is 0 or overruns/),
    ]);
    expect(malformed['_ws.col.Info'][0]).toMatch(/malformed/);
    const rows = all.slice(0, expected.length);
    let innerFrames = 0;
    rows.forEach((row, i) => {
      const e = expected[i];
      const where = `datagram ${i + 1}`;
      expect(row['_ws.expert.message'], where).toEqual([]);
      expect(row['frame.protocols'][0], where).toMatch(/^eth:ethertype:ip:udp:rocelab/);
      expect(row['frame.protocols'][0], where).not.toMatch(/geneve/);
      expect(row['rocelab.packets'], where).toEqual([String(Math.max(1, e.frames.length))]);
      expect(row['infiniband.bth.opcode'].map(Number), where).toEqual(e.frames.map((f) => f.opcode));
      expect(row['infiniband.bth.destqp'].map(Number), where).toEqual(e.frames.map((f) => f.destQp));
      expect(row['infiniband.bth.psn'].map(Number), where).toEqual(e.frames.map((f) => f.psn));
      innerFrames += row['infiniband.bth.psn'].length;
      expect(row['rocelab.arrival_ns'].map(num), where).toEqual(e.arrivalNs);
      expect(row['rocelab.promise_ns'].map(num), where).toEqual(e.promiseNs);
      expect(row['rocelab.link_seq'].map(Number), where).toEqual(e.linkSeq === null ? [] : [e.linkSeq]);
      expect(row['rocelab.train_len'].length, where).toBe(e.trainLens);
      expect(row['rocelab.control'].length > 0, where).toBe(e.control);
      if (e.control) expect(row['_ws.col.Info'][0], where).toMatch(/^rocelab promise /);
      if (e.frames.length > 1) expect(row['_ws.col.Info'][0], where).toMatch(/^rocelab train of \d+/);
    });
    expect(innerFrames).toBe(expected.reduce((n, e) => n + e.frames.length, 0));

    // telemetry of datagram 2 (HPCC INT, PacketExt, fields, meta) and the train's MPCC/ext options
    const rich = rows[1];
    expect(rich['rocelab.hpcc.nhop']).toEqual(['2']);
    expect(rich['rocelab.hpcc.time_ns']).toEqual(['5000', '6000']);
    // The default rate table is the HPCC simulator's: codes 2 and 4 are 100 and 400 Gbit/s.
    expect(rich['rocelab.hpcc.rate']).toEqual(['2', '4']);
    expect(rich['rocelab.hpcc.rate_bps'].map(Number)).toEqual([100e9, 400e9]);
    expect(rich['rocelab.active_flows']).toEqual(['4', '0', '0', '0', '0']);
    expect(rich['rocelab.tx_ts_ns']).toEqual(['123456789']);
    expect(rich['rocelab.window_bytes']).toEqual(['65536']);
    expect(rich['rocelab.field.name']).toEqual(['arm', 'rate']);
    expect(rich['rocelab.field.u32']).toEqual(['2']);
    expect(rich['rocelab.field.f64'].map(Number)).toEqual([1.5]);
    expect(rich['rocelab.meta.id']).toEqual(['987654321']);
    const train = rows[2];
    expect(train['rocelab.mpcc.qlen_bytes']).toEqual(['30000']);
    expect(train['rocelab.ts_echo_ns']).toEqual(['777']);
    expect(train['rocelab.ecn_count']).toEqual(['12', '3']);
    expect(train['rocelab.sack.ref_psn']).toEqual([String(0x123456)]);
    expect(train['rocelab.sack.base_psn']).toEqual(['57']);
    expect(train['rocelab.sack.bits_lo']).toEqual(['0x80000001']);
    expect(train['rocelab.sack.ooo']).toEqual(['9']);
    expect(train['rocelab.sack.last_hop']).toEqual(['1']);
    expect(train['rocelab.train_len'].map(Number).every((n) => n > 60)).toBe(true);
    // the trimmed frame: its hop, last-hop flag and lost length; the inner IPv4 packet is headers only
    const cut = rows[6];
    expect(cut['rocelab.trim.hop']).toEqual(['2']);
    expect(cut['rocelab.trim.last_hop']).toEqual(['1']);
    expect(cut['rocelab.trim.payload_len']).toEqual(['4096']);
    expect(cut['ip.len'].map(Number).at(-1)).toBe(20 + 8 + 12 + 4);
    // RCCC: the pull target of a data frame, and a pull's body (78-byte frame, like a CNP's)
    expect(rows[7]['rocelab.pull_target']).toEqual([String(0xfedcba98)]);
    expect(rows[8]['rocelab.pull.quanta']).toEqual(['100000063']);
    expect(rows[8]['rocelab.pull.slow']).toEqual(['1']);
    expect(rows[8]['ip.len'].map(Number).at(-1)).toBe(20 + 8 + 12 + 16 + 4);
    console.log(
      `tshark + rocelab.lua: ${rows.length} datagrams, ${innerFrames} inner frames decoded to the BTH; train info: ${train['_ws.col.Info'][0].slice(0, 160)}`,
    );
  });

  it("names HPCC INT line rates with the run's rate table (preference rocelab.hpcc_rates)", () => {
    // A run whose switch ports are 10, 40 and 800 Gbit/s: its table is [10G, 40G, 800G].
    const table = [10e9, 40e9, 800e9];
    const p = roce(Opcode.SendMiddle, 0x1234, 7);
    p.int = {
      layout: 'hpcc',
      nhop: 3,
      // The 800G hop's 12 MB queue is past the hop word's 17 bits (10.5 MB): option 0x04.
      hops: table.map((r, i) => ({
        lineRateBps: r,
        timeNs: i,
        txBytes: 0,
        qlenBytes: i === 2 ? 12e6 : 0,
        activeFlows: 0,
      })),
    };
    p.sizeBytes = emulatedSizeBytes(p);
    const chunks: Buffer[] = [];
    const pcap = new PcapWriter((c) => chunks.push(Buffer.from(c)));
    const d = encapsulate(p, { vni: 1, intRatesBps: table });
    pcap.writeFrame(1000, encodeOuterFrame(d, outerHeaders(0xc6120001, 0xc6120002, 6081, 40000)));
    pcap.flush();
    const file = join(dir, 'rates.pcap');
    writeFileSync(file, Buffer.concat(chunks));
    const [row] = runTshark(file, ['rocelab.hpcc_rates:10,40,800']);
    expect(row['rocelab.hpcc.rate']).toEqual(['0', '1', '2']);
    expect(row['rocelab.hpcc.rate_bps'].map(Number)).toEqual(table);
    // 12e6 / 80 = 150000 units = 1 · 2^17 + 18928
    expect(row['rocelab.hpcc.qlen_units']).toEqual(['0', '0', '18928']);
    expect(row['rocelab.hpcc.qlen_high_units']).toEqual(['0', '0', '1', '0', '0']);
    // Read with the default (ns-3) table the same codes name other rates: the preference matters.
    const [ns3] = runTshark(file);
    expect(ns3['rocelab.hpcc.rate_bps'].map(Number)).toEqual([25e9, 50e9, 100e9]);
  });

  it('decodes a bundle (docs/realtime.md "Bundles"): every datagram in it, with the addresses it came from and went to', () => {
    const a = roce(Opcode.SendOnly, 0x22b3, 100, 1000);
    const w = new TrainWriter({ maxDatagramBytes: 9000 });
    w.begin(2, 7);
    const b1 = roce(Opcode.WriteFirst, 0xabc, 5, 512);
    const b2 = roce(Opcode.Acknowledge, 0xdef, 6);
    w.append(b1, 1000);
    w.append(b2, 1001);
    const inner = [
      { from: [198, 18, 0, 1, 6081], to: [198, 18, 1, 2, 6081], bytes: encapsulate(a, { vni: 1 }) },
      { from: [198, 18, 0, 3, 6081], to: [198, 18, 1, 4, 6082], bytes: w.finish(2_000_000) },
      {
        from: [198, 18, 0, 3, 6081],
        to: [198, 18, 1, 2, 6081],
        bytes: encodeControl({ vni: 3, promiseNs: 2_500_000, linkSeq: 8 }),
      },
    ];
    // Written here from docs/wire.md §6.6, not by the bundler: a check of the format.
    const bundle = (entries: typeof inner, count = entries.length) => {
      const parts: Buffer[] = [Buffer.from([0xb5, 1, count >> 8, count & 255])];
      for (const e of entries) {
        const h = Buffer.alloc(14);
        h.set(e.from.slice(0, 4), 0);
        h.writeUInt16BE(e.from[4], 4);
        h.set(e.to.slice(0, 4), 6);
        h.writeUInt16BE(e.to[4], 10);
        h.writeUInt16BE(e.bytes.length, 12);
        parts.push(h, e.bytes);
      }
      return Buffer.concat(parts);
    };
    const good = bundle(inner);
    const chunks: Buffer[] = [];
    const pcap = new PcapWriter((c) => chunks.push(Buffer.from(c)));
    pcap.writeFrame(1000, encodeOuterFrame(good, outerHeaders(0xc6120001, 0xc6120102, 6081, 6081)));
    // one datagram more than the bundle holds: flagged, what it holds still decoded
    pcap.writeFrame(2000, encodeOuterFrame(bundle(inner, 4), outerHeaders(0xc6120001, 0xc6120102, 6081)));
    pcap.writeFrame(
      3000,
      encodeOuterFrame(good.subarray(0, good.length - 5), outerHeaders(0xc6120001, 0xc6120102, 6081)),
    );
    pcap.flush();
    const file = join(dir, 'bundle.pcap');
    writeFileSync(file, Buffer.concat(chunks));
    const [row, extra, cut] = runTshark(file);
    expect(row['_ws.expert.message']).toEqual([]);
    expect(row['rocelab.bundle.count']).toEqual(['3']);
    expect(row['rocelab.bundle.src']).toEqual(['198.18.0.1', '198.18.0.3', '198.18.0.3']);
    expect(row['rocelab.bundle.src_port']).toEqual(['6081', '6081', '6081']);
    expect(row['rocelab.bundle.dst']).toEqual(['198.18.1.2', '198.18.1.4', '198.18.1.2']);
    expect(row['rocelab.bundle.dst_port']).toEqual(['6081', '6082', '6081']);
    expect(row['infiniband.bth.opcode'].map(Number)).toEqual([a.opcode, b1.opcode, b2.opcode]);
    expect(row['infiniband.bth.psn'].map(Number)).toEqual([100, 5, 6]);
    expect(row['rocelab.promise_ns'].map(num)).toEqual([2_000_000, 2_500_000]);
    expect(row['rocelab.link_seq'].map(Number)).toEqual([7, 8]);
    // (the field aggregator is '|', which a train's Info also uses between its frames)
    expect(row['_ws.col.Info'].join('|')).toMatch(
      /^rocelab bundle of 3: rocelab: RC Send Only .* \/\/ rocelab train of 2 seq 7 .* \/\/ rocelab promise 2500000 ns seq 8\s*$/,
    );
    expect(extra['_ws.expert.message']).toEqual([expect.stringMatching(/entry 4 of 4 runs past/)]);
    expect(extra['infiniband.bth.psn'].map(Number)).toEqual([100, 5, 6]);
    expect(cut['_ws.expert.message']).toEqual([expect.stringMatching(/entry 3 \(\d+ bytes\) runs past/)]);
  });

  it('never fails with a Lua error on mutated datagrams, and flags the malformed ones', () => {
    let seed = 0x5eed;
    const rnd = (n: number) => {
      seed = (Math.imul(seed, 1103515245) + 12345) & 0x7fffffff;
      return seed % n;
    };
    const w = new TrainWriter({ maxDatagramBytes: 9000 });
    const chunks: Buffer[] = [];
    const pcap = new PcapWriter((c) => chunks.push(Buffer.from(c)));
    let written = 0;
    for (let i = 0; i < 600; i++) {
      w.begin(1, i);
      for (let k = 0; k < 1 + rnd(4); k++) {
        const p = roce(k % 2 === 0 ? Opcode.SendMiddle : Opcode.Acknowledge, 0x100 + k, i, rnd(200));
        p.ext = { ...createExt(), fields: { a: 1.5, bb: i } };
        w.append(p, i * 10 + k);
      }
      let d = i % 7 === 0 ? encodeControl({ vni: 1, promiseNs: i, linkSeq: i }) : w.finish(i);
      const how = rnd(4);
      if (how === 3) d = d.subarray(0, rnd(d.length));
      else for (let j = 0; j <= rnd(4); j++) d[rnd(how === 0 ? Math.min(d.length, 48) : d.length)] = rnd(256);
      if (d.length === 0) continue;
      pcap.writeFrame(i * 1000, encodeOuterFrame(d, outerHeaders(0xc6120001, 0xc6120002, 6081)));
      written++;
    }
    // a train whose second inner frame is 5 bytes: the Ethernet dissector throws on it
    w.begin(1, 999);
    w.append(roce(Opcode.SendMiddle, 0x100, 1, 10), 1);
    w.append(roce(Opcode.SendMiddle, 0x100, 2, 10), 2);
    const short = w.finish();
    const r = new TrainReader();
    expect(r.reset(short)).toBeNull();
    const cut = short.subarray(0, r.offset(1) + 8 + (short[r.offset(1)] & 0x3f) * 4 + 5);
    pcap.writeFrame(1e9, encodeOuterFrame(cut, outerHeaders(0xc6120001, 0xc6120002, 6081)));
    written++;
    pcap.flush();
    const file = join(dir, 'mutated.pcap');
    writeFileSync(file, Buffer.concat(chunks));
    const rows = runTshark(file);
    expect(rows.length).toBe(written);
    const messages = rows.flatMap((r) => r['_ws.expert.message']);
    expect(messages.filter((m) => /Lua Error/i.test(m))).toEqual([]);
    expect(rows[rows.length - 1]['_ws.expert.message'].join()).toMatch(/inner frame 2: /);
    expect(rows[rows.length - 1]['infiniband.bth.psn']).toEqual(['1']);
    const ours = messages.filter((m) => /Geneve|option|train length|control packet|inner frame/.test(m));
    expect(ours.length).toBeGreaterThan(20);
    console.log(
      `tshark + rocelab.lua: ${written} mutated datagrams, ${ours.length} flagged malformed by the dissector, no Lua error`,
    );
  });
});
