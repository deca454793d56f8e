import { hasBrand } from '../jsonrpc/brand.js';

const VERSION_BRAND = Symbol.for('mcpkit.UnsupportedVersionError');
const TRANSPORT_BRAND = Symbol.for('mcpkit.TransportError');

/**
 * The server speaks no protocol version this client does: it answered initialize with one we do
 * not know, or (MCP 2026-07-28) its `server/discover` or `-32022` error names none we speak.
 */
export class UnsupportedVersionError extends Error {
  /** Marks an UnsupportedVersionError from any copy of this package. */
  readonly [VERSION_BRAND] = true;

  constructor(
    /** The version the client asked for. */
    readonly requested: string,
    /** The version the server answered with (modern: the versions it listed, comma-separated). */
    readonly offered: string,
  ) {
    super(`server offered protocol version '${offered}', which this client does not speak`);
    this.name = 'UnsupportedVersionError';
  }

  /** Whether `value` is an UnsupportedVersionError, from this copy of the package or another. */
  static is(value: unknown): value is UnsupportedVersionError {
    return hasBrand(value, VERSION_BRAND);
  }
}

/**
 * The transport failed beneath a request: an HTTP status that carries no JSON-RPC answer, a
 * stream that ended without one, a session the server no longer knows.
 */
export class TransportError extends Error {
  /** Marks a TransportError from any copy of this package. */
  readonly [TRANSPORT_BRAND] = true;

  constructor(
    message: string,
    /** The HTTP status, when there was one. */
    readonly status?: number,
    /** `cause`: what failed underneath (an OAuth sign-in that could not be done, say). */
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.name = 'TransportError';
  }

  /** Whether `value` is a TransportError, from this copy of the package or another. */
  static is(value: unknown): value is TransportError {
    return hasBrand(value, TRANSPORT_BRAND);
  }
}

const INPUT_BRAND = Symbol.for('mcpkit.InputRequiredError');
const ERA_BRAND = Symbol.for('mcpkit.UnsupportedInEraError');

/**
 * A modern (MCP 2026-07-28) server answered with `resultType: 'input_required'` (multi
 * round-trip requests) and McpClient did not finish the exchange for the caller: it runs in
 * `inputRequired: 'manual'` mode, it has no handler for one of the requests, or the server
 * asked more than `maxInputRounds` times. `result` holds what the server asked; in manual mode
 * {@link InputRequiredError.retry} sends the request again with the caller's answers.
 */
export class InputRequiredError extends Error {
  /** Marks an InputRequiredError from any copy of this package. */
  readonly [INPUT_BRAND] = true;
  readonly #retry: ((responses: Record<string, unknown>) => Promise<unknown>) | undefined;

  constructor(
    /** The method of the request the server wants input for. */
    readonly method: string,
    /** The server's `InputRequiredResult` as it came (`inputRequests`, `requestState`). */
    readonly result: Readonly<Record<string, unknown>>,
    /** Why the client stopped (no handler, too many rounds); default: manual mode. */
    detail = 'the caller answers it (inputRequired: manual)',
    retry?: (responses: Record<string, unknown>) => Promise<unknown>,
  ) {
    super(`'${method}' needs input from the client (resultType 'input_required'): ${detail}`);
    this.name = 'InputRequiredError';
    this.#retry = retry;
  }

  /**
   * Send the request again (a new JSON-RPC id) with `inputResponses` (one answer per key of
   * `result.inputRequests`) and the server's `requestState` as it came. Resolves with the
   * complete result, or rejects with another InputRequiredError for the next round. Rejects
   * with a TypeError when the error did not come from a request that can be retried.
   */
  retry<R = unknown>(responses: Record<string, unknown>): Promise<R> {
    if (!this.#retry) return Promise.reject(new TypeError('this request cannot be retried'));
    return this.#retry(responses) as Promise<R>;
  }

  /** Whether `value` is an InputRequiredError, from this copy of the package or another. */
  static is(value: unknown): value is InputRequiredError {
    return hasBrand(value, INPUT_BRAND);
  }
}

/**
 * What was asked for does not exist in the era the connection speaks: `resources/subscribe`
 * on a modern (MCP 2026-07-28) connection, which replaced it with `subscriptions/listen`, or
 * `subscriptions/listen` on a legacy one.
 */
export class UnsupportedInEraError extends Error {
  /** Marks an UnsupportedInEraError from any copy of this package. */
  readonly [ERA_BRAND] = true;

  constructor(
    /** The method or feature asked for, e.g. `'resources/subscribe'`. */
    readonly feature: string,
    /** The era of the connection. */
    readonly era: 'legacy' | 'modern',
    detail: string,
  ) {
    super(`${feature} is not available on a ${era} connection: ${detail}`);
    this.name = 'UnsupportedInEraError';
  }

  /** Whether `value` is an UnsupportedInEraError, from this copy of the package or another. */
  static is(value: unknown): value is UnsupportedInEraError {
    return hasBrand(value, ERA_BRAND);
  }
}

const TASK_CANCELLED_BRAND = Symbol.for('mcpkit.TaskCancelledError');

/** A task the client waited for ended `cancelled` — by another request, or the server. */
export class TaskCancelledError extends Error {
  /** Marks a TaskCancelledError from any copy of this package. */
  readonly [TASK_CANCELLED_BRAND] = true;

  constructor(
    /** The task. */
    readonly taskId: string,
    /** Its last status message, if any. */
    readonly statusMessage?: string,
  ) {
    super(`task ${taskId} was cancelled${statusMessage ? `: ${statusMessage}` : ''}`);
    this.name = 'TaskCancelledError';
  }

  /** Whether `value` is a TaskCancelledError, from this copy of the package or another. */
  static is(value: unknown): value is TaskCancelledError {
    return hasBrand(value, TASK_CANCELLED_BRAND);
  }
}
