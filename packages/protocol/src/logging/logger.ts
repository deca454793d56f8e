import { Console } from 'node:console';
import { type Logger, type LoggerOptions, pino } from 'pino';

export type { Logger };

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
  return pino(config, pino.destination({ dest: 2, sync: true }));
}

/**
 * Point the global console at stderr. A dependency that prints to stdout would otherwise inject
 * non-JSON lines into a stdio server's protocol stream.
 */
export function guardStdout(): void {
  globalThis.console = new Console({ stdout: process.stderr, stderr: process.stderr });
}
