import { createRequire } from 'node:module';
import type { DestinationStream, Logger, LoggerOptions } from 'pino';

export type { Logger };

const require = createRequire(import.meta.url);

/** The levels of the process's own log (pino, stderr) — not MCP's `MCP_LOGGING_LEVELS`. */
export const PINO_LOG_LEVELS = [
  'fatal',
  'error',
  'warn',
  'info',
  'debug',
  'trace',
  'silent',
] as const;
/** A level of the process's own log: `fatal` … `trace`, or `silent`. */
export type PinoLogLevel = (typeof PINO_LOG_LEVELS)[number];

/** Options of {@link createLogger}. */
export interface CreateLoggerOptions {
  /** The `name` field of every line (the app's command). */
  name?: string;
  /** The least severe level written. Default `info`. */
  level?: PinoLogLevel;
  /** Extra redaction paths on top of the defaults (credentials never reach the log). */
  redact?: string[];
  /**
   * `json` (pino's lines, for machines and log collectors) or `pretty` (one readable line per
   * entry with a local time, colours on a terminal — for a person at a terminal). Default `json`.
   */
  format?: LogFormat;
}

/** How the stderr log is written: pino's JSON lines, or readable lines for a terminal. */
export type LogFormat = 'json' | 'pretty';

/** `auto`: `pretty` when stderr is a terminal, else `json` — what `--log-format` defaults to. */
export function resolveLogFormat(
  setting: string | undefined,
  stderr: { isTTY?: boolean } = process.stderr,
): LogFormat {
  if (setting === 'json' || setting === 'pretty') return setting;
  return stderr.isTTY ? 'pretty' : 'json';
}

/**
 * pino-pretty, loaded only when asked for (its dependencies cost ~10 ms at start-up), writing to
 * stderr synchronously like the JSON destination.
 */
function prettyDestination(): DestinationStream {
  const pretty = require('pino-pretty') as (options: object) => DestinationStream;
  return pretty({
    destination: 2,
    sync: true,
    colorize: process.stderr.isTTY === true,
    translateTime: 'SYS:HH:MM:ss.l',
    ignore: 'pid,hostname',
  });
}

const DEFAULT_REDACT = [
  'authorization',
  'headers.authorization',
  'req.headers.authorization',
  'token',
  'apiKey',
  'password',
  '*.token',
  '*.apiKey',
  '*.password',
];

/**
 * A pino logger that writes to stderr: on a stdio server stdout belongs to JSON-RPC, and a single
 * stray line there corrupts the client's stream. Writes are synchronous so the last lines before
 * a crash are not lost.
 */
export function createLogger(options: CreateLoggerOptions = {}): Logger {
  const config: LoggerOptions = {
    level: options.level ?? 'info',
    redact: { paths: [...DEFAULT_REDACT, ...(options.redact ?? [])], censor: '[redacted]' },
  };
  if (options.name !== undefined) config.name = options.name;
  // pino is loaded here, not with the package: a process that imports @mcpkit/node for its types
  // or its HTTP server alone (a test, an embedding) makes no logger.
  const { pino: create } = require('pino') as typeof import('pino');
  const destination =
    options.format === 'pretty' ? prettyDestination() : create.destination({ dest: 2, sync: true });
  return create(config, destination);
}
