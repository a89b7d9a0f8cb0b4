/**
 * A sweep for cluster schedulers: every task runs `rocelab sweep <file> --task --out <dir>`, the
 * point given by its index variable (JOB_COMPLETION_INDEX of a Kubernetes Indexed Job,
 * SLURM_ARRAY_TASK_ID of a Slurm job array); `rocelab sweep collect <dir>` merges the results.
 */
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { Job } from 'kubernetes-models/batch/v1/Job';
import { parseDocument, stringify } from 'yaml';
import { ConfigError } from '../config/errors.js';
import type { FileSet } from '../deploy/compose.js';
import { DEFAULT_IMAGE } from '../deploy/k8s.js';
import { deployPlan, IMAGE_APP_DIR } from '../deploy/model.js';
import { packageRoot } from '../package-root.js';
import type { Sweep } from './spec.js';

const DNS_1123 = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;
const SWEEP_DIR = '/etc/rocelab-sweep';
const RESULTS_DIR = '/results';

function jobName(sweep: Sweep): string {
  const n = `rocelab-sweep-${sweep.name}`
    .toLowerCase()
    .replace(/[^a-z0-9-]+/g, '-')
    .slice(0, 52)
    .replace(/-+$/, '');
  return n;
}

/**
 * A kustomize directory: the sweep file (its scenario path rewritten to the copy beside it) and
 * the scenario as a ConfigMap, an Indexed Job with one completion per point writing to a
 * PersistentVolumeClaim the user provides (`--pvc`).
 */
export function emitK8s(
  sweep: Sweep,
  opts: { image?: string; parallelism: number; pvc?: string; cpu?: string; memory?: string },
): FileSet {
  const pvc = opts.pvc ?? 'rocelab-sweep-results';
  if (!DNS_1123.test(pvc)) throw new ConfigError('--pvc', `${JSON.stringify(pvc)} is not a DNS label`);
  const name = jobName(sweep);
  const cpu = opts.cpu ?? '1';
  const memory = opts.memory ?? '1Gi';
  const job = new Job({
    metadata: {
      name,
      labels: { 'app.kubernetes.io/name': 'rocelab', 'app.kubernetes.io/component': 'sweep' },
    },
    spec: {
      completionMode: 'Indexed',
      completions: sweep.points.length,
      parallelism: Math.max(1, Math.min(opts.parallelism, sweep.points.length)),
      backoffLimit: sweep.points.length,
      template: {
        metadata: { labels: { 'app.kubernetes.io/name': 'rocelab', 'app.kubernetes.io/component': 'sweep' } },
        spec: {
          restartPolicy: 'Never',
          enableServiceLinks: false,
          containers: [
            {
              name: 'point',
              image: opts.image ?? DEFAULT_IMAGE,
              imagePullPolicy: 'IfNotPresent',
              command: ['node', `${IMAGE_APP_DIR}/bin/rocelab.js`],
              args: ['sweep', `${SWEEP_DIR}/sweep.yaml`, '--task', '--out', RESULTS_DIR],
              resources: { requests: { cpu, memory }, limits: { cpu, memory } },
              securityContext: {
                privileged: false,
                allowPrivilegeEscalation: false,
                capabilities: { drop: ['ALL'] },
              },
              volumeMounts: [
                { name: 'sweep', mountPath: SWEEP_DIR, readOnly: true },
                { name: 'results', mountPath: RESULTS_DIR },
              ],
            },
          ],
          volumes: [
            { name: 'sweep', configMap: { name: `${name}-files` } },
            { name: 'results', persistentVolumeClaim: { claimName: pvc } },
          ],
        },
      },
    },
  });
  job.validate();
  // Workload CDFs the scenario names beside itself travel with it.
  const side = deployPlan(sweep.scenario).sideFiles;
  const doc = parseDocument(readFileSync(sweep.file, 'utf8'));
  doc.set('scenario', 'scenario.yaml');
  const files: FileSet = new Map();
  files.set(
    'kustomization.yaml',
    `# rocelab sweep "${sweep.name}" as a Kubernetes Indexed Job (${sweep.points.length} points; docs/deploy.md).\n` +
      `# Needs a PersistentVolumeClaim "${pvc}" for the results; then: kubectl apply -k . and, with the\n` +
      `# volume's contents copied to DIR, rocelab sweep collect DIR.\n${stringify(
        {
          apiVersion: 'kustomize.config.k8s.io/v1beta1',
          kind: 'Kustomization',
          resources: ['job.yaml'],
          configMapGenerator: [
            { name: `${name}-files`, files: ['sweep.yaml', 'scenario.yaml', ...side.keys()] },
          ],
        },
        { lineWidth: 0 },
      )}`,
  );
  files.set('job.yaml', stringify(job.toJSON(), { lineWidth: 0 }));
  files.set('sweep.yaml', doc.toString());
  files.set('scenario.yaml', readFileSync(sweep.scenario, 'utf8'));
  for (const [name, path] of side) files.set(name, readFileSync(path, 'utf8'));
  return files;
}

/** An `sbatch --array` script; run it from anywhere, it works in the checkout it came from. */
export function emitSlurm(sweep: Sweep, opts: { parallelism: number; out: string }): string {
  const n = sweep.points.length;
  const p = Math.max(1, Math.min(opts.parallelism, n));
  const q = (s: string) => `'${s.replace(/'/g, "'\\''")}'`;
  return [
    '#!/bin/bash',
    `# rocelab sweep "${sweep.name}": ${n} points as a Slurm job array (docs/deploy.md).`,
    `#   sbatch ${relative(process.cwd(), `${opts.out}/sweep.sbatch`) || 'sweep.sbatch'}     then    rocelab sweep collect ${q(opts.out)}`,
    `#SBATCH --job-name=${jobName(sweep)}`,
    `#SBATCH --array=0-${n - 1}%${p}`,
    '#SBATCH --cpus-per-task=1',
    '#SBATCH --ntasks=1',
    `#SBATCH --output=${opts.out}/slurm-%A_%a.out`,
    'set -euo pipefail',
    `cd ${q(packageRoot())}`,
    '# Each task runs the point SLURM_ARRAY_TASK_ID names.',
    `exec node bin/rocelab.js sweep ${q(sweep.file)} --task --out ${q(opts.out)}`,
    '',
  ].join('\n');
}
