/**
 * Cross-machine pieces of the container entry: the HTTP start gate (no shared clock or volume),
 * the traffic job with a DNS-named address map, and tc classes keyed by VNI.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { shellExports } from '../../src/runtime/netns/container.js';
import { HttpStartGate, passHttpGate } from '../../src/runtime/netns/http-gate.js';
import { shapeCommands } from '../../src/runtime/netns/tc.js';
import { runTrafficJob } from '../../src/runtime/netns/traffic-job.js';
import { hostMonotonicNs } from '../../src/runtime/real/protocol.js';
import { ROOT } from './support.js';

describe('HTTP start gate', () => {
  it('holds every node until all registered, then hands out one start on each node’s own clock', async () => {
    const gate = new HttpStartGate(['a', 'b']);
    const port = await gate.listen(0, '127.0.0.1');
    const url = `http://127.0.0.1:${port}`;
    try {
      const a = passHttpGate(url, 'a', { timeoutMs: 10_000, pollMs: 10 });
      expect(await gate.allReady(50)).toBe(false);
      expect(gate.missing()).toEqual(['b']);
      const b = passHttpGate(url, 'b', { timeoutMs: 10_000, pollMs: 10 });
      expect(await gate.allReady(5000)).toBe(true);
      const t0 = hostMonotonicNs() + 500e6;
      gate.start(t0, 1e9);
      const [ta, tb] = await Promise.all([a, b]);
      // Same machine here, so the relative starts land on the server's t0 within the reply's
      // transit (a few ms; tens on a busy 2-core machine). A unit or sign error would be off by
      // the 500 ms lead or by factors of 1e3, far outside this.
      expect(Math.abs(ta! - t0)).toBeLessThan(150e6);
      expect(Math.abs(tb! - t0)).toBeLessThan(150e6);
      await expect(passHttpGate(url, 'zz', { timeoutMs: 2000 })).rejects.toThrow(/does not know node zz/);
    } finally {
      await gate.close();
    }
  });

  it('a node retries while the gate is not up yet, and gives up after its timeout', async () => {
    const logs: string[] = [];
    const t = Date.now();
    const r = await passHttpGate('http://127.0.0.1:9', 'a', {
      timeoutMs: 300,
      pollMs: 20,
      log: (l) => logs.push(l),
    });
    expect(r).toBeNull();
    expect(Date.now() - t).toBeGreaterThanOrEqual(300);
    expect(logs.length).toBe(1); // one line per distinct problem, not one per retry
  });
});

describe('traffic job across machines', () => {
  it('serves the gate, resolves DNS names after every node is ready, and follows the run by address', async () => {
    const nodes = ['s1', 's2', 'h1', 'h2', 'h3', 'h4'];
    const ips = Object.fromEntries(nodes.map((n, i) => [`${n}.mini`, `198.18.77.${10 + i}`]));
    const looked: string[] = [];
    const lookup = async (name: string) => {
      looked.push(name);
      return ips[name];
    };
    const polled = new Set<string>();
    let polls = 0;
    const get = async (url: string) => {
      const host = /\/\/([\d.]+):/.exec(url)![1];
      polled.add(host);
      const node = nodes[Number(host.split('.')[3]) - 10];
      if (!node.startsWith('h') || node === 'h4') return 'rocelab_port_queue_max_bytes{port="0"} 100\n';
      polls++;
      return `rocelab_fct_seconds_count{node="${node}"} ${polls > 6 ? 1 : 0}\n`;
    };
    const env = {
      SCENARIO: join(ROOT, 'deploy', 'scenarios', 'mini-testbed.yaml'),
      ADDRESS_MAP: JSON.stringify(Object.fromEntries(nodes.map((n) => [n, `${n}.mini:6081`]))),
      METRICS_PORT: '9464',
      START_GATE: 'http://traffic.mini:9470',
      START_LEAD_MS: '50',
    };
    const lines: string[] = [];
    let gatePort = 0;
    const job = runTrafficJob(env, {
      log: (l) => {
        lines.push(l);
        const m = /start gate on port (\d+)/.exec(l);
        if (m !== null) gatePort = Number(m[1]);
      },
      get,
      lookup,
      pollMs: 5,
      gatePort: 0,
    });
    while (gatePort === 0) await new Promise((r) => setTimeout(r, 5));
    expect(looked).toEqual([]); // nothing resolved before the nodes are there
    const starts = await Promise.all(
      nodes.map((n) => passHttpGate(`http://127.0.0.1:${gatePort}`, n, { timeoutMs: 10_000, pollMs: 10 })),
    );
    for (const s of starts) expect(s).not.toBeNull();
    const r = await job;
    expect(r.ok).toBe(true);
    expect(r.flowsCompleted).toBe(3);
    expect([...polled].sort()).toEqual(Object.values(ips).sort());
    expect(lines.join('\n')).toContain('all nodes ready');
  });
});

describe('tc keyed by VNI', () => {
  it('classifies by the overlay VNI and the peer UDP port, not the peer address', () => {
    const cmds = shapeCommands(
      'eth0',
      [
        { rateBps: 100e9, peerIp: '198.18.1.1', vni: { vni: 0, udpPort: 6081 } },
        { rateBps: 100e9, peerIp: '198.18.1.2', vni: { vni: 2, udpPort: 6081 } },
      ],
      { timeScale: 1000, maxPacketBytes: 1300 },
    ).map((c) => c.join(' '));
    const filters = cmds.filter((c) => c.startsWith('filter'));
    expect(filters).toHaveLength(2);
    expect(filters[1]).toContain(
      'match ip protocol 17 0xff match ip dport 6081 0xffff match u32 0x00000200 0xffffff00 at 32 flowid 1:2',
    );
    for (const f of filters) expect(f).not.toContain('198.18.1.');
  });
});

describe('container entry exports', () => {
  it('quotes values for sh, including single quotes', () => {
    expect(shellExports({ A: `{"h1":"1.2.3.4:1"}`, B: "it's" })).toBe(
      `export A='{"h1":"1.2.3.4:1"}'\nexport B='it'\\''s'\n`,
    );
  });
});
