/**
 * Acceptance (d): tshark capturing on loopback while a local run goes decodes the testbed's
 * datagrams (Geneve on UDP 6081, no decode-as needed) down to the RoCE BTH, shows CNPs and
 * ECN-CE marked data, and every captured inner frame passes the project's ICRC check. Capturing
 * on lo needs root (CI runs as root); when tshark cannot capture this test FAILS, it never skips.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LocalRun } from '../../src/runtime/local/launcher.js';
import { decapsulate } from '../../src/wire/encap.js';
import { decodeOuterFrame } from '../../src/wire/outer.js';
import { FrameKind } from '../../src/wire/packet.js';
import { parsePcap } from '../../src/wire/pcap.js';
import { TrainReader } from '../../src/wire/train.js';
import { requireTshark } from '../wire/tshark.js';
import { ensureBuilt, INCAST_4TO1, ROOT, scenario, survivors, tmp } from './helpers.js';

beforeAll(() => ensureBuilt());

let capture: ChildProcess | null = null;
afterAll(() => {
  if (capture !== null && capture.exitCode === null) capture.kill('SIGKILL');
});

/** Start tshark on lo; resolves once it reports that it is capturing. */
function startCapture(tshark: string, filter: string, file: string): Promise<ChildProcess> {
  return new Promise((resolve, reject) => {
    const p = spawn(tshark, ['-i', 'lo', '-f', filter, '-F', 'pcap', '-w', file], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let err = '';
    const timer = setTimeout(
      () => reject(new Error(`tshark did not start capturing on lo within 15 s: ${err}`)),
      15_000,
    );
    p.stderr!.on('data', (d: Buffer) => {
      err += d.toString();
      if (err.includes('Capturing on')) {
        clearTimeout(timer);
        resolve(p);
      }
    });
    p.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`tshark cannot capture on lo (exit ${code}; root needed): ${err.trim()}`));
    });
  });
}

describe('tshark on the live testbed', () => {
  it('decodes the datagrams to the RoCE BTH with valid ICRC, and shows CNPs and ECN-CE data', async () => {
    const tshark = requireTshark();
    const dir = tmp();
    const file = join(dir, 'lo.pcap');
    const run = await LocalRun.create({
      // Every link through the socket: standard Geneve on lo for every frame (in memory, a process's
      // own links skip the kernel and what goes between processes leaves in bundles, which only
      // rocelab.lua decodes: test/wire/wireshark.test.ts).
      scenario: scenario(INCAST_4TO1, ['timeScale=20000', 'inProcessLinks=socket']),
      outDir: dir,
      print: null,
      metricsPort: null,
    });
    const net = run.addresses.h1.replace(/\.\d+:\d+$/, '.0/24');
    capture = await startCapture(tshark, `udp port 6081 and net ${net}`, file);
    const pids: number[] = [];
    const out = await run.run();
    for (const p of run.coordinator.pids()) pids.push(p);
    await new Promise((r) => setTimeout(r, 500));
    const exited = new Promise((r) => capture!.once('exit', r));
    capture.kill('SIGINT');
    await exited;
    capture = null;

    const rows = execFileSync(
      tshark,
      [
        '-n',
        '-r',
        file,
        '-T',
        'fields',
        '-E',
        'occurrence=l',
        '-e',
        'geneve.vni',
        '-e',
        'infiniband.bth.opcode',
        '-e',
        'ip.dsfield.ecn',
        '-e',
        'eth.type',
        '-e',
        'geneve.flags.oam',
      ],
      { encoding: 'utf8', maxBuffer: 64 << 20 },
    )
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => l.split('\t'));
    const roce = rows.filter((r) => r[1] !== '');
    const cnps = roce.filter((r) => r[1] === '129');
    const ceData = roce.filter((r) => Number(r[1]) <= 10 && r[2] === '3');
    const sync = rows.filter((r) => r[1] === '' && r[3].split(',').includes('0x88b5'));
    // Lockstep null messages: Geneve control (OAM) packets with our options and no inner frame.
    const control = rows.filter((r) => r[1] === '' && (r[4] === 'True' || r[4] === '1'));

    // ICRC of every captured inner frame, checked by the project's decoder.
    const pcap = parsePcap(readFileSync(file));
    if ('code' in pcap) throw new Error(`capture unreadable: ${pcap.message}`);
    // Every Geneve packet of every datagram: a train carries several frames.
    let ok = 0;
    let badIcrc = 0;
    let other = 0;
    let trains = 0;
    let firstFrames = 0;
    const reader = new TrainReader();
    for (const rec of pcap.records) {
      const outer = decodeOuterFrame(rec.data);
      if ('code' in outer || reader.reset(outer.payload) !== null) {
        other++;
        continue;
      }
      if (reader.control) continue;
      if (reader.count > 1) trains++;
      for (let i = 0; i < reader.count; i++) {
        const pkt = decapsulate(reader.packet(i), { verifyIcrc: true, payload: 'drop' });
        if ('code' in pkt) {
          if (pkt.code === 'bad-icrc') badIcrc++;
          else other++;
        } else if (pkt.kind !== FrameKind.Sync) {
          ok++;
          if (i === 0) firstFrames++;
        }
      }
    }

    // Our dissector on the same capture: every inner frame of every train decodes to the BTH.
    const lua = execFileSync(
      tshark,
      [
        '-n',
        '--disable-heuristic',
        'rpcrdma_infiniband',
        '-X',
        `lua_script:${join(ROOT, 'deploy', 'wireshark', 'rocelab.lua')}`,
        '-r',
        file,
        '-T',
        'fields',
        '-E',
        'occurrence=a',
        '-E',
        'aggregator=|',
        '-e',
        'infiniband.bth.opcode',
        '-e',
        '_ws.expert.message',
      ],
      { encoding: 'utf8', maxBuffer: 64 << 20, env: { ...process.env, HOME: process.env.HOME ?? '/tmp' } },
    )
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => l.split('\t'));
    const luaBth = lua.reduce((n, r) => n + (r[0] === '' ? 0 : r[0].split('|').length), 0);
    const luaExpert = lua.filter((r) => (r[1] ?? '') !== '').length;
    console.log(
      `rocelab.lua on the capture: ${luaBth} inner frames decoded to the BTH (of ${ok} RoCE frames; ${trains} datagrams were trains), ${luaExpert} expert messages`,
    );

    console.log(
      `tshark: ${rows.length} datagrams captured on lo, ${roce.length} decoded to the BTH (${cnps.length} CNPs, ${ceData.length} CE-marked data), ` +
        `${sync.length} clock-sync frames, ${control.length} lockstep control packets; ICRC valid on ${ok}, bad ${badIcrc}, undecodable ${other}`,
    );
    expect(out.results.summary.flowsCompleted).toBe(4);
    expect(rows.length).toBeGreaterThan(500);
    // everything but the clock-sync frames and lockstep control packets decodes to a BTH (the
    // built-in dissector sees the first frame of a train)
    expect(roce.length + sync.length + control.length).toBe(rows.length);
    expect(roce.length).toBe(firstFrames);
    expect(trains).toBeGreaterThan(0);
    expect(luaBth).toBe(ok);
    expect(luaExpert).toBe(0);
    expect(control.length).toBeGreaterThan(0);
    expect(cnps.length).toBeGreaterThan(0);
    expect(ceData.length).toBeGreaterThan(0);
    expect(badIcrc).toBe(0);
    expect(other).toBe(0);
    expect(await survivors(pids)).toEqual([]);
  });
});
