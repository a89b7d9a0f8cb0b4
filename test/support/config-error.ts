/**
 * The ConfigError a scenario text is refused with, asserted to be one (and one line, as the CLI
 * prints it): `loadError` when the loader refuses it, `setupError` when the run's setup does.
 */
import { expect } from 'vitest';
import { type ConfigError, isConfigError } from '../../src/config/errors.js';
import { parseScenarioText } from '../../src/config/load.js';
import { setupRun } from '../../src/runtime/scenario-setup.js';

function refusal(refuse: () => unknown): ConfigError {
  try {
    refuse();
  } catch (err) {
    expect(isConfigError(err)).toBe(true);
    expect((err as Error).message.includes('\n')).toBe(false);
    return err as ConfigError;
  }
  throw new Error('scenario unexpectedly loaded');
}

export function loadError(text: string, overrides: string[] = []): ConfigError {
  return refusal(() => parseScenarioText(text, { file: 'bad.yaml', overrides }));
}

export function setupError(text: string): ConfigError {
  return refusal(() => setupRun(parseScenarioText(text, { file: 'bad.yaml' })));
}
