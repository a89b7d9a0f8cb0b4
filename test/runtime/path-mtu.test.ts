/**
 * The real path's MTU (src/runtime/real/path-mtu.ts): every emulated frame travels in one
 * datagram, so the netns veths and a docker network are sized for the scenario's largest frame,
 * and a node on a path too small for it refuses to start with one line.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { isConfigError } from '../../src/config/errors.js';
import { parseScenarioText } from '../../src/config/load.js';
import { renderCompose } from '../../src/deploy/compose.js';
import { deployPlan } from '../../src/deploy/model.js';
import { packageRoot } from '../../src/package-root.js';
import { checkPathMtu, largestHostMtuBytes, pathMtuNeededBytes } from '../../src/runtime/real/path-mtu.js';

const STAR = `topology: { kind: star, hosts: 3 }
defaults: { nic: { mtu: 1000 } }
hosts: { h2: { mtu: 4096 } }
`;

describe('the real path MTU a scenario needs', () => {
  it('is the largest host MTU plus its headers, options and the datagram’s IP and UDP', () => {
    const s = parseScenarioText(STAR);
    expect(largestHostMtuBytes(s, ['h1', 'h3'])).toBe(1000);
    expect(largestHostMtuBytes(s, ['h1', 'h2', 'h3'])).toBe(4096);
    expect(pathMtuNeededBytes(4096)).toBe(4096 + 208 + 28);
    // A 1000-byte MTU fits a 1500-byte veth; 4 KB does not.
    expect(pathMtuNeededBytes(1000)).toBeLessThanOrEqual(1500);
    expect(() => checkPathMtu(1500, 1000)).not.toThrow();
    expect(() => checkPathMtu(4332, 4096)).not.toThrow();
  });

  it('is refused in one line when the path is smaller', () => {
    try {
      checkPathMtu(1500, 4096);
      throw new Error('accepted');
    } catch (err) {
      expect(isConfigError(err)).toBe(true);
      expect((err as Error).message).toBe(
        "MTU: the real path's MTU of 1500 B cannot carry the scenario's 4096-byte frames in one datagram (needs 4332 B): raise the interface MTU (or MTU=), or set defaults.nic.mtu to at most 1264",
      );
    }
  });

  it('sizes a docker network for a 4 KB scenario and leaves a 1 KB one at its default', () => {
    const fabric = (file: string) => {
      const plan = deployPlan(join(packageRoot(), 'scenarios', file));
      const compose = parseYaml(renderCompose(plan, { outDir: '/tmp' }).get('docker-compose.yml')!);
      return compose.networks.fabric;
    };
    expect(fabric('multipath/permutation-k4.yaml').driver_opts).toEqual({
      'com.docker.network.driver.mtu': String(pathMtuNeededBytes(4096)),
    });
    expect(fabric('incast-8to1.yaml').driver_opts).toBeUndefined();
  });
});
