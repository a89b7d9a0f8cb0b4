/**
 * Ultra Ethernet settings of a scenario: the NIC's `rccc` key resolved to its settings, and which
 * combinations of congestion control, receiver credits and transport can run
 * (docs/algorithms/nscc.md "Valid combinations"). A combination that cannot give a right answer
 * is a one-line config error (exit 2), never a silent fallback.
 */
import { RCCC_DEFAULTS, type RcccSettings } from '../../nic/rccc/settings.js';
import { ConfigError, formatPath } from './errors.js';
import type { NicParams, ParsedScenario } from './scenario.js';

type ParsedRccc = NonNullable<ParsedScenario['defaults']['nic']['rccc']>;

export function rcccSettings(p: ParsedRccc): RcccSettings {
  return {
    ...RCCC_DEFAULTS,
    enabled: p.enabled,
    pullRate: p.pullRate,
    creditPerPullMtu: p.creditPerPull,
    oversubscription: p.oversubscription,
  };
}

export type Transport = 'rocev2-gbn' | 'rocev2-sr' | 'uet';

/** Transports each sender algorithm that needs a particular one runs on; others run on any. */
export const CC_TRANSPORTS: Readonly<Record<string, readonly Transport[]>> = {
  // NSCC reacts to every ACK's ECN echo and to NACKs of single trimmed packets: it needs
  // selective acknowledgement. Under go-back-N one loss resends a window and the ACKs stop.
  nscc: ['uet', 'rocev2-sr'],
};

/** Receiver credits need pulls and pull targets on the wire: only the uet transport has them. */
export const RCCC_TRANSPORTS: readonly Transport[] = ['uet'];

/**
 * The NIC's transport. Until the multipath transport (`transport`, issue 34) is in the scenario
 * schema every NIC runs RoCEv2 go-back-N.
 */
export function transportOf(nic: NicParams): Transport {
  return (nic as NicParams & { transport?: Transport }).transport ?? 'rocev2-gbn';
}

/** Throw a ConfigError at the first host whose cc, rccc and transport cannot run together. */
export function checkUetCombinations(
  defaults: NicParams,
  hosts: Readonly<Record<string, Partial<NicParams>>>,
  hostNames: readonly string[],
): void {
  const where = (h: string, key: string): string =>
    formatPath(
      hosts[h]?.[key as keyof NicParams] !== undefined ? ['hosts', h, key] : ['defaults', 'nic', key],
    );
  for (const h of hostNames) {
    const nic = { ...defaults, ...hosts[h] };
    const transport = transportOf(nic);
    const ccNeeds = CC_TRANSPORTS[nic.cc];
    if (ccNeeds !== undefined && !ccNeeds.includes(transport))
      throw new ConfigError(
        where(h, 'cc'),
        `${nic.cc} needs transport ${ccNeeds.join(' or ')}, but ${h} runs ${transport}`,
      );
    if (nic.rccc.enabled && !RCCC_TRANSPORTS.includes(transport))
      throw new ConfigError(
        where(h, 'rccc'),
        `rccc needs transport ${RCCC_TRANSPORTS.join(' or ')}, but ${h} runs ${transport}`,
      );
  }
}
