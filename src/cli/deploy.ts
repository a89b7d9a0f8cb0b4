/**
 * `rocelab deploy compose|k8s SCENARIO [--out DIR] …`: write a docker compose project or a
 * kustomize directory for the scenario (src/deploy/, docs/deploy.md). Bad input: ConfigError
 * (one line, exit 2, by the dispatcher in app.ts).
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { ConfigError } from '../config/errors.js';
import { type FileSet, renderCompose } from '../deploy/compose.js';
import { renderK8s } from '../deploy/k8s.js';
import { deployPlan, projectName } from '../deploy/model.js';

export const DEPLOY_HELP = `Usage:
  rocelab deploy compose <scenario.yaml> [--out DIR] [--subnet CIDR] [--assets SUBDIR] [--set k=v]...
      a docker compose project: one service per node, the traffic job, Prometheus, Grafana
      (default DIR deploy-out/<scenario>-compose)
  rocelab deploy k8s <scenario.yaml> [--out DIR] [--namespace N] [--image REF] [--cpu C] [--memory M] [--set k=v]...
      a kustomize directory (kubectl apply -k DIR): one Pod per node behind a headless Service,
      the traffic job as a Job, a PodMonitor (default DIR deploy-out/<scenario>-k8s)
docs/deploy.md has the details.
`;

export interface DeployIo {
  stdout(text: string): void;
  cwd: string;
}

export function writeFileSet(dir: string, files: FileSet): void {
  for (const [rel, text] of files) {
    const p = join(dir, rel);
    mkdirSync(dirname(p), { recursive: true });
    writeFileSync(p, text);
  }
}

export function deployCommand(argv: readonly string[], io: DeployIo): number {
  const [target, ...rest] = argv;
  if (target === '--help' || target === '-h') {
    io.stdout(DEPLOY_HELP);
    return 0;
  }
  if (target === undefined)
    throw new ConfigError('deploy', 'needs a target: compose or k8s (see rocelab deploy --help)');
  if (target !== 'compose' && target !== 'k8s')
    throw new ConfigError('deploy', `unknown target "${target}" (compose or k8s)`);
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(rest);
  } catch (err) {
    throw new ConfigError(`deploy ${target}`, (err as Error).message.split('\n')[0]);
  }
  const { values, positionals } = parsed;
  if (values.help === true) {
    io.stdout(DEPLOY_HELP);
    return 0;
  }
  if (positionals.length !== 1) throw new ConfigError(`deploy ${target}`, 'needs exactly one scenario file');
  const file = positionals[0];
  if (target === 'compose' && (values.namespace !== undefined || values.image !== undefined))
    throw new ConfigError('deploy compose', '--namespace and --image are for deploy k8s');
  if (target === 'k8s' && (values.subnet !== undefined || values.assets !== undefined))
    throw new ConfigError('deploy k8s', '--subnet and --assets are for deploy compose');
  if (!existsSync(resolve(io.cwd, file))) throw new ConfigError('', `no such scenario file: ${file}`);
  let plan: ReturnType<typeof deployPlan>;
  try {
    plan = deployPlan(resolve(io.cwd, file), values.set ?? []);
  } catch (err) {
    if (err instanceof ConfigError && err.file === undefined && err.where !== '') err.file = file;
    throw err;
  }
  const out = resolve(
    io.cwd,
    values.out ?? join('deploy-out', `${projectName(plan.scenario)}-${target === 'k8s' ? 'k8s' : 'compose'}`),
  );
  let files: FileSet;
  if (target === 'compose') {
    files = renderCompose(plan, { outDir: out, assetsDir: values.assets, subnet: values.subnet });
  } else {
    files = renderK8s(plan, {
      namespace: values.namespace,
      image: values.image,
      cpu: values.cpu,
      memory: values.memory,
    }).files;
  }
  writeFileSet(out, files);
  const shown = relative(io.cwd, out) || '.';
  io.stdout(
    `${shown}: ${files.size} files for ${plan.nodes.length} nodes of ${plan.scenario.name}${
      target === 'compose'
        ? ` (docker compose -f ${join(shown, 'docker-compose.yml')} up --build)`
        : ` (kubectl apply -k ${shown})`
    }\n`,
  );
  return 0;
}

function parse(args: readonly string[]) {
  return parseArgs({
    args: [...args],
    allowPositionals: true,
    strict: true,
    options: {
      out: { type: 'string' },
      subnet: { type: 'string' },
      assets: { type: 'string' },
      namespace: { type: 'string' },
      image: { type: 'string' },
      cpu: { type: 'string' },
      memory: { type: 'string' },
      set: { type: 'string', multiple: true },
      help: { type: 'boolean', short: 'h' },
    },
  });
}
