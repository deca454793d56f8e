/**
 * Cold start: the stdio backends are spawned first thing, before the rest of the gateway (the
 * protocol engine, zod, pino, the event log …) is loaded, so that they boot while it does. A
 * backend that is itself a Node MCP server takes ~200 ms to answer its first request; spawned
 * after the gateway had loaded (~250 ms), a client's first call waited for both in turn.
 *
 * Only what spawning needs is read here, with no validation library: the command line (which
 * config; nothing for --help, --version or a stray argument), the config file with its
 * `${env:VAR}` values, and each stdio backend's command, arguments, directory and environment.
 * The gateway still validates the whole config; each backend then takes the child spawned for it
 * only if its validated config asks for exactly that process (see {@link takePrestarted}), and
 * what nobody took — a config that turned out invalid, a name it dropped — is stopped
 * ({@link releasePrestarted}). Nothing here throws: anything unexpected means no early spawn,
 * and the gateway starts its backends itself, as it always did. The one difference it makes: a
 * start that fails once the config was read (invalid in a field spawning does not read, an event
 * log that cannot be opened) has started the backends for a moment, and stops them.
 */
// The stdio entry point alone: the main one would load the whole engine (zod …) before the spawn.
import { type ClientTransport, type FrameSink, StdioClientTransport } from '@mcpkit/protocol/stdio';
import { type StdioSpec, sameSpec, stdioSpec } from './backends/spawn.js';
import { defaultRawConfig, interpolate, readConfigFile } from './config-file.js';

/**
 * Every flag that takes a value: the string flags of the protocol's runCli (COMMON_OPTIONS) and
 * the gateway's own (GATEWAY_OPTIONS) — listed here rather than imported, so that spawning loads
 * neither; a test checks the lists against both. Anything else on the command line (another flag,
 * a positional) means no early spawn: runCli will refuse it, or it is an action (--help,
 * --version) that starts nothing.
 */
export const GATEWAY_STRING_FLAGS = ['config', 'events', 'server', 'task-after', 'token'];
export const RUNNER_STRING_FLAGS = [
  'transport',
  'host',
  'port',
  'log-level',
  'log-format',
  'metrics',
  'metrics-token',
  'redis-url',
  'redis-prefix',
  'drain-timeout',
  'drain-delay',
  'cors-origins',
  'public-url',
  'auth-issuer',
  'auth-audience',
  'auth-client-id',
  'auth-client-secret',
];

/** A backend's early child, until its Backend takes it. */
export interface Prestarted {
  readonly spec: StdioSpec;
  /** The child's transport: its pid, `exited`, `close()`. */
  readonly process: StdioClientTransport;
  /**
   * The transport to hand McpClient: its start() gets what the child wrote so far, then the rest.
   * `onStderr` gets the stderr written so far at once, then each chunk.
   */
  adopt(onStderr: (chunk: string) => void): ClientTransport;
}

const early = new Map<string, Prestarted>();
let signalsHeld = false;
/** Set by a signal before the gateway's own handlers were in: the process is on its way out. */
let exiting: Promise<void> | undefined;

/**
 * The config file the command line names (`--config`, else MCP_GATEWAY_CONFIG), `null` for the
 * built-in config, or `undefined` when this command line must not spawn anything.
 */
export function configToStart(
  argv: readonly string[],
  env: NodeJS.ProcessEnv,
): string | null | undefined {
  const takesValue = new Set([...RUNNER_STRING_FLAGS, ...GATEWAY_STRING_FLAGS]);
  let config: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    // runCli drops a `--` (`pnpm start -- --port 4000`).
    if (arg === '--') continue;
    if (!arg.startsWith('--')) return undefined;
    const eq = arg.indexOf('=');
    const name = arg.slice(2, eq === -1 ? undefined : eq);
    if (!takesValue.has(name)) return undefined;
    let value: string | undefined;
    if (eq !== -1) value = arg.slice(eq + 1);
    else {
      value = argv[++i];
      // parseArgs refuses `--config --port …`: so does this.
      if (value === undefined || value.startsWith('-')) return undefined;
    }
    if (name === 'config') config = value;
  }
  // As runCli resolves it: the flag, else the variable when it is set and not empty.
  config ??= env.MCP_GATEWAY_CONFIG || undefined;
  return config ?? null;
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);
const strings = (v: unknown): v is string[] =>
  Array.isArray(v) && v.every((x) => typeof x === 'string');

/**
 * The spawn spec of each stdio backend of a raw (interpolated, unvalidated) config, by name — for
 * those whose launch fields are plainly well-formed; defaults as the config schema fills them in.
 */
export function rawStdioSpecs(raw: unknown, env: NodeJS.ProcessEnv): Map<string, StdioSpec> {
  const specs = new Map<string, StdioSpec>();
  const servers = isObject(raw) ? raw.mcpServers : undefined;
  if (!isObject(servers)) return specs;
  for (const [name, b] of Object.entries(servers)) {
    if (!isObject(b) || 'url' in b || (b.type !== undefined && b.type !== 'stdio')) continue;
    if (b.enabled !== undefined && b.enabled !== true) continue;
    if (typeof b.command !== 'string' || b.command === '') continue;
    if (b.args !== undefined && !strings(b.args)) continue;
    if (b.cwd !== undefined && typeof b.cwd !== 'string') continue;
    if (b.inheritEnv !== undefined && typeof b.inheritEnv !== 'boolean') continue;
    const vars = b.env ?? {};
    if (!isObject(vars) || !Object.values(vars).every((v) => typeof v === 'string')) continue;
    specs.set(
      name,
      stdioSpec(
        {
          command: b.command,
          args: (b.args as string[] | undefined) ?? [],
          cwd: b.cwd as string | undefined,
          env: vars as Record<string, string>,
          inheritEnv: (b.inheritEnv as boolean | undefined) ?? false,
        },
        env,
      ),
    );
  }
  return specs;
}

/**
 * Spawn the stdio backends of the config this command line names, before anything else loads.
 * Returns how many were spawned. Never throws.
 */
export function prestartBackends(
  argv: readonly string[] = process.argv.slice(2),
  env: NodeJS.ProcessEnv = process.env,
): number {
  let specs: Map<string, StdioSpec>;
  try {
    const file = configToStart(argv, env);
    if (file === undefined) return 0;
    const raw = file === null ? defaultRawConfig(env) : readConfigFile(file);
    specs = rawStdioSpecs(interpolate(raw, env), env);
  } catch {
    // Unreadable, not JSON, a variable missing: the gateway reports it itself, with no spawn.
    return 0;
  }
  // Before the first spawn: a child is in /proc (and may be signalled about) before spawn returns.
  if (specs.size > 0) holdSignals();
  for (const [name, spec] of specs) {
    try {
      early.set(name, spawnEarly(spec));
    } catch {
      // Left to the gateway, which reports a failure the way it always has.
    }
  }
  if (early.size === 0) releaseSignals();
  return early.size;
}

function spawnEarly(spec: StdioSpec): Prestarted {
  type Held = ['frame', string] | ['rejected', 'too_large' | 'not_utf8', number] | ['end', Error?];
  const held: Held[] = [];
  const stderr: string[] = [];
  let sink: FrameSink | undefined;
  let onStderr: ((chunk: string) => void) | undefined;
  const child = new StdioClientTransport({
    ...spec,
    onStderr: (chunk) => (onStderr ? onStderr(chunk) : stderr.push(chunk)),
  });
  child.start({
    frame: (text) => (sink ? sink.frame(text) : held.push(['frame', text])),
    rejected: (reason, bytes) =>
      sink ? sink.rejected(reason, bytes) : held.push(['rejected', reason, bytes]),
    end: (error) => (sink ? sink.end(error) : held.push(['end', error])),
  });
  return {
    spec,
    process: child,
    adopt(stderrTo) {
      onStderr = stderrTo;
      for (const chunk of stderr.splice(0)) stderrTo(chunk);
      return {
        start(to) {
          sink = to;
          for (const item of held.splice(0)) {
            if (item[0] === 'frame') to.frame(item[1]);
            else if (item[0] === 'rejected') to.rejected(item[1], item[2]);
            else to.end(item[1]);
          }
        },
        send: (frame) => child.send(frame),
        close: () => child.close(),
      };
    },
  };
}

/**
 * The early child spawned for backend `name`, if it is the very process `spec` describes (then it
 * is the caller's). One that is not is stopped, and resolves undefined only once it is gone: its
 * replacement must not overlap it (a backend holding a lock file or a port would fail to start).
 * Undefined when there is none.
 */
export async function takePrestarted(
  name: string,
  spec: StdioSpec,
): Promise<Prestarted | undefined> {
  const found = early.get(name);
  if (!found) return undefined;
  early.delete(name);
  if (sameSpec(found.spec, spec)) return found;
  await found.process.close();
  return undefined;
}

/** Stops the early children nobody took, and lets go of the signals. */
export async function releasePrestarted(): Promise<void> {
  releaseSignals();
  const left = [...early.values()];
  early.clear();
  await Promise.all(left.map((p) => p.process.close()));
}

/**
 * From the first spawn until the gateway's own handlers are in (releaseSignals), a SIGTERM,
 * SIGINT or SIGHUP stops the early children before the process ends: its default action would
 * orphan them where the kernel's parent-death signal is not available.
 */
function holdSignals(): void {
  if (signalsHeld) return;
  signalsHeld = true;
  process.once('SIGTERM', onSignal);
  process.once('SIGINT', onSignal);
  process.once('SIGHUP', onSignal);
}

/** The gateway's handlers are in (or nothing is left to stop): stop catching signals here. */
export function releaseSignals(): void {
  if (!signalsHeld) return;
  signalsHeld = false;
  process.off('SIGTERM', onSignal);
  process.off('SIGINT', onSignal);
  process.off('SIGHUP', onSignal);
}

function onSignal(): void {
  signalsHeld = false;
  exiting = releasePrestarted().finally(() => process.exit(0));
}

/**
 * Whether a signal ended the start before the gateway's handlers were in: then it must start
 * nothing more (the process exits once the early children are stopped).
 */
export function exitingEarly(): Promise<void> | undefined {
  return exiting;
}
