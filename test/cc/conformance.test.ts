/**
 * Conformance of every registered algorithm to the plug-in contract (docs/cc-api.md), driven
 * through the one harness (src/cc/testing): its defaults and profiles parse (idempotently), bad
 * parameter values are one-line CcConfigErrors, every RP event kind and every NP input is
 * handled without throwing — also out of range (zero/huge RTTs and byte counts, wrapped PSNs,
 * INT hops with zero rates, malformed CNP/CNM payloads) — rates and windows asked for are numbers
 * the NIC can enforce, and two runs of one random event script under one seed are identical.
 */
import { describe, expect, it } from 'vitest';
import { ecnCnpNp } from '../../src/cc/np-ecn.js';
import { getAlgorithm, listAlgorithms, resolveParams } from '../../src/cc/registry.js';
import { CcConfigError, shapeOf } from '../../src/cc/resolve.js';
import {
  ackEvent,
  cnmEvent,
  cnpEvent,
  driveNp,
  driveRp,
  flowInfo,
  intHop,
  messageCompleteEvent,
  nackEvent,
  timeoutEvent,
  txEvent,
} from '../../src/cc/testing/index.js';
import type { FlowInfo, RpEvent } from '../../src/cc/types.js';
import { createRng, type Rng } from '../../src/env/rng.js';
import { Ecn } from '../../src/wire/packet.js';
import { createExt } from '../../src/wire/packet-factory.js';

const names = listAlgorithms().map((a) => a.name);
const LINE = 100e9;

/** Flow facts with every optional field, so INT-driven algorithms see per-hop link rates. */
const flow = (o: Partial<FlowInfo> = {}) =>
  flowInfo({
    lineRateBps: LINE,
    baseRttNs: 8_000,
    hops: 2,
    linkRatesBps: [LINE, LINE, LINE],
    propDelayNs: 3_000,
    ...o,
  });

/** A random but valid-looking event script: data leaves in PSN order, feedback covers sent PSNs. */
function script(rng: Rng, n: number, hostile: boolean): Array<{ dt: number; ev: RpEvent }> {
  const out: Array<{ dt: number; ev: RpEvent }> = [];
  let sent = 0;
  let acked = 0;
  let hopTime = 0;
  let hopTx = 0;
  const hops = () => {
    hopTime += 1000 + rng.int(4000);
    hopTx += rng.int(20_000);
    const zeroRate = hostile && rng.next() < 0.2;
    return [0, 1].map(() =>
      intHop(hopTime, hopTx, hostile ? rng.int(10_000_000) : rng.int(200_000), zeroRate ? 0 : LINE),
    );
  };
  for (let i = 0; i < n; i++) {
    const dt = rng.next() < 0.1 ? rng.int(200_000) : rng.int(3_000);
    const k = rng.next();
    let ev: RpEvent;
    if (k < 0.35 || sent === acked) {
      ev = txEvent(sent++, 1000, 1066, rng.next() < 0.05);
    } else if (k < 0.7) {
      acked = Math.min(sent, acked + 1 + rng.int(3));
      const rttNs = hostile ? [0, -5, 1e12, Number.NaN, 8_000][rng.int(5)] : 8_000 + rng.int(50_000);
      const ack = ackEvent(acked - 1, {
        hops: hops(),
        layout: rng.next() < 0.5 ? 'hpcc' : 'mpcc',
        rttNs,
        ecn: rng.next() < 0.3,
        ackedBytes: hostile ? [0, 1e12][rng.int(2)] : 1000,
        fields: { rate: rng.int(1_000_000), window: rng.int(1_000_000) },
        windowBytes: rng.int(100_000),
      });
      // Far outside the window.
      if (hostile && rng.next() < 0.2 && ack.type === 'ack')
        ack.pkt.psn = (ack.pkt.psn + 0x800000) & 0xffffff;
      ev = ack;
    } else if (k < 0.78) {
      const subtype = (['oos', 'rnr', 'trim'] as const)[rng.int(3)];
      ev = nackEvent(acked, hops(), subtype, {
        lastHop: rng.next() < 0.5,
        nackedBytes: hostile ? [0, 1e12, Number.NaN][rng.int(3)] : rng.int(9000),
      });
    } else if (k < 0.88) {
      ev = cnpEvent((pkt) => {
        pkt.ext = createExt();
        pkt.ext.cnpPeriodNs = hostile ? [0, 1e15][rng.int(2)] : 50_000;
        pkt.ext.ecnCount = hostile ? 1e9 : rng.int(20);
        pkt.bthResv7 = rng.int(128);
      });
    } else if (k < 0.93) {
      ev = cnmEvent((pkt) => {
        pkt.cnm = {
          flags: rng.int(4),
          flowId: rng.int(65_536),
          targetRateKbps: hostile ? 0 : rng.int(100_000_000),
          cpId: 0,
          nHops: 1,
          hopsTraversed: 0,
          mActive: rng.int(64),
          MActive: rng.int(64),
          cpEgressPort: 0,
          qLenBytes: rng.int(1_000_000),
          qCthRaw: rng.int(65_536),
          flowSrcIp: 0,
          flowDstIp: 0,
          flowSrcPort: rng.int(65_536),
          flowDstPort: 4791,
          destQpn: 2,
          triggerPsn: rng.int(sent + 1),
          cpTimestampNs: 0,
        };
      });
    } else if (k < 0.96) {
      ev = timeoutEvent();
    } else {
      ev = messageCompleteEvent(i, 1 + rng.int(1_000_000), 0, 1 + rng.int(1_000_000));
    }
    out.push({ dt, ev });
  }
  return out;
}

/** Run a script through an algorithm's RP; returns everything observable. */
function runRp(name: string, params: Record<string, unknown>, seed: number, hostile: boolean) {
  const alg = getAlgorithm(name);
  const f = flow();
  const d = driveRp(alg.rp, params, f, { rng: createRng(seed).fork('rp') });
  const seen: string[] = [];
  let t = 0;
  for (const { dt, ev } of script(createRng(seed).fork('script'), 400, hostile)) {
    t += dt;
    d.at(t);
    d.setInflight((ev.type === 'tx' ? 1 : 0) * 1000 + (t % 7) * 1000);
    d.setPaused(t % 11 === 0);
    if (ev.type === 'tx') d.decorate(ev.pkt);
    d.ev(ev);
    seen.push(JSON.stringify(d.inspect()));
  }
  d.at(t + 10_000_000); // every timer armed so far fires
  return { d, seen, features: d.features };
}

describe.each(names)('conformance: %s', (name) => {
  const alg = getAlgorithm(name);

  it('defaults and every profile parse, and resolving is idempotent', () => {
    const defaults = resolveParams(name);
    expect(resolveParams(name, defaults)).toEqual(defaults);
    for (const profile of Object.keys(alg.profiles ?? {})) {
      const p = resolveParams(name, {}, profile);
      expect(resolveParams(name, p, profile)).toEqual(p);
    }
    for (const target of Object.values(alg.aliases ?? {}))
      expect(Object.keys(shapeOf(alg))).toContain(target);
    expect(typeof alg.summary).toBe('string');
    expect(alg.summary.length).toBeGreaterThan(0);
  });

  it('a bad value of any parameter is one CcConfigError line, never another error', () => {
    for (const key of Object.keys(shapeOf(alg))) {
      for (const bad of ['abc', -1, '10Mb', {}, Number.NaN]) {
        try {
          resolveParams(name, { [key]: bad });
        } catch (err) {
          expect(err).toBeInstanceOf(CcConfigError);
          expect((err as Error).message).toMatch(new RegExp(`^cc ${name}: [^\\n]+$`));
        }
      }
    }
    expect(() => resolveParams(name, { 'no-such-parameter': 1 })).toThrow(CcConfigError);
  });

  it('handles every RP event kind: rates the NIC can enforce, windows positive or none', () => {
    for (const profile of [undefined, ...Object.keys(alg.profiles ?? {})]) {
      const { d, features } = runRp(name, resolveParams(name, {}, profile), 7, false);
      expect(['hpcc', 'mpcc', null]).toContain(features.int);
      expect(typeof features.txTimestamp).toBe('boolean');
      for (const c of d.changes) {
        if (c.kind === 'rate') expect(c.value).toBeGreaterThan(0);
        else expect(c.value === null || (c.value as number) > 0).toBe(true);
        expect(typeof c.why).toBe('string');
      }
      expect(d.rate()).toBeGreaterThan(0);
      expect(d.rate()).toBeLessThanOrEqual(LINE);
    }
  });

  it('does not throw on out-of-range input', () => {
    for (const profile of [undefined, ...Object.keys(alg.profiles ?? {})]) {
      for (const seed of [1, 2, 3])
        expect(() => runRp(name, resolveParams(name, {}, profile), seed, true)).not.toThrow();
    }
    // A degenerate flow: a 1 kbps line, zero RTT, no hops, no link rates.
    const tiny = flowInfo({ lineRateBps: 1e3, bottleneckRateBps: 1e3, baseRttNs: 0, hops: 0 });
    const d = driveRp(alg.rp, resolveParams(name), tiny, { rng: createRng(1) });
    expect(() => {
      d.ev(txEvent(0));
      d.ev(ackEvent(0, { rttNs: 0 }));
      d.at(1e9);
    }).not.toThrow();
  });

  it('is deterministic under one seed (RP changes, counters, inspect)', () => {
    const params = resolveParams(name);
    const a = runRp(name, params, 42, false);
    const b = runRp(name, params, 42, false);
    expect(b.d.changes).toEqual(a.d.changes);
    expect([...b.d.counts]).toEqual([...a.d.counts]);
    expect(b.seen).toEqual(a.seen);
  });

  it('NP: handles data (CE or not, any PSN), ACK decoration and timers; deterministic', () => {
    const params = resolveParams(name);
    // An algorithm without an NP runs the NIC's default (nic/cc-host.ts): test that one then.
    const np = alg.np ?? ecnCnpNp(() => ({ intervalNs: 50_000, mode: 'immediate', enabled: true }));
    const run = (seed: number) => {
      const rng = createRng(seed);
      const d = driveNp(np, params, { rng: rng.fork('np'), flow: (qpn) => flow({ qpn }) });
      let t = 0;
      const acks: string[] = [];
      for (let i = 0; i < 400; i++) {
        t += rng.int(5_000);
        d.at(t);
        const qpn = 1 + rng.int(3);
        d.data(qpn, (pkt) => {
          pkt.psn = rng.next() < 0.1 ? rng.int(0x1000000) : i;
          pkt.ecn = rng.next() < 0.4 ? Ecn.Ce : Ecn.Ect0;
          pkt.payloadLen = 1000;
          pkt.sizeBytes = 1066;
          if (rng.next() < 0.5)
            pkt.int = { layout: 'hpcc', nhop: 1, hops: [intHop(t, i * 1000, rng.int(100_000))] };
        });
        acks.push(JSON.stringify(d.decorateAck(qpn).ext));
      }
      d.at(t + 10_000_000);
      return { cnps: d.cnps, counts: [...d.counts], acks, inspect: [1, 2, 3].map((q) => d.inspect(q)) };
    };
    const a = run(5);
    expect(run(5)).toEqual(a);
    for (const c of a.cnps) expect([1, 2, 3]).toContain(c.qpn);
  });
});

it('the conformance test covers every registered algorithm', () => {
  expect(names.length).toBeGreaterThanOrEqual(13);
  expect(new Set(names).size).toBe(names.length);
});
