/**
 * --pcap (the virtual runtime, and each real node for its own ports): every frame sent or
 * received on a port is encoded as its standard RoCEv2 frame and appended to
 * <dir>/<node>-p<port>.pcap (nanosecond timestamps = emulated time), like a capture on that
 * interface. Files are opened lazily, written
 * synchronously in 64 KiB chunks (the virtual runtime has no event loop to overlap with).
 */
import { closeSync, mkdirSync, openSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import type { TopologyNode } from '../topology/model.js';
import type { Packet } from '../wire/packet.js';
import { PcapWriter } from '../wire/pcap.js';
import type { LinkTap } from './virtual/fabric.js';

export interface PcapTap {
  tap: LinkTap;
  /** Flush and close every file; returns the paths written. */
  close(): string[];
  /** Frames that could not be encoded (firmware produced an impossible frame). */
  encodeErrors: number;
}

export function createPcapTap(dir: string): PcapTap {
  mkdirSync(dir, { recursive: true });
  const files = new Map<string, { fd: number; w: PcapWriter; path: string }>();
  const state: PcapTap = {
    encodeErrors: 0,
    tap: {},
    close() {
      const paths: string[] = [];
      for (const f of files.values()) {
        f.w.flush();
        closeSync(f.fd);
        paths.push(f.path);
      }
      files.clear();
      return paths.sort();
    },
  };
  const write = (node: TopologyNode, port: number, pkt: Packet, timeNs: number) => {
    const key = `${node.name}-p${port}`;
    let f = files.get(key);
    if (f === undefined) {
      const path = join(dir, `${key}.pcap`);
      const fd = openSync(path, 'w');
      f = { fd, path, w: new PcapWriter((chunk) => writeSync(fd, chunk)) };
      files.set(key, f);
    }
    try {
      f.w.writePacket(timeNs, pkt);
    } catch {
      state.encodeErrors++;
    }
  };
  state.tap = { onTx: write, onRx: write };
  return state;
}
