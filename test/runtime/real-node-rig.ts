/**
 * Pieces of a real node for tests that drive RealNodeEnv without a network: a UDP socket that
 * hands what is sent to the test (and receives what the test emits as 'message'), and a switch
 * node s1 with two 100 Gbit/s, 1 µs ports towards peers a and b.
 */
import type { Socket } from 'node:dgram';
import { EventEmitter } from 'node:events';
import type { TopologyNode } from '../../src/topology/model.js';

export function fakeSocket(onSend: (buf: Buffer, port: number, host: string) => void): Socket {
  return Object.assign(new EventEmitter(), {
    send(buf: Buffer, port: number, host: string) {
      onSend(buf, port, host);
    },
  }) as unknown as Socket;
}

export function twoPortSwitch(): TopologyNode {
  return {
    name: 's1',
    kind: 'switch',
    index: 0,
    ip: 0,
    ports: ['a', 'b'].map((peer, i) => ({
      index: i,
      mac: 0x020000000000 + i,
      rateBps: 100e9,
      delayNs: 1000,
      peerNode: peer,
      peerPort: 0,
    })),
  };
}
