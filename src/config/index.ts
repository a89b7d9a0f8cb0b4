/** Public API of the config layer: scenario types, loading, units and errors. */
export { type CcRegistryLike, checkCcNames, resolveCcParams } from './cc-params.js';
export { ConfigError, formatPath, isConfigError, suggest } from './errors.js';
export {
  loadScenario,
  type ParseOptions,
  parseKeyPath,
  parseOverride,
  parseScenarioText,
  type ScenarioSource,
} from './load.js';
export { topologyNodeNames } from './resolve.js';
export * from './scenario.js';
export * from './units.js';
