/** tshark helpers: locate it (loudly), run field extraction, and predict its fields from a Packet. */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { toHex } from '../../src/wire/bytes.js';
import { FrameKind, type Packet } from '../../src/wire/packet.js';
import { rethVa } from '../../src/wire/reth.js';

/** Path of tshark; throws (never skips) when missing, since CI installs it. */
export function requireTshark(): string {
  for (const p of ['/usr/bin/tshark', '/usr/local/bin/tshark']) if (existsSync(p)) return p;
  try {
    const found = execFileSync('sh', ['-c', 'command -v tshark'], { encoding: 'utf8' }).trim();
    if (found !== '') return found;
  } catch {
    // fall through to the loud failure
  }
  throw new Error(
    'tshark NOT FOUND: the wire tests decode our pcaps with tshark and cannot run without it. ' +
      'Install it with `apt-get install -y tshark` (CI does this in .ci/run).',
  );
}

/** One row per frame, one column per field (innermost occurrence, as -E occurrence=l gives). */
export function tsharkFields(
  file: string,
  fields: string[],
  extraArgs: string[] = [],
  occurrence = 'l',
): string[][] {
  const tshark = requireTshark();
  const args = ['-n', '-r', file, '-T', 'fields', '-E', `occurrence=${occurrence}`, '-E', 'aggregator=,'];
  for (const f of fields) args.push('-e', f);
  const out = execFileSync(tshark, [...args, ...extraArgs], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, HOME: process.env.HOME ?? '/tmp' },
  });
  return out
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => l.split('\t'));
}

const hex6 = (v: number) => `0x${v.toString(16).padStart(6, '0')}`;

/**
 * What tshark 4.0 prints for these fields, derived from our Packet and frame (docs/wire.md §8 What tshark
 * shows).
 */
export function predictedTsharkFields(pkt: Packet, frame: Uint8Array): Record<string, string> {
  if (pkt.kind === FrameKind.Pfc) {
    const f: Record<string, string> = {
      'macc.opcode': '0x0101',
      'macc.cbfc.enbv': `0x${pkt.pfc!.classEnable.toString(16).padStart(4, '0')}`,
    };
    for (let i = 0; i < 8; i++) {
      if ((pkt.pfc!.classEnable >> i) & 1) f[`macc.cbfc.pause_time.c${i}`] = String(pkt.pfc!.quanta[i]);
    }
    return f;
  }
  if (pkt.kind === FrameKind.Cnm || pkt.kind === FrameKind.Sync) return {};
  const f: Record<string, string> = {
    'ip.dsfield.dscp': String(pkt.dscp),
    'ip.dsfield.ecn': String(pkt.ecn),
    'udp.dstport': '4791',
    'infiniband.bth.opcode': String(pkt.opcode),
    'infiniband.bth.destqp': hex6(pkt.destQp),
    'infiniband.bth.psn': String(pkt.psn),
    'infiniband.reserved': (frame[46] & 0xc0).toString(16).padStart(2, '0'),
  };
  f['infiniband.bth.padcnt'] = String((frame[43] >> 4) & 3);
  if (pkt.kind !== FrameKind.Cnp)
    f['infiniband.invariant.crc'] = `0x${toHex(frame.subarray(frame.length - 4))}`;
  if (pkt.reth !== null) {
    f['infiniband.reth.va'] = `0x${rethVa(pkt.reth).toString(16).padStart(16, '0')}`;
    f['infiniband.reth.r_key'] = `0x${pkt.reth.rkey.toString(16).padStart(8, '0')}`;
    f['infiniband.reth.dmalen'] = String(pkt.reth.dmaLength);
  }
  if (pkt.aeth !== null) {
    f['infiniband.aeth.syndrome'] = String(pkt.aeth.syndrome);
    f['infiniband.aeth.msn'] = String(pkt.aeth.msn);
  }
  return f;
}
