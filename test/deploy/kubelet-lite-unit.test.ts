/** kubelet-lite's translation of a container's securityContext into setpriv (no root needed). */
import { describe, expect, it } from 'vitest';
import { setprivArgs } from '../k8s/kubelet-lite.js';

describe('kubelet-lite setpriv', () => {
  it('grants exactly the added capabilities and no_new_privs', () => {
    expect(
      setprivArgs({
        name: 'node',
        securityContext: {
          allowPrivilegeEscalation: false,
          capabilities: { drop: ['ALL'], add: ['NET_ADMIN'] },
        },
      }),
    ).toEqual(['--bounding-set', '-all,+net_admin', '--inh-caps', '-all,+net_admin', '--no-new-privs', '--']);
    expect(setprivArgs({ name: 'job', securityContext: { capabilities: { drop: ['ALL'] } } })).toEqual([
      '--bounding-set',
      '-all',
      '--inh-caps',
      '-all',
      '--',
    ]);
  });

  it('refuses privileged containers and ones that keep the default capabilities', () => {
    expect(() => setprivArgs({ name: 'x', securityContext: { privileged: true } })).toThrow(/privileged/);
    expect(() =>
      setprivArgs({ name: 'x', securityContext: { capabilities: { add: ['NET_ADMIN'] } } }),
    ).toThrow(/drop \[ALL\]/);
  });
});
