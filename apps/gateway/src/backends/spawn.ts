/**
 * How a stdio backend is spawned, from its config: the command line and environment given to
 * StdioClientTransport. Free of zod and of the protocol's main module, so the cold start can
 * spawn backends first thing (prestart.ts) and the supervisor can tell whether such an early
 * child is the one its validated config asks for (the same spec).
 */

/**
 * The gateway's own settings (see cli.ts and the protocol's runCli): never a backend's, even with
 * `inheritEnv`. A stdio backend that inherited `MCP_TRANSPORT=http MCP_PORT=…` would start as an
 * HTTP server on the gateway's port, and the gateway's secrets — its clients' token, the
 * /metrics token, the Redis URL with its password, the OTLP exporter's headers — would reach a
 * third party. Every flag's variable of runCli and the gateway is here (a test keeps it so), and
 * the `_FILE` form of each secret (the container entrypoint's).
 */
export const GATEWAY_VARIABLES: readonly string[] = [
  // runCli's COMMON_OPTIONS
  'MCP_TRANSPORT',
  'MCP_HOST',
  'MCP_PORT',
  'LOG_LEVEL',
  'LOG_FORMAT',
  'MCP_METRICS',
  'MCP_METRICS_TOKEN',
  'MCP_REDIS_URL',
  'MCP_REDIS_PREFIX',
  'MCP_DRAIN_TIMEOUT',
  'MCP_DRAIN_DELAY',
  'MCP_CORS_ORIGINS',
  'MCP_PUBLIC_URL',
  'MCP_AUTH_ISSUER',
  'MCP_AUTH_AUDIENCE',
  'MCP_AUTH_CLIENT_ID',
  'MCP_AUTH_CLIENT_SECRET',
  'MCP_HELP',
  'MCP_VERSION',
  // the gateway's GATEWAY_OPTIONS
  'MCP_GATEWAY_CONFIG',
  'MCP_GATEWAY_EVENTS',
  'MCP_GATEWAY_SERVER',
  'MCP_GATEWAY_TASK_AFTER',
  'MCP_GATEWAY_TOKEN',
  // the credential vault's keys (gateway.vault)
  'MCP_GATEWAY_VAULT_KEY',
  'MCP_GATEWAY_VAULT_PREVIOUS_KEYS',
  // secrets as files (deploy/container/entrypoint.sh)
  'MCP_GATEWAY_TOKEN_FILE',
  'MCP_METRICS_TOKEN_FILE',
  // the OTLP exporter's credentials (OpenTelemetry's standard variables)
  'OTEL_EXPORTER_OTLP_HEADERS',
  'OTEL_EXPORTER_OTLP_TRACES_HEADERS',
  'OTEL_EXPORTER_OTLP_METRICS_HEADERS',
  'OTEL_EXPORTER_OTLP_LOGS_HEADERS',
];

/**
 * What a stdio backend is given on top of the minimal safe environment (StdioClientTransport
 * adds PATH, HOME, USER, LANG, TMPDIR …): its configured `env`, and with `inheritEnv` the
 * gateway's whole environment first — minus the gateway's own settings either way.
 */
export function backendEnv(
  env: Readonly<Record<string, string>>,
  inheritEnv: boolean,
  from: NodeJS.ProcessEnv = process.env,
): Record<string, string> {
  const out: Record<string, string> = {};
  if (inheritEnv) {
    for (const [key, value] of Object.entries(from)) {
      if (value !== undefined && !GATEWAY_VARIABLES.includes(key)) out[key] = value;
    }
  }
  return { ...out, ...env };
}

/** The fields of a (validated) stdio backend config that decide how it is spawned. */
export interface StdioLaunch {
  command: string;
  args: readonly string[];
  cwd?: string | undefined;
  env: Readonly<Record<string, string>>;
  inheritEnv: boolean;
}

/** What StdioClientTransport is given to spawn a backend (besides its stderr callback). */
export interface StdioSpec {
  command: string;
  args: readonly string[];
  cwd?: string;
  env: Record<string, string>;
}

export function stdioSpec(launch: StdioLaunch, from: NodeJS.ProcessEnv = process.env): StdioSpec {
  return {
    command: launch.command,
    args: launch.args,
    ...(launch.cwd === undefined ? {} : { cwd: launch.cwd }),
    env: backendEnv(launch.env, launch.inheritEnv, from),
  };
}

/** Whether two specs spawn the same process (same command line, directory and environment). */
export function sameSpec(a: StdioSpec, b: StdioSpec): boolean {
  if (a.command !== b.command || a.cwd !== b.cwd || a.args.length !== b.args.length) return false;
  if (a.args.some((arg, i) => arg !== b.args[i])) return false;
  const keys = Object.keys(a.env);
  if (keys.length !== Object.keys(b.env).length) return false;
  return keys.every((key) => Object.hasOwn(b.env, key) && a.env[key] === b.env[key]);
}
