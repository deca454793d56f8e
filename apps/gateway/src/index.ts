export { Backend, type BackendState } from './backends/backend.js';
export {
  type BackendConfig,
  ConfigError,
  defaultConfig,
  type GatewayConfig,
  loadConfig,
  parseConfig,
} from './config.js';
export * from './events.js';
export { Gateway, type GatewayOptions, type RestartOutcome, VERSION } from './gateway.js';
export {
  type CallFacts,
  type Decision,
  type RuleConfig,
  RuleError,
  RuleSet,
} from './governance/rules.js';
export { advertisedName, CLIENT_SAFE } from './names.js';
