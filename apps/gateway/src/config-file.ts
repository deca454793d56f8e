/**
 * The config as read, before validation: the file, `${env:VAR}` interpolation and the built-in
 * default. Kept free of zod (config.ts validates) so that the cold start can read the config and
 * spawn the stdio backends before the rest of the gateway is loaded (see prestart.ts).
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { homedir } from 'node:os';
import { dirname, isAbsolute, join, resolve } from 'node:path';

/** A config that cannot be read or is invalid; the message names each field at fault. */
export class ConfigError extends Error {
  /** @param message - What is wrong, naming the field. */
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

/** `${env:VAR}` in any string of the config, from the environment; a missing variable is an error. */
export function interpolate(value: unknown, env: NodeJS.ProcessEnv, path = ''): unknown {
  if (typeof value === 'string') {
    return value.replace(/\$\{env:([A-Za-z_][A-Za-z0-9_]*)\}/g, (_m, name: string) => {
      const v = env[name];
      if (v === undefined)
        throw new ConfigError(`${path || '(root)'}: environment variable ${name} is not set`);
      return v;
    });
  }
  if (Array.isArray(value)) return value.map((v, i) => interpolate(v, env, `${path}[${i}]`));
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [k, interpolate(v, env, path ? `${path}.${k}` : k)]),
    );
  }
  return value;
}

/** The parsed JSON of a config file, not yet validated; throws a ConfigError. */
export function readConfigFile(file: string): unknown {
  return readConfigText(file).raw;
}

/** A config file's text and what it parses to (see {@link readConfigFile}). */
export function readConfigText(file: string): { raw: unknown; text: string } {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new ConfigError(`cannot read config ${file}: ${(err as Error).message}`);
  }
  try {
    return { raw: JSON.parse(text), text };
  } catch (err) {
    throw new ConfigError(`config ${file} is not JSON: ${jsonProblem(err as Error, text)}`);
  }
}

/**
 * The line (1-based) where the value at `path` starts in the JSON `text` (valid JSON), or
 * undefined: what a config error names, so an operator finds the rule or backend at once.
 */
export function lineOf(text: string, path: readonly (string | number)[]): number | undefined {
  const target = path.map(String).join('\0');
  let i = 0;
  let line = 1;
  let found: number | undefined;
  const space = () => {
    while (i < text.length && ' \t\r\n'.includes(text[i] as string)) {
      if (text[i] === '\n') line++;
      i++;
    }
  };
  const string = (): string => {
    const start = i++;
    while (i < text.length && text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
    i++;
    return JSON.parse(text.slice(start, i)) as string;
  };
  const value = (at: string): void => {
    space();
    if (found === undefined && at === target) found = line;
    const c = text[i];
    if (c === '{' || c === '[') {
      const close = c === '{' ? '}' : ']';
      i++;
      space();
      if (text[i] === close) {
        i++;
        return;
      }
      for (let n = 0; ; n++) {
        space();
        let key = String(n);
        if (c === '{') {
          key = string();
          space();
          i++; // the colon
        }
        value(at === '' && target !== '' ? key : `${at}\0${key}`);
        space();
        if (text[i++] !== ',') return;
      }
    }
    if (c === '"') {
      string();
      return;
    }
    while (i < text.length && !',}] \t\r\n'.includes(text[i] as string)) i++;
  };
  try {
    value('');
  } catch {
    return undefined;
  }
  return found;
}

/**
 * What is wrong with `text` as JSON, and where, without quoting it: V8's messages can carry a
 * piece of the text (`Unexpected token 's', "{"token": s3cret}" is not valid JSON`), and a
 * config's text holds secrets — the message goes to the log and the event log, which every
 * token holder may read.
 */
export function jsonProblem(err: Error, text: string): string {
  const message = err.message;
  const token = /^Unexpected token '.'/.exec(message)?.[0];
  // Nothing from the first quote on: that is where V8 puts a piece of the text.
  const what = (token ?? message.split(' in JSON at position')[0] ?? '').split('"')[0]?.trim();
  const at = /position (\d+)/.exec(message);
  let offset = at ? Number(at[1]) : undefined;
  // A message that quotes the text names the token, not where it is: find where parsing stopped.
  if (offset === undefined) {
    const char = token?.charAt(token.length - 2);
    if (char) offset = firstUnexpected(text, char);
  }
  if (offset === undefined) return what || 'invalid JSON';
  const before = text.slice(0, offset);
  const line = before.split('\n').length;
  const column = offset - before.lastIndexOf('\n');
  return `${what} at line ${line}, column ${column}`;
}

/** Where `token` first appears outside a JSON string: where a parser would have stopped at it. */
function firstUnexpected(text: string, token: string): number | undefined {
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === token) return i;
  }
  return undefined;
}

/** Where a sibling app's CLI is installed: resolved like any dependency (monorepo or npm). */
function siblingCli(app: 'projects' | 'system-info'): string {
  const manifest = createRequire(import.meta.url).resolve(`@mcpkit/${app}/package.json`);
  return resolve(dirname(manifest), 'dist', 'cli.js');
}

/**
 * The built-in projects backend's own SQLite file, `${XDG_DATA_HOME ?? ~/.local/share}/mcpkit/
 * gateway-projects.db`: the gateway seeds a demo user into it, which must not land in the database
 * a standalone `mcp-projects` uses (`projects.db` beside it).
 */
export function defaultGatewayProjectsDatabase(env: NodeJS.ProcessEnv = process.env): string {
  const xdg = env.XDG_DATA_HOME;
  // The XDG spec says to ignore a relative (or empty) value.
  const base = xdg && isAbsolute(xdg) ? xdg : join(homedir(), '.local', 'share');
  return join(base, 'mcpkit', 'gateway-projects.db');
}

/**
 * The config used with no --config, unvalidated: the two sibling servers of this repository,
 * over stdio. The projects backend gets `DATABASE_URL` when the gateway has one, else its own
 * file ({@link defaultGatewayProjectsDatabase}).
 */
export function defaultRawConfig(env: NodeJS.ProcessEnv = process.env): unknown {
  return {
    gateway: { name: 'mcpkit-gateway' },
    mcpServers: {
      projects: {
        command: process.execPath,
        args: [
          siblingCli('projects'),
          '--seed-demo',
          '--user',
          'demo@codefluss.local',
          '--log-level',
          'warn',
        ],
        namespace: 'projects',
        env: { DATABASE_URL: env.DATABASE_URL || defaultGatewayProjectsDatabase(env) },
      },
      'system-info': {
        command: process.execPath,
        args: [siblingCli('system-info'), '--log-level', 'warn'],
        namespace: 'sysinfo',
      },
    },
  };
}
