/**
 * A virtual-time run with the experiments' observers attached: trace hooks (src/probe) and NIC
 * observers only read, so the run is the one `rocelab run` produces; the NICs and switches stay
 * reachable for their counters and `qpInspect` afterwards. Extra switch plug-ins are measurement
 * or fault-injection hooks of a check.
 */
import { createNic, type Nic, type NicObserver } from '../nic/api.js';
import type { Scenario } from '../src/config/scenario.js';
import { chainTracers, observeNic, Probe, type ProbeSpec, type Tracer } from '../src/probe/probe.js';
import { planFromSetup } from '../src/runtime/app/plan.js';
import { type RunOptions, runScenario } from '../src/runtime/run.js';
import { setupRun } from '../src/runtime/scenario-setup.js';
import { createSwitch, type Switch } from '../switch/api.js';
import type { SwitchCpFactory } from '../switch/cp.js';
import { inDir, type ReproContext } from './types.js';

export interface ObserveOptions extends ReproContext {
  trace?: Tracer | null;
  /** Rate changes and message completions of each host's NIC. */
  nicObserver?: (host: string) => Partial<NicObserver>;
  /** Plug-ins on every switch ahead of its own (they see frames first, e.g. to mark them). */
  cpBefore?: SwitchCpFactory[];
  /** Plug-ins on every switch after its own. */
  cpAfter?: SwitchCpFactory[];
  /** The algorithms' switch plug-ins by name, built by the check instead of the setup (e.g. observed). */
  cpFactories?: RunOptions['cpFactories'];
  /** Filled with the NICs as the run creates them (for hooks that read QP state during the run). */
  nics?: Map<string, Nic>;
  /** The engine's progress while it runs (RunOptions.onProgress; reads only). */
  onProgress?: RunOptions['onProgress'];
}

export function observedRun(scenario: Scenario, o: ObserveOptions) {
  const nics = o.nics ?? new Map<string, Nic>();
  const switches = new Map<string, Switch>();
  const out = runScenario({
    scenario,
    seed: o.seed,
    outDir: o.outDir,
    print: null,
    cpFactories: o.cpFactories,
    trace: o.trace ?? undefined,
    onProgress: o.onProgress,
    createSwitch: (env, cfg) => {
      const cp = [...(o.cpBefore ?? []), ...(cfg.cp ?? []), ...(o.cpAfter ?? [])];
      const sw = createSwitch(env, cp.length === (cfg.cp ?? []).length ? cfg : { ...cfg, cp });
      switches.set(cfg.name, sw);
      return sw;
    },
    createNic: (env, cfg) => {
      const nic = createNic(
        env,
        o.nicObserver === undefined ? cfg : observeNic(cfg, o.nicObserver(cfg.name)),
      );
      nics.set(cfg.name, nic);
      return nic;
    },
  });
  return { out, nics, switches };
}

type BinnedOptions = ReproContext & Pick<ProbeSpec, 'binNs' | 'ports'>;

/** `observedRun` with a Probe binning every flow and the ports `o.ports`, and the tracer `more` makes of it. */
export function binnedRun(scenario: Scenario, o: BinnedOptions, more: (probe: Probe) => Tracer | null) {
  const setup = setupRun(scenario, { seed: o.seed });
  const probe = new Probe({ binNs: o.binNs, ports: o.ports, flows: true }, planFromSetup(setup));
  const run = observedRun(scenario, { ...o, trace: chainTracers([probe, more(probe)]) });
  probe.finish(run.out.results.durationNs);
  return { ...run, probe, setup };
}

/** `scenario` in real time (the local runtime: one OS process per node over UDP on 127.x) into `ctx`'s folder `dir`. */
export function localRun(
  scenario: Scenario,
  ctx: ReproContext,
  dir: string,
  extra: Partial<RunOptions> = {},
) {
  return runScenario({ scenario, ...inDir(ctx, dir), print: null, ...extra, runtime: 'local' });
}
