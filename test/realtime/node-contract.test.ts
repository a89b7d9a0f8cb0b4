/** The `rocelab node` environment contract's error paths, and the pure pieces of clock sync and addressing. */
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { isAllowedAddress, localAddressMap, parseAddressMap } from '../../src/runtime/real/addresses.js';
import { sampleOf, syncRequest, syncResponse, syncTree } from '../../src/runtime/real/clock-sync.js';
import { buildTopology } from '../../src/topology/build.js';
import { ensureBuilt, INCAST_4TO1, ROOT, tmp } from './helpers.js';

beforeAll(() => ensureBuilt());

function node(env: Record<string, string>) {
  return spawnSync(process.execPath, [join(ROOT, 'dist', 'src', 'runtime', 'real', 'node-main.js')], {
    env: { PATH: process.env.PATH ?? '', ...env },
    encoding: 'utf8',
    timeout: 30_000,
  });
}

describe('rocelab node: bad configuration exits 2 with one line', () => {
  const file = join(tmp(), 'incast.yaml');
  writeFileSync(file, INCAST_4TO1);
  it.each([
    [{}, /NODE: required/],
    [{ NODE: 'h1' }, /SCENARIO: required/],
    [{ NODE: 'h1', SCENARIO: file, ADDRESS_MAP: '{"h1":"8.8.8.8:6081"}' }, /outside 127\.0\.0\.0\/8/],
    [{ NODE: 'h1', SCENARIO: file, ADDRESS_MAP: 'nope' }, /ADDRESS_MAP.*not JSON/],
    [{ NODE: 'h1', SCENARIO: file, OVERLAY: 'gre' }, /OVERLAY: expected geneve or vxlan/],
    [{ NODE: 'h1', SCENARIO: file, TIME_SCALE: '-1' }, /TIME_SCALE/],
    [{ NODE: 'h1,h2', SCENARIO: file, BIND: '127.0.0.1:6081' }, /BIND: names one node/],
    [{ NODE: 'h1,h1', SCENARIO: file }, /NODE: a name twice/],
    [{ NODE: 'h1,', SCENARIO: file }, /NODE: an empty name/],
    [{ NODE: 'h1,h99', SCENARIO: file }, /h99/],
  ])('%j', (env, message) => {
    const r = node(env as Record<string, string>);
    expect(r.status).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(message);
  });
});

describe('clock sync and addressing pieces', () => {
  it('the sync tree is a BFS from the reference; each node points to its own port towards the parent', () => {
    const link = { rateBps: 100e9, delayNs: 1000 };
    const topo = buildTopology({
      kind: 'leafspine',
      leaves: 2,
      hostsPerLeaf: 2,
      spines: 2,
      hostLink: link,
      fabricLink: link,
    } as never);
    const ref = topo.switches[0].name;
    const tree = syncTree(topo, ref);
    expect(tree.get(ref)).toBeNull();
    expect(tree.size).toBe(topo.nodes.length);
    for (const n of topo.nodes) {
      const up = tree.get(n.name);
      if (up === null || up === undefined) continue;
      expect(n.ports[up.port].peerNode).toBe(up.parent);
    }
  });

  it('offset and delay of a two-way exchange', () => {
    // child clock 500 ns behind the parent, 100 ns each way, 20 ns turnaround
    const req = syncRequest(7, 1, 2, 1000);
    const resp = syncResponse(req, 1000 + 100 + 500, 1000 + 120 + 500, 2)!;
    const s = sampleOf(resp, 1000 + 220)!;
    expect(s.offsetNs).toBeCloseTo(500, 9);
    expect(s.delayNs).toBeCloseTo(200, 9);
    expect(resp.psn).toBe(7);
  });

  it('addresses: local blocks on loopback, maps validated, only loopback and 198.18.0.0/15', () => {
    const m = localAddressMap(['h1', 'h2', 's1'], 1234, 6081);
    expect(Object.values(m).every((a) => /^127\.\d+\.\d+\.[1-3]:6081$/.test(a))).toBe(true);
    expect(new Set(Object.values(m)).size).toBe(3);
    expect(parseAddressMap('{"h1":"198.18.0.2:6081","s1:0":"198.18.1.1:6081"}')).toEqual({
      h1: '198.18.0.2:6081',
      's1:0': '198.18.1.1:6081',
    });
    expect(isAllowedAddress('198.19.255.1')).toBe(true);
    expect(isAllowedAddress('10.0.0.1')).toBe(false);
    expect(isAllowedAddress('198.20.0.1')).toBe(false);
  });
});
