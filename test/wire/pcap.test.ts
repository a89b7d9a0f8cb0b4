/**
 * pcap output checked by an independent decoder: tshark reads our captures and must see the
 * opcode, QP, PSN, ECN (and PFC/AETH/RETH fields) that our Packets say. tshark missing = failure.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { nakSyndrome, rnrNakSyndrome } from '../../src/wire/aeth.js';
import { toHex } from '../../src/wire/bytes.js';
import { decapsulate } from '../../src/wire/encap.js';
import { isDecodeError } from '../../src/wire/errors.js';
import { decodeFrame, encodeFrame } from '../../src/wire/frame.js';
import { emptyHpccStack, pushHpccHop } from '../../src/wire/int-hpcc.js';
import { parseIp } from '../../src/wire/ipv4.js';
import { Opcode } from '../../src/wire/opcodes.js';
import { decodeOuterFrame, outerHeaders } from '../../src/wire/outer.js';
import { Ecn, FrameKind, type Packet } from '../../src/wire/packet.js';
import { createExt, createPacket } from '../../src/wire/packet-factory.js';
import { PCAP_MAGIC_NS, PcapWriter, parsePcap } from '../../src/wire/pcap.js';
import { PFC_DST_MAC, pfcBodyFor } from '../../src/wire/pfc.js';
import { emulatedSizeBytes } from '../../src/wire/size.js';
import { hex, loadVectors, sharedFile } from './shared.js';
import { predictedTsharkFields, requireTshark, tsharkFields } from './tshark.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'rocelab-wire-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const A = { mac: 0x02000a000001, ip: 0x0a000001, qpn: 0x11a2 };
const B = { mac: 0x02000a000002, ip: 0x0a000002, qpn: 0x22b3 };

function rocePacket(kind: FrameKind, opcode: number, fromA: boolean, psn: number): Packet {
  const p = createPacket();
  const [src, dst] = fromA ? [A, B] : [B, A];
  p.kind = kind;
  p.opcode = opcode;
  p.srcMac = src.mac;
  p.dstMac = dst.mac;
  p.srcIp = src.ip;
  p.dstIp = dst.ip;
  p.srcPort = 55407;
  p.destQp = dst.qpn;
  p.psn = psn;
  p.dscp = 26;
  p.ecn = Ecn.Ect0;
  p.prio = 3;
  return p;
}

function withPayload(p: Packet, bytes: Uint8Array): Packet {
  p.payload = bytes;
  p.payloadLen = bytes.length;
  return p;
}

/** One frame of each type the issue lists, plus a few more. */
function frames(): { name: string; pkt: Packet }[] {
  const send = withPayload(
    rocePacket(FrameKind.Data, Opcode.SendOnly, true, 0x00a0b1),
    new Uint8Array(Buffer.from('Hello, RoCEv2!')),
  );
  send.ackReq = true;
  const writeFirst = withPayload(
    rocePacket(FrameKind.Data, Opcode.WriteFirst, true, 0x00a0b2),
    Uint8Array.from({ length: 256 }, (_, i) => i),
  );
  writeFirst.reth = { vaHi: 0x00007f3a, vaLo: 0x5c001000, rkey: 0x00c0ffee, dmaLength: 512 };
  const writeImm = withPayload(
    rocePacket(FrameKind.Data, Opcode.WriteOnlyImm, true, 0x00a0b3),
    new Uint8Array(33),
  );
  writeImm.reth = { vaHi: 1, vaLo: 0x2000, rkey: 0x1234, dmaLength: 33 };
  writeImm.immDt = 0xcafef00d;
  const ack = rocePacket(FrameKind.Ack, Opcode.Acknowledge, false, 0x00a0b3);
  ack.aeth = { syndrome: 0x1f, msn: 2 };
  const nak = rocePacket(FrameKind.Nak, Opcode.Acknowledge, false, 0x00a0b4);
  nak.aeth = { syndrome: nakSyndrome(0), msn: 2 };
  const rnr = rocePacket(FrameKind.Nak, Opcode.Acknowledge, false, 0x00a0b4);
  rnr.aeth = { syndrome: rnrNakSyndrome(14), msn: 2 };
  const cnp = rocePacket(FrameKind.Cnp, Opcode.Cnp, false, 0);
  cnp.becn = true;
  cnp.dscp = 48;
  cnp.prio = 6;
  cnp.bthResv7 = 5; // Dolce-RC mark count
  cnp.ext = { ...createExt(), cnpPeriodNs: 50_000 }; // DCQCN+ period in reserved bytes 0-3
  const ce = withPayload(rocePacket(FrameKind.Data, Opcode.SendFirst, true, 0x00a0c0), new Uint8Array(1000));
  ce.ecn = Ecn.Ce;
  ce.ttl = 63;
  const pause = createPacket();
  pause.kind = FrameKind.Pfc;
  pause.dstMac = PFC_DST_MAC;
  pause.srcMac = 0x02005e0000fe;
  pause.pfc = pfcBodyFor(3, 65535);
  pause.prio = 7;
  const resume = { ...pause, pfc: pfcBodyFor(3, 0) };
  const uc = withPayload(rocePacket(FrameKind.Data, 0x24, true, 0xcf1710), new Uint8Array(7));
  uc.migReq = true;
  uc.ecn = Ecn.Ect1;
  const cnm = createPacket();
  cnm.kind = FrameKind.Cnm;
  cnm.dstMac = A.mac;
  cnm.srcMac = 0x02005e000001;
  cnm.prio = 7;
  cnm.cnm = {
    flags: 1,
    flowId: 0x58ba,
    targetRateKbps: 12_500_000,
    cpId: 7,
    nHops: 3,
    hopsTraversed: 1,
    mActive: 8,
    MActive: 2,
    cpEgressPort: 4,
    qLenBytes: 123456,
    qCthRaw: -5,
    flowSrcIp: A.ip,
    flowDstIp: B.ip,
    flowSrcPort: 55407,
    flowDstPort: 4791,
    destQpn: B.qpn,
    triggerPsn: 0xa0b1,
    cpTimestampNs: 123_456_789,
  };
  const list = [
    { name: 'send only', pkt: send },
    { name: 'write first + RETH', pkt: writeFirst },
    { name: 'write only imm + RETH + ImmDt', pkt: writeImm },
    { name: 'ack', pkt: ack },
    { name: 'nak psn seq err', pkt: nak },
    { name: 'rnr nak', pkt: rnr },
    { name: 'cnp', pkt: cnp },
    { name: 'ecn-ce data', pkt: ce },
    { name: 'pfc pause', pkt: pause },
    { name: 'pfc resume', pkt: resume },
    { name: 'uc send only', pkt: uc },
    { name: 'cnm', pkt: cnm },
  ];
  for (const f of list) f.pkt.sizeBytes = emulatedSizeBytes(f.pkt);
  return list;
}

const FIELDS = [
  'frame.time_epoch',
  'eth.type',
  'infiniband.bth.opcode',
  'infiniband.bth.destqp',
  'infiniband.bth.psn',
  'ip.dsfield.ecn',
  'ip.dsfield.dscp',
  'macc.cbfc.enbv',
  'macc.cbfc.pause_time.c3',
  'infiniband.aeth.syndrome',
  'infiniband.aeth.msn',
  'infiniband.reth.va',
  'infiniband.reth.r_key',
  'infiniband.reth.dmalen',
  'infiniband.invariant.crc',
  'infiniband.reserved',
  'infiniband.bth.padcnt',
  'udp.dstport',
  'macc.opcode',
];
const BTH_FIELDS = ['infiniband.bth.opcode', 'infiniband.bth.destqp', 'infiniband.bth.psn'];

function writePcap(file: string, write: (w: PcapWriter) => void, chunkBytes?: number): Buffer {
  const chunks: Buffer[] = [];
  const w = new PcapWriter((c) => chunks.push(c), { chunkBytes });
  write(w);
  w.flush();
  const bytes = Buffer.concat(chunks);
  expect(bytes.length).toBe(w.bytes);
  writeFileSync(file, bytes);
  return bytes;
}

describe('pcap + tshark', () => {
  it('tshark is installed (the pcap tests need it; CI installs it)', () => {
    expect(requireTshark()).toMatch(/tshark$/);
  });

  it('tshark decodes one frame of each type to the opcode, QP, PSN and ECN we encoded (CNPs included)', () => {
    const list = frames();
    const file = path.join(dir, 'each-type.pcap');
    const timeNs = (i: number) => 1_000_000_000 * i + 1_000_123 * i + 7;
    const bytes = writePcap(
      file,
      (w) => {
        for (const [i, f] of list.entries()) w.writePacket(timeNs(i), f.pkt);
      },
      256,
    );
    expect(bytes.readUInt32LE(0)).toBe(PCAP_MAGIC_NS);

    const rows = tsharkFields(file, FIELDS);
    expect(rows.length).toBe(list.length);
    list.forEach((f, i) => {
      const row = Object.fromEntries(FIELDS.map((k, j) => [k, rows[i][j] ?? '']));
      const frame = encodeFrame(f.pkt);
      const t = timeNs(i);
      expect(row['frame.time_epoch'], f.name).toBe(
        `${Math.floor(t / 1e9)}.${String(t % 1e9).padStart(9, '0')}`,
      );
      const p = f.pkt;
      if (p.kind === FrameKind.Pfc) {
        for (const k of BTH_FIELDS) expect(row[k], `${f.name} ${k}`).toBe('');
        expect(row['macc.opcode']).toBe('0x0101');
        expect(row['macc.cbfc.enbv']).toBe('0x0008');
        expect(row['macc.cbfc.pause_time.c3']).toBe(String(p.pfc!.quanta[3]));
        return;
      }
      if (p.kind === FrameKind.Cnm) {
        expect(row['eth.type']).toBe('0x22e7');
        for (const k of BTH_FIELDS) expect(row[k], `${f.name} ${k}`).toBe('');
        return;
      }
      // the four the issue names, spelled out
      expect(row['infiniband.bth.opcode'], f.name).toBe(String(p.opcode));
      expect(row['infiniband.bth.destqp'], f.name).toBe(`0x${p.destQp.toString(16).padStart(6, '0')}`);
      expect(row['infiniband.bth.psn'], f.name).toBe(String(p.psn));
      expect(row['ip.dsfield.ecn'], f.name).toBe(String(p.ecn));
      // and every other field tshark shows, as predicted from the Packet
      for (const [k, v] of Object.entries(predictedTsharkFields(p, frame))) {
        expect({ frame: f.name, field: k, value: row[k] }).toEqual({ frame: f.name, field: k, value: v });
      }
    });
    // the CNP is recognisable by the documented filter
    const cnps = tsharkFields(
      file,
      ['frame.number'],
      ['-Y', 'infiniband.bth.opcode == 0x81 && infiniband.reserved == 40'],
    );
    expect(cnps.map((r) => Number(r[0]))).toEqual([list.findIndex((f) => f.name === 'cnp') + 1]);
    const ce = tsharkFields(file, ['frame.number'], ['-Y', 'ip.dsfield.ecn == 3']);
    expect(ce.map((r) => Number(r[0]))).toEqual([list.findIndex((f) => f.name === 'ecn-ce data') + 1]);
    // and our own reader gets the same packets back
    const parsed = parsePcap(readFileSync(file));
    if (isDecodeError(parsed)) throw new Error(parsed.message);
    expect(parsed.records.map((r) => decodeFrame(r.data))).toEqual(list.map((f) => f.pkt));
    expect(parsed.records.map((r) => r.timeNs)).toEqual(list.map((_, i) => timeNs(i)));
  });

  it('tshark decodes Geneve-encapsulated datagrams (outer 198.18.0.0/15, UDP 6081) down to the BTH', () => {
    const list = frames().filter((f) => f.pkt.kind !== FrameKind.Pfc);
    // telemetry on some of them, so options of several types are on the wire
    const data = list[0].pkt;
    data.id = 42;
    data.int = emptyHpccStack();
    pushHpccHop(data.int, {
      lineRateBps: 100e9,
      timeNs: 1000,
      txBytes: 12800,
      qlenBytes: 8000,
      activeFlows: 2,
    });
    data.ext = { ...createExt(), txTsNs: 123_456_789, fields: { mabIter: 7, arm: 2 } };
    const ack = list[3].pkt;
    ack.ext = { ...createExt(), tsEchoNs: 123_456_789, windowBytes: 65536 };
    const cnp = list.find((f) => f.name === 'cnp')!.pkt;
    cnp.ext = { ...cnp.ext!, ecnCount: 300 };
    for (const f of list) f.pkt.sizeBytes = emulatedSizeBytes(f.pkt);

    const src = parseIp('198.18.0.1')!;
    const dst = parseIp('198.18.0.2')!;
    const file = path.join(dir, 'geneve.pcap');
    writePcap(file, (w) => {
      for (const [i, f] of list.entries()) {
        w.writeEncapsulated(i * 1000, f.pkt, { ...outerHeaders(src, dst, 6081), ipId: i }, { vni: 4242 });
      }
    });
    const fields = [
      'ip.src',
      'udp.dstport',
      'geneve.vni',
      'infiniband.bth.opcode',
      'infiniband.bth.destqp',
      'infiniband.bth.psn',
      'ip.dsfield.ecn',
      'eth.type',
    ];
    const outerRows = tsharkFields(file, fields, [], 'f');
    const innerRows = tsharkFields(file, fields, [], 'l');
    expect(innerRows.length).toBe(list.length);
    list.forEach((f, i) => {
      const outer = Object.fromEntries(fields.map((k, j) => [k, outerRows[i][j] ?? '']));
      const inner = Object.fromEntries(fields.map((k, j) => [k, innerRows[i][j] ?? '']));
      expect(outer['ip.src'], f.name).toBe('198.18.0.1');
      expect(outer['udp.dstport'], f.name).toBe('6081');
      expect(outer['geneve.vni'], f.name).toBe('0x001092'); // 4242
      if (f.pkt.kind === FrameKind.Cnm) {
        expect(inner['eth.type'], f.name).toBe('0x22e7');
        return;
      }
      expect(inner['infiniband.bth.opcode'], f.name).toBe(String(f.pkt.opcode));
      expect(inner['infiniband.bth.destqp'], f.name).toBe(`0x${f.pkt.destQp.toString(16).padStart(6, '0')}`);
      expect(inner['infiniband.bth.psn'], f.name).toBe(String(f.pkt.psn));
      expect(inner['ip.dsfield.ecn'], f.name).toBe(String(f.pkt.ecn));
      expect(inner['ip.src'], f.name).toBe(f.pkt.srcIp === A.ip ? '10.0.0.1' : '10.0.0.2');
    });
    // tshark lists our option TLVs (class 0xfff0) on the data packet: HPCC INT, active flows, txTs, fields, meta
    const opts = tsharkFields(
      file,
      ['geneve.option.class', 'geneve.option.type'],
      ['-Y', 'frame.number == 1'],
      'a',
    );
    expect(opts[0][0].split(',').every((c) => c === '0xfff0')).toBe(true);
    expect(opts[0][1].split(',').map((t) => Number(t))).toEqual([0x01, 0x03, 0x10, 0x15, 0x20]);
    // and every datagram comes back as the Packet it was, telemetry included
    const parsed = parsePcap(readFileSync(file));
    if (isDecodeError(parsed)) throw new Error(parsed.message);
    parsed.records.forEach((r, i) => {
      const o = decodeOuterFrame(r.data);
      if (isDecodeError(o)) throw new Error(o.message);
      expect(decapsulate(o.payload)).toEqual(list[i].pkt);
    });
  });

  it('parses the shared golden pcaps, whose frames equal the JSON vectors', () => {
    for (const name of ['roce', 'overlay'] as const) {
      const pcap = parsePcap(readFileSync(sharedFile(`vectors/${name}.pcap`)));
      if (isDecodeError(pcap)) throw new Error(pcap.message);
      const json = loadVectors(`${name}.json`);
      expect(pcap.records.map((r) => toHex(r.data))).toEqual(
        json.vectors.map((v: { frame_hex: string }) => toHex(hex(v.frame_hex))),
      );
    }
  });

  it('chunked and unchunked writers produce the same bytes; big frames bypass the chunk', () => {
    const list = frames();
    const big = withPayload(rocePacket(FrameKind.Data, Opcode.SendOnly, true, 1), new Uint8Array(9000));
    const write = (w: PcapWriter) => {
      for (const [i, f] of list.entries()) w.writePacket(i, f.pkt);
      w.writePacket(99, big);
      w.writeFrame(100, encodeFrame(list[0].pkt));
    };
    const a = writePcap(path.join(dir, 'a.pcap'), write, 0);
    const b = writePcap(path.join(dir, 'b.pcap'), write, 1000);
    const c = writePcap(path.join(dir, 'c.pcap'), write);
    expect(b.equals(a)).toBe(true);
    expect(c.equals(a)).toBe(true);
  });
});
