/**
 * `rocelab deploy k8s`: a kustomize directory for any scenario (docs/deploy.md), built from the
 * typed objects of `kubernetes-models` and validated against their schemas before it is written.
 *
 * - The scenario is a ConfigMap (configMapGenerator), mounted at /etc/rocelab.
 * - A headless Service (clusterIP None, publishNotReadyAddresses) gives every pod the DNS name
 *   `<node>.<service>` while it is still waiting at the start gate (not ready yet).
 * - One bare Pod per topology node (hostname = node, subdomain = service). Not a StatefulSet:
 *   its pods are named `<set>-0`, and the hostname field would be overridden by that name; and a
 *   node restarted mid-run cannot rejoin an emulation anyway (restartPolicy Never).
 * - Each container gets NET_ADMIN and nothing else (tc shaping), requests = limits (Guaranteed
 *   QoS: a throttled node lags the emulated clock), a readiness probe on /metrics.
 * - The traffic job is a Job whose pod is `traffic.<service>`: it serves the HTTP start gate
 *   (no shared volume or clock across machines) and follows the run through the nodes' /metrics.
 * - Prometheus finds the nodes by `prometheus.io/*` annotations and by a PodMonitor
 *   (prometheus-operator). Topology spread keeps a large testbed spread over machines.
 */
import { readFileSync } from 'node:fs';
import type { Model } from '@kubernetes-models/base';
import { PodMonitor } from '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1/PodMonitor';
import { Job } from 'kubernetes-models/batch/v1/Job';
import type { IContainer } from 'kubernetes-models/v1/Container';
import type { IEnvVar } from 'kubernetes-models/v1/EnvVar';
import { Namespace } from 'kubernetes-models/v1/Namespace';
import { Pod } from 'kubernetes-models/v1/Pod';
import type { IPodSpec } from 'kubernetes-models/v1/PodSpec';
import { Service } from 'kubernetes-models/v1/Service';
import { stringify } from 'yaml';
import { ConfigError } from '../config/errors.js';
import type { FileSet } from './compose.js';
import {
  type DeployNode,
  type DeployPlan,
  GATE_PORT,
  GENEVE_PORT,
  IMAGE_APP_DIR,
  METRICS_PORT,
  projectName,
  SCENARIO_MOUNT_DIR,
} from './model.js';

export interface K8sOptions {
  namespace?: string;
  /** Container image of the nodes and the traffic job (default rocelab:local). */
  image?: string;
  /** Per node container: CPU and memory, requests = limits. */
  cpu?: string;
  memory?: string;
}

export const K8S_LABEL_PREFIX = 'rocelab.dev';
export const DEFAULT_IMAGE = 'rocelab:local';

const DNS_1123 = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;
// Image reference: [registry[:port]/]path[:tag][@digest] with the usual character sets.
const IMAGE_REF =
  /^[a-z0-9]+(?:[._-][a-z0-9]+)*(?::\d+)?(?:\/[a-z0-9]+(?:[._-][a-z0-9]+)*)*(?::[\w][\w.-]{0,127})?(?:@sha256:[a-f0-9]{64})?$/;

export interface K8sManifests {
  files: FileSet;
  /** Every object, in file order (validated). */
  objects: Model<unknown>[];
  service: string;
  namespace: string | null;
}

export function renderK8s(plan: DeployPlan, opts: K8sOptions = {}): K8sManifests {
  const ns = opts.namespace ?? null;
  if (ns !== null && !DNS_1123.test(ns))
    throw new ConfigError('--namespace', `${JSON.stringify(ns)} is not a DNS label (a-z, 0-9, inner "-")`);
  const image = opts.image ?? DEFAULT_IMAGE;
  if (!IMAGE_REF.test(image))
    throw new ConfigError('--image', `${JSON.stringify(image)} is not an image reference`);
  const project = projectName(plan.scenario);
  const svc = project;
  const configMap = `${project}-scenario`;
  const cpu = opts.cpu ?? '1';
  const memory = opts.memory ?? '512Mi';
  const instance = { 'app.kubernetes.io/name': 'rocelab', 'app.kubernetes.io/instance': project };
  const addressMap = JSON.stringify(
    Object.fromEntries(plan.nodes.map((n) => [n.name, `${n.name}.${svc}:${GENEVE_PORT}`])),
  );
  const commonEnv: IEnvVar[] = [
    { name: 'SCENARIO', value: `${SCENARIO_MOUNT_DIR}/scenario.yaml` },
    ...(plan.sets.length > 0 ? [{ name: 'ROCELAB_SET', value: plan.sets.join(';') }] : []),
    { name: 'ADDRESS_MAP', value: addressMap },
    { name: 'METRICS_PORT', value: String(METRICS_PORT) },
    { name: 'START_GATE', value: `http://traffic.${svc}:${GATE_PORT}` },
    { name: 'LOG_LEVEL', value: 'info' },
  ];
  const volumes: IPodSpec['volumes'] = [{ name: 'scenario', configMap: { name: configMap } }];
  const volumeMounts: IContainer['volumeMounts'] = [
    { name: 'scenario', mountPath: SCENARIO_MOUNT_DIR, readOnly: true },
  ];
  const resources = { requests: { cpu, memory }, limits: { cpu, memory } };

  const objects: Model<unknown>[] = [];
  const files: FileSet = new Map();
  const emit = (file: string, list: Model<unknown>[]) => {
    for (const o of list) o.validate();
    objects.push(...list);
    files.set(file, list.map((o) => stringify(o.toJSON(), { lineWidth: 0 })).join('---\n'));
  };

  if (ns !== null) emit('namespace.yaml', [new Namespace({ metadata: { name: ns, labels: instance } })]);

  emit('service.yaml', [
    new Service({
      metadata: { name: svc, labels: instance },
      spec: {
        clusterIP: 'None',
        // Names must resolve while every pod still waits at the start gate (not ready).
        publishNotReadyAddresses: true,
        selector: instance,
        ports: [
          { name: 'geneve', port: GENEVE_PORT, protocol: 'UDP', targetPort: 'geneve' },
          { name: 'metrics', port: METRICS_PORT, protocol: 'TCP', targetPort: 'metrics' },
          { name: 'gate', port: GATE_PORT, protocol: 'TCP', targetPort: 'gate' },
        ],
      },
    }),
  ]);

  const nodePod = (n: DeployNode) =>
    new Pod({
      metadata: {
        name: `${project}-${n.name}`,
        labels: {
          ...instance,
          'app.kubernetes.io/component': 'node',
          [`${K8S_LABEL_PREFIX}/role`]: n.role,
          [`${K8S_LABEL_PREFIX}/node`]: n.name,
        },
        annotations: {
          'prometheus.io/scrape': 'true',
          'prometheus.io/port': String(METRICS_PORT),
          'prometheus.io/path': '/metrics',
        },
      },
      spec: {
        hostname: n.name,
        subdomain: svc,
        restartPolicy: 'Never',
        enableServiceLinks: false,
        topologySpreadConstraints: [
          {
            maxSkew: 1,
            topologyKey: 'kubernetes.io/hostname',
            whenUnsatisfiable: 'ScheduleAnyway',
            labelSelector: { matchLabels: { ...instance, 'app.kubernetes.io/component': 'node' } },
          },
        ],
        containers: [
          {
            name: 'node',
            image,
            imagePullPolicy: 'IfNotPresent',
            command: ['/bin/sh', `${IMAGE_APP_DIR}/deploy/entrypoint.sh`],
            args: ['node'],
            env: [
              { name: 'NODE', value: n.name },
              ...commonEnv,
              ...(n.role === 'host' ? [{ name: 'CC', value: n.cc! }] : []),
            ],
            ports: [
              { name: 'geneve', containerPort: GENEVE_PORT, protocol: 'UDP' },
              { name: 'metrics', containerPort: METRICS_PORT, protocol: 'TCP' },
            ],
            resources,
            readinessProbe: {
              httpGet: { path: '/metrics', port: 'metrics' },
              periodSeconds: 2,
              failureThreshold: 3,
            },
            securityContext: {
              privileged: false,
              allowPrivilegeEscalation: false,
              capabilities: { drop: ['ALL'], add: ['NET_ADMIN'] },
            },
            volumeMounts,
          },
        ],
        volumes,
      },
    });
  emit(
    'nodes.yaml',
    plan.nodes.map((n) => nodePod(n)),
  );

  const runRealS = Math.ceil((plan.scenario.durationNs * plan.scenario.timeScale) / 1e9);
  emit('traffic-job.yaml', [
    new Job({
      metadata: {
        name: `${project}-traffic`,
        labels: { ...instance, 'app.kubernetes.io/component': 'traffic' },
      },
      spec: {
        backoffLimit: 0,
        // Waiting for every node, the run, and the drain: never forever.
        activeDeadlineSeconds: runRealS + 900,
        template: {
          metadata: { labels: { ...instance, 'app.kubernetes.io/component': 'traffic' } },
          spec: {
            hostname: 'traffic',
            subdomain: svc,
            restartPolicy: 'Never',
            enableServiceLinks: false,
            containers: [
              {
                name: 'traffic',
                image,
                imagePullPolicy: 'IfNotPresent',
                command: ['node', `${IMAGE_APP_DIR}/dist/src/runtime/netns/traffic-job-main.js`],
                env: [...commonEnv, { name: 'START_LEAD_MS', value: '3000' }],
                ports: [{ name: 'gate', containerPort: GATE_PORT, protocol: 'TCP' }],
                resources: {
                  requests: { cpu: '500m', memory: '256Mi' },
                  limits: { cpu: '500m', memory: '256Mi' },
                },
                securityContext: {
                  privileged: false,
                  allowPrivilegeEscalation: false,
                  capabilities: { drop: ['ALL'] },
                },
                volumeMounts,
              },
            ],
            volumes,
          },
        },
      },
    }),
  ]);

  emit('podmonitor.yaml', [
    new PodMonitor({
      metadata: { name: project, labels: instance },
      spec: {
        selector: { matchLabels: { ...instance, 'app.kubernetes.io/component': 'node' } },
        podMetricsEndpoints: [
          {
            port: 'metrics',
            path: '/metrics',
            interval: '1s',
            relabelings: [
              {
                sourceLabels: [`__meta_kubernetes_pod_label_${promLabel(`${K8S_LABEL_PREFIX}/role`)}`],
                targetLabel: 'role',
              },
            ],
          },
        ],
      },
    }),
  ]);

  const kustomization: Record<string, unknown> = {
    apiVersion: 'kustomize.config.k8s.io/v1beta1',
    kind: 'Kustomization',
    ...(ns !== null ? { namespace: ns } : {}),
    resources: [...files.keys()],
    // The scenario and the files it names beside itself (workload CDFs), all in /etc/rocelab.
    configMapGenerator: [{ name: configMap, files: ['scenario.yaml', ...plan.sideFiles.keys()] }],
  };
  files.set('scenario.yaml', readFileSync(plan.scenarioPath, 'utf8'));
  for (const [name, path] of plan.sideFiles) files.set(name, readFileSync(path, 'utf8'));
  const header = [
    `# rocelab testbed "${plan.scenario.name}" for Kubernetes (generated by \`rocelab deploy k8s\`; docs/deploy.md).`,
    '#   kubectl apply -k .        then  kubectl logs -f job/' + `${project}-traffic`,
    '',
  ].join('\n');
  files.set('kustomization.yaml', header + stringify(kustomization, { lineWidth: 0 }));
  return { files, objects, service: svc, namespace: ns };
}

/** Kubernetes label name → the Prometheus meta label suffix (non-alphanumerics become _). */
function promLabel(k: string): string {
  return k.replace(/[^a-zA-Z0-9_]/g, '_');
}
