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
export type { CallHook, HookCall } from './governance/hooks.js';
export {
  type CallFacts,
  type Decision,
  type RuleConfig,
  RuleError,
  RuleSet,
} from './governance/rules.js';
export { advertisedName, CLIENT_SAFE } from './names.js';
export type { VirtualServerConfig } from './servers/definition.js';
export { VirtualServer, VirtualServers } from './servers/virtual-servers.js';
