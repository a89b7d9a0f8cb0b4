/**
 * The netns fabric on its own (root): namespaces, veths, addresses and tc qdiscs of a plan are
 * created, reach each other, and leave nothing behind; a sweep removes what a dead launcher left.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { planNetns } from '../../src/runtime/netns/plan.js';
import {
  checkNetnsAvailable,
  createNetns,
  destroyNetns,
  listNamespaces,
  qdiscShow,
  runCommand,
  sweepNetns,
} from '../../src/runtime/netns/sys.js';
import { rootQdiscs, shapeCommands } from '../../src/runtime/netns/tc.js';
import { buildTopology } from '../../src/topology/build.js';

const GBPS = 1e9;

function rootVeths(): string[] {
  return runCommand('ip', ['-o', 'link', 'show', 'type', 'veth'])
    .stdout.split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => l.split(':')[1].trim().split('@')[0]);
}

describe('netns plan (no root needed)', () => {
  const topo = buildTopology({ kind: 'star', hosts: 4, link: { rateBps: 100 * GBPS, delayNs: 1000 } });
  const plan = planNetns(topo, 'abc', 4242);

  it('gives every link its own /30 inside 198.18.0.0/15 and every port an interface', () => {
    expect(plan.links).toHaveLength(4);
    expect(plan.namespaces.size).toBe(5);
    const subnets = new Set(plan.links.map((l) => l.subnet));
    expect(subnets.size).toBe(4);
    for (const l of plan.links) {
      expect(l.subnet).toMatch(/^198\.1[89]\.\d+\.\d+\/30$/);
      expect(l.a.peerIp).toBe(l.b.ip);
      expect(l.b.peerIp).toBe(l.a.ip);
      expect(l.rateBps).toBe(100 * GBPS);
    }
    for (const n of topo.nodes) {
      expect(plan.namespaces.get(n.name)).toBe(`rl-4242-abc-${n.name}`);
      for (const p of n.ports) expect(plan.endpoints.get(`${n.name}:${p.index}`)?.dev).toBe(`p${p.index}`);
    }
  });

  it('shapes one link with tbf and several links on one interface with htb classes per peer', () => {
    const o = { timeScale: 1000, maxPacketBytes: 1200 };
    const one = shapeCommands('eth0', [{ rateBps: 100 * GBPS, peerIp: '198.18.200.2' }], o);
    expect(one).toHaveLength(1);
    expect(one[0].join(' ')).toMatch(/root tbf rate 100000000bit burst \d+ latency 500ms/);
    expect(one[0].join(' ')).toContain('stab overhead -46');
    const many = shapeCommands(
      'eth0',
      [
        { rateBps: 100 * GBPS, peerIp: '198.18.200.2' },
        { rateBps: 40 * GBPS, peerIp: '198.18.200.3' },
      ],
      o,
    );
    const text = many.map((c) => c.join(' ')).join('\n');
    expect(text).toContain('root handle 1: htb default 3');
    expect(text).toMatch(/classid 1:2 htb rate 40000000bit ceil 40000000bit/);
    expect(text).toContain('match ip dst 198.18.200.3/32 flowid 1:2');
  });
});

describe('netns fabric (root)', () => {
  it('needs root and iproute2', () => {
    // This suite runs in CI as root; on a machine without root it fails here, loudly.
    expect(() => checkNetnsAvailable()).not.toThrow();
  });

  const topo = buildTopology({ kind: 'star', hosts: 3, link: { rateBps: 100 * GBPS, delayNs: 1000 } });
  const plan = planNetns(topo, 'fab');
  afterAll(() => {
    destroyNetns(plan.runPrefix);
  });

  it('creates namespaces, veths, addresses and tbf on both ends of every link, then removes them', () => {
    const vethsBefore = rootVeths();
    createNetns(plan, { timeScale: 1000, maxPacketBytes: 1200, mtuBytes: 1600 });
    const names = listNamespaces();
    for (const ns of plan.namespaces.values()) expect(names).toContain(ns);
    for (const l of plan.links) {
      for (const e of [l.a, l.b]) {
        const q = rootQdiscs(qdiscShow(e.ns));
        expect(q.get(e.dev), `${e.ns} ${e.dev}`).toBe('tbf');
      }
      // The peer answers on the link's /30 (one UDP datagram each way would need a server; ARP
      // resolution through `ip neigh` after a connect is enough to prove the wire).
      const r = spawnSync('ip', ['netns', 'exec', l.a.ns, 'node', '-e', pingUdp(l.b.ip)], {
        encoding: 'utf8',
        timeout: 10_000,
      });
      expect(r.status, r.stderr).toBe(0);
      const neigh = runCommand('ip', ['-n', l.a.ns, 'neigh', 'show', l.b.ip]).stdout;
      expect(neigh).toMatch(/lladdr/);
    }
    // No interface of the run in the root namespace.
    expect(rootVeths()).toEqual(vethsBefore);
    const removed = destroyNetns(plan.runPrefix);
    expect(removed.sort()).toEqual([...plan.namespaces.values()].sort());
    const after = listNamespaces();
    for (const ns of plan.namespaces.values()) expect(after).not.toContain(ns);
    expect(rootVeths()).toEqual(vethsBefore);
  });

  it('sweeps namespaces of a launcher that is gone, with the processes inside', () => {
    // A pid that is not running: the sweep must take its namespaces.
    let dead = 4_000_000;
    while (runCommand('kill', ['-0', String(dead)]).status === 0) dead++;
    const orphan = planNetns(topo, 'orph', dead);
    createNetns(orphan, { timeScale: 1000, maxPacketBytes: 1200, mtuBytes: 1600 });
    const ns = orphan.namespaces.get('h1')!;
    const child = spawnSync('sh', ['-c', `ip netns exec ${ns} sleep 30 >/dev/null 2>&1 & echo $!`], {
      encoding: 'utf8',
    });
    const pid = Number(child.stdout.trim());
    expect(pid).toBeGreaterThan(0);
    const removed = sweepNetns();
    expect(removed.sort()).toEqual([...orphan.namespaces.values()].sort());
    expect(listNamespaces().filter((n) => n.startsWith(orphan.runPrefix))).toEqual([]);
    expect(running(pid)).toBe(false);
  });
});

/** A process that exists and is not a zombie (a reaped-later child still answers kill -0). */
function running(pid: number): boolean {
  try {
    return !/^State:\s+Z/m.test(readFileSync(`/proc/${pid}/status`, 'utf8'));
  } catch {
    return false;
  }
}

/** Node one-liner: send one UDP datagram to ip:9 (discard), which makes the kernel resolve ARP. */
function pingUdp(ip: string): string {
  return `const s=require('node:dgram').createSocket('udp4');s.send(Buffer.from('x'),9,'${ip}',()=>setTimeout(()=>s.close(),200));`;
}
