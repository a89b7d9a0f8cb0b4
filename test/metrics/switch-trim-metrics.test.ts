/**
 * Prometheus series of trimming and link events (docs/metrics.md "Per port and priority"): a switch
 * node's registry reads trims, header drops, the header queue's peak, link-down drops and the
 * current line rate from the firmware at scrape time.
 */
import { describe, expect, it } from 'vitest';
import { createNodeMetrics } from '../../src/metrics/node-metrics.js';
import { TRIMMED_FRAME_BYTES } from '../../src/wire/trim.js';
import { createSwitch } from '../../switch/switch.js';
import { baseConfig, dataPkt, G, makeWorld, portCfg } from '../switch/harness.js';

describe('switch metrics of trimming and link events', () => {
  it('expose what the firmware counted', async () => {
    const w = makeWorld();
    const sw = createSwitch(
      w.env,
      baseConfig({
        ports: [portCfg(100 * G, 0), portCfg(10 * G, 1)],
        trim: {
          queueBytes: 5000,
          headerQueueBytes: 4 * TRIMMED_FRAME_BYTES,
          ecn: { kminBytes: 1e9, kmaxBytes: 1e9, pmax: 0 },
        },
        portEvents: [{ atNs: 50_000, port: 1, rateBps: 25 * G }],
      }),
    );
    for (let k = 0; k < 20; k++) sw.receive(0, dataPkt({ psn: k }));
    w.sched.run();
    const m = createNodeMetrics({
      node: 's1',
      kind: 'switch',
      timeScale: 1000,
      nic: () => null,
      sw: () => sw,
      qpns: () => [],
      ports: [
        { port: 0, rateBps: 100 * G },
        { port: 1, rateBps: 10 * G },
      ],
      clockResidualNs: () => Number.NaN,
      clockCorrectionNs: () => 0,
      eventLoop: () => ({ p50Ns: 0, p99Ns: 0, maxNs: 0, meanNs: 0 }),
      timerLateNs: () => ({ meanNs: 0, maxNs: 0 }),
      achievedBps: () => Number.NaN,
      garbage: () => ({}),
      datagrams: () => ({ tx: 0, rx: 0 }),
    });
    const text = await m.registry.metrics();
    const value = (series: string) => {
      const line = text.split('\n').find((l) => l.startsWith(series));
      return line === undefined ? undefined : Number(line.split(' ').at(-1));
    };
    // 1 on the wire + 5 queued; 14 trimmed, 4 headers fit, 10 dropped.
    expect(value('rocelab_port_trims_total{port="1",node="s1"}')).toBe(14);
    expect(value('rocelab_port_header_drops_total{port="1",node="s1"}')).toBe(10);
    expect(value('rocelab_port_header_queue_max_bytes{port="1",node="s1"}')).toBe(4 * TRIMMED_FRAME_BYTES);
    expect(value('rocelab_link_rate_bps{port="1",node="s1"}')).toBe(25 * G);
    expect(value('rocelab_link_rate_configured_bps{port="1",node="s1"}')).toBe(10 * G);
    expect(value('rocelab_port_link_down_drops_total{port="1",node="s1"}')).toBeUndefined();
    await m.close();
  });
});
