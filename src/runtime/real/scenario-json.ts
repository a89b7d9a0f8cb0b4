/**
 * A resolved Scenario as JSON, so a launcher hands its nodes exactly the scenario it validated
 * (with --set applied; --seed and --cc travel beside it as SEED and CC, coordinator.ts baseEnv)
 * instead of each node re-reading the YAML. Long-lived
 * flows have size Infinity, which JSON cannot hold; it travels as the string "Infinity".
 */
import type { Scenario } from '../../config/scenario.js';

export function scenarioToJson(s: Scenario): string {
  return JSON.stringify(s, (_k, v) => (v === Number.POSITIVE_INFINITY ? 'Infinity' : v));
}

export function scenarioFromJson(text: string): Scenario {
  return JSON.parse(text, (_k, v) => (v === 'Infinity' ? Number.POSITIVE_INFINITY : v)) as Scenario;
}
