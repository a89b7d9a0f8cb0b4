/**
 * Golden vectors from the independent implementation (the vector files test/wire/shared.ts loads;
 * docs/wire.md, introduction): every frame decodes to the listed fields, and encoding those fields gives back
 * the exact bytes, ICRC included.
 */
import { describe, expect, it } from 'vitest';
import { fromHex, toHex } from '../../src/wire/bytes.js';
import { decapsulate, decapsulateVxlan, encapsulate, encapsulateVxlan } from '../../src/wire/encap.js';
import { isDecodeError } from '../../src/wire/errors.js';
import { macToString, parseMac } from '../../src/wire/ethernet.js';
import { decodeFrame, decodeIpv4Packet, encodeFrame } from '../../src/wire/frame.js';
import { computeIcrc, icrcInput } from '../../src/wire/icrc.js';
import {
  decodeHpccInt,
  emptyHpccStack,
  encodeHpccInt,
  HPCC_INT_BYTES,
  HPCC_QLEN_MODULO,
  HPCC_QLEN_UNIT,
  pushHpccHop,
  quantizeHpccHop,
} from '../../src/wire/int-hpcc.js';
import { ipToString, markCeInPlace, parseIp } from '../../src/wire/ipv4.js';
import { decodeOuterFrame, encodeOuterFrame } from '../../src/wire/outer.js';
import { type Ecn, FrameKind, type Packet } from '../../src/wire/packet.js';
import { createPacket } from '../../src/wire/packet-factory.js';
import { pfcQuantaToNs } from '../../src/wire/pfc.js';
import { hex, type Json, loadVectors, num } from './shared.js';
import { predictedTsharkFields } from './tshark.js';

const roce = loadVectors('roce.json');
const overlay = loadVectors('overlay.json');
const intHpcc = loadVectors('int_hpcc.json');

function decoded(buf: Uint8Array, opts?: Parameters<typeof decodeFrame>[1]): Packet {
  const p = decodeFrame(buf, opts);
  if (isDecodeError(p)) throw new Error(`decode failed: ${p.code}: ${p.message}`);
  return p;
}

/** The Packet the vector's listed fields describe, built without looking at the frame bytes. */
function packetFromFields(v: Json): Packet {
  const p = createPacket();
  const frame = hex(v.frame_hex);
  if (v.pfc !== undefined) {
    p.kind = FrameKind.Pfc;
    p.dstMac = parseMac(v.pfc.dst)!;
    // the JSON names no source MAC for PFC; it is the switch port's
    p.srcMac = parseMac('02:00:5e:00:00:fe')!;
    p.pfc = { classEnable: num(v.pfc.class_enable_vector), quanta: v.pfc.pause_quanta };
    p.prio = 7;
    return p;
  }
  const eth = v.eth ?? {};
  p.dstMac = eth.dst !== undefined ? parseMac(eth.dst)! : decoded(frame).dstMac;
  p.srcMac = eth.src !== undefined ? parseMac(eth.src)! : decoded(frame).srcMac;
  const ip = v.ipv4 ?? {};
  const bth = v.bth;
  p.srcIp = ip.src !== undefined ? parseIp(ip.src)! : decoded(frame).srcIp;
  p.dstIp = ip.dst !== undefined ? parseIp(ip.dst)! : decoded(frame).dstIp;
  const fallback = decoded(frame, { verifyChecksums: false });
  p.dscp = ip.dscp ?? fallback.dscp;
  p.ecn = (ip.ecn ?? fallback.ecn) as Ecn;
  p.ttl = ip.ttl ?? fallback.ttl;
  p.ipId = ip.id ?? fallback.ipId;
  p.srcPort = v.udp?.sport ?? fallback.srcPort;
  p.opcode = num(bth.opcode);
  p.solicitedEvent = (bth.se ?? 0) === 1;
  p.migReq = (bth.m ?? 0) === 1;
  p.pkey = num(bth.pkey ?? '0xffff');
  p.fecn = (bth.fecn ?? 0) === 1;
  p.becn = (bth.becn ?? 0) === 1;
  p.destQp = num(bth.destqp);
  p.ackReq = (bth.ackreq ?? 0) === 1;
  p.psn = num(bth.psn);
  p.prio = p.dscp >> 3;
  if (v.reth !== undefined) {
    const va = BigInt(v.reth.va);
    p.reth = {
      vaHi: Number(va >> 32n),
      vaLo: Number(va & 0xffffffffn),
      rkey: num(v.reth.rkey),
      dmaLength: v.reth.dma_length,
    };
  }
  if (v.aeth !== undefined) p.aeth = { syndrome: num(v.aeth.syndrome), msn: v.aeth.msn };
  if (p.opcode === 0x11) p.kind = v.aeth.kind === 'ACK' ? FrameKind.Ack : FrameKind.Nak;
  else if (p.opcode === 0x81) p.kind = FrameKind.Cnp;
  else p.kind = FrameKind.Data;
  if (p.kind === FrameKind.Data) {
    const pl = v.payload;
    let payload: Uint8Array;
    if (pl?.message_hex !== undefined) payload = fromHex(pl.message_hex)!;
    else if (pl?.pattern !== undefined) {
      const from = Number(/i=(\d+)\.\./.exec(pl.pattern)![1]);
      payload = Uint8Array.from({ length: pl.len }, (_, i) => (from + i) & 0xff);
    } else {
      // external frames list no payload: take the bytes between BTH and pad
      payload = fallback.payload!;
    }
    p.payload = payload;
    p.payloadLen = payload.length;
  }
  return p;
}

describe('roce.json', () => {
  it('has the 12 documented frames', () => {
    expect(roce.vectors.length).toBe(12);
  });

  for (const v of roce.vectors as Json[]) {
    describe(v.name, () => {
      const frame = hex(v.frame_hex);

      it('decodes to the listed fields', () => {
        const p = decoded(frame);
        expect(frame.length).toBe(v.frame_len);
        if (v.pfc !== undefined) {
          expect(p.kind).toBe(FrameKind.Pfc);
          expect(macToString(p.dstMac)).toBe(v.pfc.dst);
          expect(p.pfc).toEqual({ classEnable: num(v.pfc.class_enable_vector), quanta: v.pfc.pause_quanta });
          expect(pfcQuantaToNs(p.pfc!.quanta[3], 100e9)).toBe(Math.ceil(v.pfc.pause_time_at_100G_ns));
          return;
        }
        if (v.eth !== undefined) {
          expect(macToString(p.dstMac)).toBe(v.eth.dst);
          expect(macToString(p.srcMac)).toBe(v.eth.src);
        }
        const ip = v.ipv4;
        if (ip !== undefined) {
          expect(p.dscp).toBe(ip.dscp);
          expect(p.ecn).toBe(ip.ecn);
          expect(p.ttl).toBe(ip.ttl);
          expect(p.ipId).toBe(ip.id);
          expect(ipToString(p.srcIp)).toBe(ip.src);
          expect(ipToString(p.dstIp)).toBe(ip.dst);
          if (ip.checksum !== undefined) expect(frame.readUInt16BE(24)).toBe(num(ip.checksum));
          if (ip.total_length !== undefined) expect(frame.readUInt16BE(16)).toBe(ip.total_length);
        }
        if (v.udp !== undefined) {
          expect(p.srcPort).toBe(v.udp.sport);
          if (v.udp.length !== undefined) expect(frame.readUInt16BE(38)).toBe(v.udp.length);
        }
        const b = v.bth;
        expect(p.opcode).toBe(num(b.opcode));
        expect(p.destQp).toBe(num(b.destqp));
        expect(p.psn).toBe(num(b.psn));
        if (b.pkey !== undefined) expect(p.pkey).toBe(num(b.pkey));
        if (b.becn !== undefined) expect(p.becn).toBe(b.becn === 1);
        if (b.fecn !== undefined) expect(p.fecn).toBe(b.fecn === 1);
        if (b.ackreq !== undefined) expect(p.ackReq).toBe(b.ackreq === 1);
        if (b.se !== undefined) expect(p.solicitedEvent).toBe(b.se === 1);
        if (b.m !== undefined) expect(p.migReq).toBe(b.m === 1);
        if (b.padcnt !== undefined) expect((frame[43] >> 4) & 3).toBe(b.padcnt);
        if (v.reth !== undefined) {
          const va = BigInt(v.reth.va);
          expect(p.reth).toEqual({
            vaHi: Number(va >> 32n),
            vaLo: Number(va & 0xffffffffn),
            rkey: num(v.reth.rkey),
            dmaLength: v.reth.dma_length,
          });
        }
        if (v.aeth !== undefined) {
          expect(p.aeth).toEqual({ syndrome: num(v.aeth.syndrome), msn: v.aeth.msn });
          expect(p.kind).toBe(v.aeth.kind === 'ACK' ? FrameKind.Ack : FrameKind.Nak);
        }
        if (p.opcode === 0x81) {
          expect(p.kind).toBe(FrameKind.Cnp);
          expect(p.ext).toBeNull(); // 16 zero reserved bytes: no DCQCN+ period
        }
        if (v.payload?.message_hex !== undefined) expect(toHex(p.payload!)).toBe(v.payload.message_hex);
        if (v.payload?.len !== undefined) expect(p.payloadLen).toBe(v.payload.len);
      });

      it('encodes the listed fields to the exact bytes', () => {
        const p = packetFromFields(v);
        // scapy's UC regression frame carries a real UDP checksum; every NIC-made frame has 0
        const udpChecksum =
          v.udp?.checksum === undefined && frame.readUInt16BE(40) !== 0 && v.pfc === undefined;
        expect(toHex(encodeFrame(p, { udpChecksum }))).toBe(v.frame_hex);
      });

      it('decodes to what tshark showed (expect_tshark)', () => {
        const p = decoded(frame);
        const predicted = predictedTsharkFields(p, frame);
        for (const [field, value] of Object.entries(v.expect_tshark as Record<string, string>)) {
          expect({ field, value: predicted[field] }).toEqual({ field, value });
        }
      });

      if (v.icrc !== undefined) {
        it('has the listed ICRC and CRC input', () => {
          const icrcOff = frame.length - 4;
          expect(computeIcrc(frame, 14, icrcOff)).toBe(num(v.icrc.crc32_value));
          expect(toHex(frame.subarray(icrcOff))).toBe(v.icrc.wire_bytes);
          expect(toHex(icrcInput(frame, 14, icrcOff))).toBe(v.icrc.crc_input_hex);
          if (v.udp_payload_hex !== undefined) expect(toHex(frame.subarray(42))).toBe(v.udp_payload_hex);
        });
      }
    });
  }

  it('a switch CE-marking rc_send_only in place produces rc_send_only_ecn_ce (ICRC untouched)', () => {
    const find = (n: string) => (roce.vectors as Json[]).find((x) => x.name === n);
    const frame = hex(find('rc_send_only').frame_hex);
    expect(markCeInPlace(frame, 14)).toBe(true);
    expect(toHex(frame)).toBe(find('rc_send_only_ecn_ce').frame_hex);
  });
});

describe('overlay.json', () => {
  const byName = (n: string): Json => (overlay.vectors as Json[]).find((x) => x.name === n);
  const sendOnly = hex((roce.vectors as Json[]).find((x) => x.name === 'rc_send_only').frame_hex);
  const expectFields = (p: Packet, v: Json) => {
    const e = v.expect_tshark;
    expect(p.ecn).toBe(Number(e['ip.dsfield.ecn']));
    expect(p.opcode).toBe(Number(e['infiniband.bth.opcode']));
    expect(p.destQp).toBe(num(e['infiniband.bth.destqp']));
    expect(p.psn).toBe(Number(e['infiniband.bth.psn']));
  };

  it('has the 5 documented frames', () => {
    expect(overlay.vectors.map((v: Json) => v.name)).toEqual([
      'bth_on_udp_14791',
      'vxlan4789_inner_rc_send_only',
      'vxlan14789_inner_rc_send_only',
      'ipv4_in_udp_24791',
      'geneve6081_int_option_inner_rc_send_only',
    ]);
  });

  for (const name of ['vxlan4789_inner_rc_send_only', 'vxlan14789_inner_rc_send_only']) {
    it(`${name}: outer frame, VXLAN and inner frame decode and re-encode byte-identically`, () => {
      const v = byName(name);
      const frame = hex(v.frame_hex);
      const outer = decodeOuterFrame(frame);
      if (isDecodeError(outer)) throw new Error(outer.message);
      expect(outer.outer.dstPort).toBe(name.includes('14789') ? 14789 : 4789);
      if (v.outer_udp_payload_hex !== undefined) expect(toHex(outer.payload)).toBe(v.outer_udp_payload_hex);
      const p = decapsulateVxlan(outer.payload);
      if (isDecodeError(p)) throw new Error(p.message);
      expectFields(p, v);
      expect(toHex(encodeFrame(p))).toBe(toHex(sendOnly));
      const again = encodeOuterFrame(
        encapsulateVxlan(p, { vni: Buffer.from(outer.payload).readUIntBE(4, 3) }),
        outer.outer,
      );
      expect(toHex(again)).toBe(v.frame_hex);
    });
  }

  it('geneve6081_int_option_inner_rc_send_only: decodes with its INT and re-encodes byte-identically', () => {
    const v = byName('geneve6081_int_option_inner_rc_send_only');
    const frame = hex(v.frame_hex);
    const outer = decodeOuterFrame(frame);
    if (isDecodeError(outer)) throw new Error(outer.message);
    expect(outer.outer.dstPort).toBe(6081);
    const p = decapsulate(outer.payload);
    if (isDecodeError(p)) throw new Error(`${p.code}: ${p.message}`);
    expectFields(p, v);
    const want = (intHpcc.vectors as Json[]).find((x) => x.name === 'int_3hops');
    expect(p.int?.layout).toBe('hpcc');
    expect(p.int?.nhop).toBe(want.nhop);
    expect(p.int?.hops.map((h) => [h.timeNs, h.txBytes, h.qlenBytes])).toEqual(
      want.slots.slice(0, 3).map((s: Json) => [s.time_ns, s.tx_bytes_decoded, s.qlen_bytes_decoded]),
    );
    expect(p.sizeBytes).toBe(74 + 4 + HPCC_INT_BYTES);
    const again = encodeOuterFrame(encapsulate(p, { vni: 100 }), outer.outer);
    expect(toHex(again)).toBe(v.frame_hex);
  });

  it('bth_on_udp_14791: decodes with the RoCE port set to 14791 and re-encodes', () => {
    const v = byName('bth_on_udp_14791');
    const frame = hex(v.frame_hex);
    expect(decodeFrame(frame)).toMatchObject({ code: 'unknown-port' });
    const p = decoded(frame, { roceUdpPort: 14791 });
    expectFields(p, v);
    expect(toHex(frame.subarray(42))).toBe(v.udp_payload_hex);
    expect(toHex(encodeFrame(p, { udpDstPort: 14791 }))).toBe(v.frame_hex);
  });

  it('ipv4_in_udp_24791: the inner IPv4 packet decodes at offset 42', () => {
    const v = byName('ipv4_in_udp_24791');
    const frame = hex(v.frame_hex);
    const outer = decodeOuterFrame(frame);
    if (isDecodeError(outer)) throw new Error(outer.message);
    expect(outer.payloadOffset).toBe(42);
    expect(outer.outer.dstPort).toBe(24791);
    const p = decodeIpv4Packet(outer.payload);
    if (isDecodeError(p)) throw new Error(p.message);
    expectFields(p, v);
    expect(toHex(encodeFrame(p).subarray(14))).toBe(toHex(outer.payload));
    expect(toHex(encodeOuterFrame(outer.payload, outer.outer))).toBe(v.frame_hex);
  });
});

describe('int_hpcc.json', () => {
  for (const v of intHpcc.vectors as Json[]) {
    it(`${v.name}: pushes encode to the simulator's bytes and decode to its slots`, () => {
      const stack = emptyHpccStack();
      for (const push of v.pushes) {
        pushHpccHop(stack, {
          lineRateBps: push.rate_bps,
          timeNs: push.time_ns,
          txBytes: push.tx_bytes,
          qlenBytes: push.qlen_bytes,
          activeFlows: 0,
        });
      }
      expect(stack.nhop).toBe(v.nhop);
      const buf = new Uint8Array(HPCC_INT_BYTES);
      encodeHpccInt(buf, 0, stack, v.multi);
      expect(toHex(buf)).toBe(v.hex);
      const rates = [25e9, 50e9, 100e9, 200e9, 400e9];
      for (const s of v.slots as Json[])
        expect(toHex(buf.subarray(8 * s.slot, 8 * s.slot + 8))).toBe(s.bytes_hex);

      const back = decodeHpccInt(hex(v.hex), 0, v.multi);
      if (isDecodeError(back)) throw new Error(back.message);
      expect(back.nhop).toBe(v.nhop);
      expect(back.hops.length).toBe(Math.min(v.nhop, 5));
      back.hops.forEach((h, i) => {
        const s = v.slots[i];
        expect(h).toEqual({
          lineRateBps: rates[s.lineRate_code],
          timeNs: s.time_ns,
          txBytes: s.tx_bytes_decoded,
          qlenBytes: s.qlen_bytes_decoded,
          activeFlows: 0,
        });
      });
      // re-encoding the decoded (quantised) stack gives the same bytes
      const again = new Uint8Array(HPCC_INT_BYTES);
      encodeHpccInt(again, 0, back, v.multi);
      expect(toHex(again)).toBe(v.hex);
      // quantizeHpccHop predicts exactly what the receiver reads from the hop word, except the
      // queue units past its 17 bits: the simulator's bitfield drops them (a queue of 2^17 units
      // reads as 0), ours carries them in option 0x04 (docs/wire.md §2.1).
      const slot = (v.nhop - 1) % 5;
      const last = v.pushes[v.pushes.length - 1];
      const q = quantizeHpccHop(
        {
          lineRateBps: last.rate_bps,
          timeNs: last.time_ns,
          txBytes: last.tx_bytes,
          qlenBytes: last.qlen_bytes,
          activeFlows: 0,
        },
        v.multi,
      );
      const unit = HPCC_QLEN_UNIT * v.multi;
      expect(q.qlenBytes).toBe(Math.floor(last.qlen_bytes / unit) * unit);
      expect({ ...q, qlenBytes: q.qlenBytes % (HPCC_QLEN_MODULO * unit) }).toEqual(back.hops[slot]);
    });
  }
});
