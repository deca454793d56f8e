/**
 * How a stdio backend is spawned, from its config: the command line and environment given to
 * StdioClientTransport. Free of zod and of the protocol's main module, so the cold start can
 * spawn backends first thing (prestart.ts) and the supervisor can tell whether such an early
 * child is the one its validated config asks for (the same spec).
 */

/**
 * The gateway's own settings (see cli.ts and the protocol's runCli): never a backend's. A stdio
 * backend that inherited `MCP_TRANSPORT=http MCP_PORT=…` would start as an HTTP server on the
 * gateway's port, and the token would reach a third party.
 */
const GATEWAY_VARIABLES = [
  'MCP_TRANSPORT',
  'MCP_HOST',
  'MCP_PORT',
  'MCP_HELP',
  'MCP_VERSION',
  'LOG_LEVEL',
  'MCP_GATEWAY_CONFIG',
  'MCP_GATEWAY_EVENTS',
  'MCP_GATEWAY_TOKEN',
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
