/** The CP plug-in hook (switch/cp.ts): pipeline positions, consuming frames, control sends. */
import { describe, expect, it } from 'vitest';
import { FrameKind, type Packet } from '../../src/wire/packet.js';
import { createPacket } from '../../src/wire/packet-factory.js';
import { emulatedSizeBytes } from '../../src/wire/size.js';
import type { SwitchCpFactory } from '../../switch/cp.js';
import { createSwitch } from '../../switch/switch.js';
import { baseConfig, dataPkt, G, hostIp, makeWorld, portCfg } from './harness.js';

function cnmFor(flowSrcIp: number): Packet {
  const p = createPacket();
  p.kind = FrameKind.Cnm;
  p.prio = 7;
  p.dstIp = flowSrcIp;
  p.cnm = {
    flags: 0,
    flowId: 42,
    targetRateKbps: 1000,
    cpId: 1,
    nHops: 1,
    hopsTraversed: 0,
    mActive: 1,
    MActive: 1,
    cpEgressPort: 1,
    qLenBytes: 0,
    qCthRaw: 0,
    flowSrcIp,
    flowDstIp: hostIp(1),
    flowSrcPort: 0xc000,
    flowDstPort: 4791,
    destQpn: 17,
    triggerPsn: 0,
    cpTimestampNs: 0,
  };
  p.sizeBytes = emulatedSizeBytes(p);
  return p;
}

describe('CP plug-ins', () => {
  it('run at ingress (before TTL/MAC rewrite), enqueue and dequeue (after ECN/INT), in list order', () => {
    const w = makeWorld();
    const log: string[] = [];
    const mk =
      (tag: string): SwitchCpFactory =>
      (io) => ({
        name: tag,
        onIngress: (pkt, inPort, outPort) => {
          log.push(`${tag} in ${inPort}->${outPort} ttl=${pkt.ttl} q=${io.queueBytesOf(outPort, 3)}`);
          return undefined;
        },
        onEnqueue: (pkt, outPort, queue) =>
          log.push(`${tag} enq ${outPort}/${queue} ttl=${pkt.ttl} src=${pkt.srcMac}`),
        onDequeue: (pkt, outPort, queue) => log.push(`${tag} deq ${outPort}/${queue} nhop=${pkt.int?.nhop}`),
      });
    const sw = createSwitch(w.env, baseConfig({ cp: [mk('a'), mk('b')] }));
    sw.receive(0, dataPkt({ ttl: 10, int: { layout: 'hpcc', nhop: 0, hops: [] } }));
    w.sched.run();
    const mac = 0x020000000001;
    expect(log).toEqual([
      'a in 0->1 ttl=10 q=0',
      'b in 0->1 ttl=10 q=0',
      `a enq 1/3 ttl=9 src=${mac}`,
      `b enq 1/3 ttl=9 src=${mac}`,
      'a deq 1/3 nhop=1',
      'b deq 1/3 nhop=1',
    ]);
  });

  it('can consume frames and relay them on the control class (SRCC-style CNM relay)', () => {
    const w = makeWorld();
    const cfg = baseConfig({ ports: [portCfg(10 * G, 0), portCfg(10 * G, 1)] });
    // Learn the previous hop of every data flow; send CNMs back the way the flow came.
    const relay: SwitchCpFactory = (io) => {
      const table = new Map<number, { inPort: number; prevMac: number }>();
      return {
        name: 'relay',
        onIngress(pkt, inPort) {
          if (pkt.kind === FrameKind.Data) table.set(pkt.srcPort, { inPort, prevMac: pkt.srcMac });
          if (pkt.kind !== FrameKind.Cnm) return undefined;
          const ent = table.get(pkt.cnm!.flowSrcPort);
          if (ent === undefined) {
            io.count('cnmNoEntry');
            return true;
          }
          pkt.srcMac = io.portMac(ent.inPort);
          pkt.dstMac = ent.prevMac;
          io.sendControl(ent.inPort, pkt);
          io.count('cnmRelayed');
          return true;
        },
      };
    };
    cfg.cp = [relay];
    const sw = createSwitch(w.env, cfg);
    // Reverse-direction data queued on port 0, then a CNM for the forward flow: it must go first.
    const fwd = dataPkt({ srcPort: 0xc000 });
    fwd.srcMac = 0x0aaaaaaaaaaa;
    sw.receive(0, fwd);
    for (let k = 0; k < 3; k++)
      sw.receive(1, dataPkt({ srcIp: hostIp(1), dstIp: hostIp(0), srcPort: 0xc100 + k }));
    sw.receive(1, cnmFor(hostIp(0)));
    const stray = cnmFor(hostIp(0));
    stray.cnm!.flowSrcPort = 0xdead;
    sw.receive(1, stray);
    w.sched.run();
    const onPort0 = w.sent.filter((s) => s.port === 0).map((s) => s.pkt);
    expect(onPort0.map((p) => p.kind)).toEqual([
      FrameKind.Data,
      FrameKind.Cnm,
      FrameKind.Data,
      FrameKind.Data,
    ]);
    const cnm = onPort0[1];
    expect(cnm.dstMac).toBe(0x0aaaaaaaaaaa);
    expect(cnm.srcMac).toBe(0x020000000000);
    expect(sw.portCounters()[0].cnmTx).toBe(1);
    expect(sw.switchCounters().cp).toEqual({ cnmRelayed: 1, cnmNoEntry: 1 });
  });

  it('gives plug-ins timers, queue and MMU readings, and refuses bad control sends', () => {
    const w = makeWorld();
    const seen: number[][] = [];
    const cp: SwitchCpFactory = (io) => {
      io.setTimer(100, () => {
        seen.push([
          io.now(),
          io.queueBytes(1),
          io.queueBytesOf(1, 3),
          io.ingressBytes(0, 3),
          io.activeFlows(1),
          io.portRateBps(1),
          io.route(dataPkt()),
          io.route(dataPkt({ dstIp: hostIp(77) })),
        ]);
        const p = createPacket();
        p.sizeBytes = 64;
        seen.push([io.sendControl(9, p) ? 1 : 0, io.sendControl(1, p) ? 1 : 0, io.portCount, io.controlPrio]);
      });
      return { name: 't' };
    };
    const sw = createSwitch(w.env, baseConfig({ cp: [cp] }));
    for (let k = 0; k < 4; k++) sw.receive(0, dataPkt());
    w.sched.run();
    expect(seen).toEqual([
      [100, 2000, 2000, 2000, 1, 100 * G, 1, -1],
      [0, 1, 2, 7],
    ]);
  });
});

describe('CNM frames without a plug-in', () => {
  it('are routed by destination IP on the control class, without a TTL', () => {
    const w = makeWorld();
    const sw = createSwitch(w.env, baseConfig());
    const c = cnmFor(hostIp(0));
    c.ttl = 0;
    sw.receive(1, c);
    w.sched.run();
    expect(w.sent).toHaveLength(1);
    expect(w.sent[0].port).toBe(0);
    expect(sw.portCounters()[0].cnmTx).toBe(1);
  });
});
