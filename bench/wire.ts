/**
 * Wire codec throughput: encode/decode rates for the three frames every run is made of, the
 * header-only path a switch or capture filter would use, Geneve encapsulation, and pcap writing.
 * Single core, one frame at a time (the way the real runtime calls the codecs).
 */
import { closeSync, openSync, rmSync, writeSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { decapsulate, encapsulate } from '../src/wire/encap.js';
import { decodeFrame, encodeFrame, encodeFrameInto } from '../src/wire/frame.js';
import { emptyHpccStack, pushHpccHop } from '../src/wire/int-hpcc.js';
import { Opcode } from '../src/wire/opcodes.js';
import { Ecn, FrameKind, type Packet } from '../src/wire/packet.js';
import { createExt, createPacket } from '../src/wire/packet-factory.js';
import { PcapWriter } from '../src/wire/pcap.js';
import { TrainReader, TrainWriter } from '../src/wire/train.js';
import { FrameView } from '../src/wire/view.js';

/**
 * Calls per second of `fn`: the best of several timed trials after a warm-up, so one GC pause or
 * a not-yet-optimised first trial does not decide the number.
 */
function rate(fn: () => number, trials = 5, trialMs = 120): number {
  let sink = 0;
  for (let i = 0; i < 5000; i++) sink += fn(); // warm-up: let V8 optimise
  let best = 0;
  for (let t = 0; t < trials; t++) {
    let n = 0;
    let batch = 500;
    const t0 = performance.now();
    let elapsed = 0;
    while (elapsed < trialMs) {
      for (let i = 0; i < batch; i++) sink += fn();
      n += batch;
      batch *= 2;
      elapsed = performance.now() - t0;
    }
    best = Math.max(best, (n * 1000) / elapsed);
  }
  if (sink === Number.MIN_VALUE) console.log(sink); // keeps the work observable
  return best;
}

function base(kind: FrameKind, opcode: number): Packet {
  const p = createPacket();
  p.kind = kind;
  p.opcode = opcode;
  p.dstMac = 0x02000a000002;
  p.srcMac = 0x02000a000001;
  p.srcIp = 0x0a000001;
  p.dstIp = 0x0a000002;
  p.srcPort = 55407;
  p.destQp = 0x22b3;
  p.psn = 0xa0b1;
  p.dscp = 26;
  p.ecn = Ecn.Ect0;
  p.prio = 3;
  return p;
}

export function benchPackets(): { data: Packet; ack: Packet; cnp: Packet } {
  const data = base(FrameKind.Data, Opcode.SendMiddle);
  data.payloadLen = 1000;
  data.payload = Uint8Array.from({ length: 1000 }, (_, i) => i & 0xff);
  const ack = base(FrameKind.Ack, Opcode.Acknowledge);
  ack.aeth = { syndrome: 0x1f, msn: 7 };
  const cnp = base(FrameKind.Cnp, Opcode.Cnp);
  cnp.becn = true;
  cnp.dscp = 48;
  cnp.ext = { ...createExt(), cnpPeriodNs: 50_000 };
  return { data, ack, cnp };
}

const fmt = (perSec: number) => `${(perSec / 1e6).toFixed(2)} M/s`.padStart(11);

export async function benchWire(): Promise<void> {
  const { data, ack, cnp } = benchPackets();
  const pool = Buffer.allocUnsafe(2048);
  console.log('wire codecs (single core, one frame per call)');
  console.log('  frame            bytes   encode     into-pool   decode     enc+dec    header-only');
  for (const [name, pkt] of [
    ['data 1000 B', data],
    ['ack', ack],
    ['cnp', cnp],
  ] as const) {
    const frame = encodeFrame(pkt);
    const enc = rate(() => encodeFrame(pkt).length);
    const into = rate(() => encodeFrameInto(pkt, pool, 0));
    const dec = rate(() => {
      const p = decodeFrame(frame);
      return 'code' in p ? 0 : p.psn;
    });
    const both = rate(() => {
      const p = decodeFrame(encodeFrame(pkt));
      return 'code' in p ? 0 : p.psn;
    });
    const hdr = rate(() => {
      const p = decodeFrame(frame, { verifyIcrc: false, payload: 'drop' });
      return 'code' in p ? 0 : p.psn;
    });
    console.log(
      `  ${name.padEnd(14)} ${String(frame.length).padStart(6)} ${fmt(enc)} ${fmt(into)} ${fmt(dec)} ${fmt(both)} ${fmt(hdr)}`,
    );
  }

  const frame = encodeFrame(data);
  const view = new FrameView();
  const viewRate = rate(() => (view.reset(frame) ? view.psn + view.destQp + view.ecn : 0));
  const hdrRate = rate(() => {
    const p = decodeFrame(frame, { verifyIcrc: false, payload: 'drop' });
    return 'code' in p ? 0 : p.psn;
  });
  console.log(
    `  header-only decode of the data frame: decodeFrame ${fmt(hdrRate)}, FrameView ${fmt(viewRate)} ` +
      `(target ≥ 2 M/s per core: ${hdrRate >= 2e6 ? 'met' : 'NOT met'})`,
  );

  const rich = { ...data, id: 12345 };
  rich.int = emptyHpccStack();
  for (let h = 0; h < 3; h++) {
    pushHpccHop(rich.int, {
      lineRateBps: 100e9,
      timeNs: 1000 * h,
      txBytes: 128 * h,
      qlenBytes: 80 * h,
      activeFlows: 0,
    });
  }
  rich.ext = { ...createExt(), txTsNs: 987_654_321 };
  const dgram = encapsulate(rich, { vni: 1 });
  const encap = rate(() => encapsulate(rich, { vni: 1 }).length);
  const decap = rate(() => {
    const p = decapsulate(dgram);
    return 'code' in p ? 0 : p.psn;
  });
  console.log(
    `  Geneve (data 1000 B + HPCC INT + txTs, ${dgram.length} B): encapsulate ${fmt(encap)}, decapsulate ${fmt(decap)}`,
  );

  // Trains: frames per second through TrainWriter (8 frames a datagram, each stamped, a promise
  // per datagram) and back through TrainReader + decapsulate, against one datagram per frame.
  const TRAIN = 8;
  const writer = new TrainWriter({ maxDatagramBytes: 65507 });
  let seq = 0;
  for (const [name, pkt] of [
    ['ack', ack],
    ['data 1000 B', data],
  ] as const) {
    const one = rate(() => encapsulate(pkt, { vni: 1, arrivalNs: 1000, linkSeq: seq++ }).length);
    const packed = rate(() => {
      writer.begin(1, seq++);
      for (let i = 0; i < TRAIN; i++) writer.append(pkt, 1000 + i);
      return writer.finish(5000).length;
    });
    writer.begin(1, 0);
    for (let i = 0; i < TRAIN; i++) writer.append(pkt, 1000 + i);
    const train = writer.finish(5000);
    const single = encapsulate(pkt, { vni: 1, arrivalNs: 1000, linkSeq: 0 });
    const reader = new TrainReader();
    const readOne = rate(() => {
      const p = decapsulate(single, { payload: 'drop' });
      return 'code' in p ? 0 : p.psn;
    });
    const readTrain = rate(() => {
      if (reader.reset(train) !== null) return 0;
      let n = 0;
      for (let i = 0; i < reader.count; i++) {
        const p = decapsulate(reader.packet(i), { payload: 'drop' });
        if (!('code' in p)) n += p.psn;
      }
      return n;
    });
    console.log(
      `  ${name} frames, one datagram each vs trains of ${TRAIN} (${train.length} B): ` +
        `encode ${fmt(one)} vs ${fmt(packed * TRAIN)} frames/s, decode ${fmt(readOne)} vs ${fmt(readTrain * TRAIN)} frames/s`,
    );
  }

  // pcap: in memory (pure codec + record cost) and to a file through fs.writeSync
  const frames = 200_000;
  let bytes = 0;
  const mem = new PcapWriter((c) => {
    bytes += c.length;
  });
  let t0 = performance.now();
  for (let i = 0; i < frames; i++) mem.writePacket(i * 100, data);
  mem.flush();
  let s = (performance.now() - t0) / 1000;
  console.log(
    `  pcap to memory: ${(frames / s / 1e6).toFixed(2)} M frames/s, ${(bytes / s / 1e6).toFixed(0)} MB/s (${frame.length}-byte frames)`,
  );
  const file = path.join(os.tmpdir(), `rocelab-bench-${process.pid}.pcap`);
  const fd = openSync(file, 'w');
  try {
    const disk = new PcapWriter((c) => {
      writeSync(fd, c);
    });
    t0 = performance.now();
    for (let i = 0; i < frames; i++) disk.writePacket(i * 100, data);
    disk.flush();
    s = (performance.now() - t0) / 1000;
    console.log(
      `  pcap to file:   ${(frames / s / 1e6).toFixed(2)} M frames/s, ${(disk.bytes / s / 1e6).toFixed(0)} MB/s (${(disk.bytes / 1e6).toFixed(0)} MB written)`,
    );
  } finally {
    closeSync(fd);
    rmSync(file, { force: true });
  }
}
