import {
  encodeResponse,
  encodeResultJson,
  errorResponse,
  type Frame,
  type Incoming,
  isBlank,
} from '../jsonrpc/codec.js';
import type { Dispatcher, DispatchInputs } from '../jsonrpc/dispatcher.js';
import { ErrorCode, type RpcError } from '../jsonrpc/errors.js';
import { isPromiseLike, type MaybePromise } from '../jsonrpc/method.js';
import { editResultText, resultText } from '../jsonrpc/result-text.js';
import type { JsonRpcErrorObject, JsonRpcResponse } from '../jsonrpc/types.js';
import type { McpCallExtra, ModernOutcome } from './context.js';
import { modernClaim, parseEnvelope } from './era.js';
import { INPUT_METHODS, InputRound, invalidState, type RequestStateCodec } from './input-rounds.js';
import { CANCELLATION, INPUT, McpSession } from './session.js';

/** What a connection or an HTTP transport hands frames to: a Dispatcher, or the era router. */
export interface FrameHandler<E> {
  handleDecoded(frame: Frame, options: DispatchInputs<E>): MaybePromise<string | undefined>;
}

/** Adds what every modern result carries (`resultType`, server info, cache hints). */
export type ResultDecorator = (method: string, result: Record<string, unknown>) => unknown;

/** The same fields as JSON members, for results that have none of them (see `#encode`). */
export type ResultSuffix = (method: string) => string;

type Request = Extract<Incoming, { kind: 'request' }>;

/**
 * Routes every message by its era (MCP 2026-07-28, `basic/versioning`: "every request carries
 * its protocol version, and the server accepts or rejects each request independently"). A request
 * whose `_meta` claims the modern era is validated and served statelessly by the modern method
 * set, in a scope built from its envelope; everything else goes to the 2025-era dispatcher, on the
 * session of its connection, with the 2025-era methods. Both eras may share one stdio stream.
 */
export class EraRouter implements FrameHandler<McpCallExtra> {
  readonly #legacy: Dispatcher<McpCallExtra>;
  readonly #modern: Dispatcher<McpCallExtra>;
  readonly #decorate: ResultDecorator;
  readonly #states: RequestStateCodec;
  readonly #serverMeta: Record<string, unknown>;
  readonly #suffix: ResultSuffix;
  readonly #suffixes = new Map<string, string>();

  /**
   * @param decorate adds what every complete modern result carries
   * @param states signs and checks the `requestState` of multi round-trip input
   * @param serverMeta the `_meta` every modern result carries (the server's info)
   * @param suffix what `decorate` adds, as JSON members (computed once per method)
   */
  constructor(
    legacy: Dispatcher<McpCallExtra>,
    modern: Dispatcher<McpCallExtra>,
    decorate: ResultDecorator,
    states: RequestStateCodec,
    serverMeta: Record<string, unknown>,
    suffix: ResultSuffix,
  ) {
    this.#legacy = legacy;
    this.#modern = modern;
    this.#decorate = decorate;
    this.#states = states;
    this.#serverMeta = serverMeta;
    this.#suffix = suffix;
  }

  handleDecoded(
    frame: Frame,
    options: DispatchInputs<McpCallExtra>,
  ): MaybePromise<string | undefined> {
    if (frame.kind === 'single') {
      const message = frame.message;
      // JSON-RPC allows a null id; MCP does not (spec `basic/index`: "the ID MUST NOT be null"),
      // and a null id cannot be told from the id of an error about an unreadable request.
      if (message.kind === 'request' && message.id === null) {
        return encodeResponse(
          errorResponse(null, {
            code: ErrorCode.InvalidRequest,
            message: 'Invalid Request: an MCP request id must not be null',
          }),
        );
      }
      if (message.kind === 'request') {
        const meta = options.extra.claim ?? modernClaim(message.params);
        if (meta) return this.#serveModern(message, meta, options);
      }
    } else if (frame.kind === 'batch' && frame.messages.some(claims)) {
      // JSON-RPC batching is gone from MCP since 2025-06-18; a modern request in a batch would
      // be served under rules nobody asked for (spec `basic/index`: one request per message).
      return encodeResponse(
        errorResponse(null, {
          code: ErrorCode.InvalidRequest,
          message: 'Invalid Request: 2026-07-28 requests cannot be batched',
        }),
      );
    }
    return this.#legacy.handleDecoded(frame, options);
  }

  #serveModern(
    request: Request,
    meta: Record<string, unknown>,
    options: DispatchInputs<McpCallExtra>,
  ): MaybePromise<string | undefined> {
    let envelope: ReturnType<typeof parseEnvelope>;
    try {
      envelope = parseEnvelope(meta);
    } catch (err) {
      return this.#refuse(request, (err as RpcError).toJSON(), options);
    }
    // initialize, ping, logging/setLevel, resources/(un)subscribe … are not part of the modern
    // era (spec changelog): a modern request for one is a method the era does not have.
    if (!this.#modern.has(request.method)) {
      return this.#refuse(
        request,
        {
          code: ErrorCode.MethodNotFound,
          message: 'Method not found',
          data: { method: request.method },
        },
        options,
      );
    }
    const outer = options.extra;
    // The request's own scope: what its envelope says, the connection's way back for progress,
    // and the connection's cancellations (`notifications/cancelled` names this request's id).
    const session = new McpSession(outer.session.channel, outer.session[CANCELLATION]);
    session.era = 'modern';
    session.protocolVersion = envelope.protocolVersion;
    session.clientCapabilities = envelope.clientCapabilities;
    session.clientInfo = envelope.clientInfo;
    session.logLevel = envelope.logLevel;
    session.initializeAnswered = true;
    session.initialized = true;
    const params = request.params as Record<string, unknown>;
    const subject = outer.auth?.subject ?? '';
    if (INPUT_METHODS.has(request.method)) {
      let round: InputRound;
      try {
        round = InputRound.open(
          this.#states,
          request.method,
          params,
          subject,
          envelope.clientCapabilities,
        );
      } catch (err) {
        return this.#refuse(request, (err as RpcError).toJSON(), options);
      }
      session[INPUT] = round;
      // A fleet: the state is single use on every instance, not only on this one (a retry only
      // carries one when it answers a round, so the hot path never waits for the store).
      const claimed = round.spent && this.#states.claimShared(round.spent);
      if (claimed) {
        return claimed.then(
          (first) =>
            first
              ? this.#serve(request, session, params, subject, options)
              : this.#refuse(request, invalidState().toJSON(), options),
          () =>
            this.#refuse(
              request,
              {
                code: ErrorCode.InternalError,
                message:
                  'requestState cannot be checked now (the fleet store is unavailable); retry',
              },
              options,
            ),
        );
      }
    }
    return this.#serve(request, session, params, subject, options);
  }

  /** Dispatch a modern request in its own scope, and finish its answer. */
  #serve(
    request: Request,
    session: McpSession,
    params: Record<string, unknown>,
    subject: string,
    options: DispatchInputs<McpCallExtra>,
  ): MaybePromise<string | undefined> {
    const outer = options.extra;
    const reply = this.#modern.dispatch(request, {
      extra: { ...outer, session },
      signalFor: options.signalFor,
      settled: options.settled,
      started: options.started,
      onResponse: options.onResponse,
    });
    // No closure unless the call is still running.
    const outcome = outer.outcome;
    return isPromiseLike(reply)
      ? reply.then((response) =>
          this.#finish(request.method, session, params, subject, response, outcome),
        )
      : this.#finish(request.method, session, params, subject, reply, outcome);
  }

  /** The router's own refusal of a modern request (its envelope, its method): told, encoded. */
  #refuse(
    request: Request,
    error: JsonRpcErrorObject,
    options: DispatchInputs<McpCallExtra>,
  ): string {
    const outcome = options.extra.outcome;
    if (outcome) outcome.errorCode = error.code;
    return encodeResponse(errorResponse(request.id, error));
  }

  #finish(
    method: string,
    session: McpSession,
    params: Record<string, unknown>,
    subject: string,
    response: JsonRpcResponse | undefined,
    outcome: ModernOutcome | undefined,
  ): string | undefined {
    const round = session[INPUT];
    // Whatever the handler made of the rejected ask: while asks are open, the answer is
    // input_required (spec `basic/patterns/mrtr`).
    if (round?.hasPending && response !== undefined) {
      return encodeResponse({
        jsonrpc: '2.0',
        id: response.id,
        result: {
          ...round.result(this.#states, params, subject),
          _meta: this.#serverMeta,
        },
      });
    }
    // The error's code is the spec's already (McpServer's modernErrors).
    if (response !== undefined && 'error' in response && outcome) {
      outcome.errorCode = response.error.code;
    }
    return this.#encode(method, response);
  }

  /** The cache hints changed: what was appended to results so far is computed again. */
  hintsChanged(): void {
    this.#suffixes.clear();
  }

  #encode(method: string, response: JsonRpcResponse | undefined): string | undefined {
    if (response === undefined) return undefined;
    if ('result' in response && typeof response.result === 'object' && response.result !== null) {
      const result = response.result as Record<string, unknown>;
      // The usual case — a result with none of the added fields — is serialized once and the
      // fields appended as text, without copying the result object (the modern hot path).
      if (
        !Array.isArray(result) &&
        !Object.hasOwn(result, '_meta') &&
        !Object.hasOwn(result, 'resultType') &&
        !Object.hasOwn(result, 'ttlMs') &&
        !Object.hasOwn(result, 'cacheScope')
      ) {
        // A relayed result is the backend's own text (see result-text.ts), which may have
        // whitespace around its members.
        const json = resultText(result) ?? safeStringify(result);
        if (json !== undefined && json.charCodeAt(0) === 123 /* { */) {
          let suffix = this.#suffixes.get(method);
          if (suffix === undefined) {
            suffix = this.#suffix(method);
            this.#suffixes.set(method, suffix);
          }
          const inner = json.slice(1, -1);
          const members = isBlank(inner) ? suffix : `${inner},${suffix}`;
          return encodeResultJson(response.id, `{${members}}`);
        }
      }
      const decorated = this.#decorate(method, result);
      if (resultText(result) !== undefined && typeof decorated === 'object' && decorated !== null) {
        // A relayed result with `_meta` of its own: its other members still go out as written.
        const added: Record<string, unknown> = {};
        for (const key of ENVELOPE_KEYS) {
          if (key in decorated) added[key] = (decorated as Record<string, unknown>)[key];
        }
        editResultText(result, decorated, ENVELOPE_KEYS, added);
      }
      return encodeResponse({ jsonrpc: '2.0', id: response.id, result: decorated });
    }
    return encodeResponse(response);
  }
}

/** The members a modern result's envelope sets (see decorateModernResult). */
const ENVELOPE_KEYS: ReadonlySet<string> = new Set(['resultType', '_meta', 'ttlMs', 'cacheScope']);

/** JSON text of a value, or undefined when it has none or cannot be serialized. */
function safeStringify(value: unknown): string | undefined {
  try {
    return JSON.stringify(value);
  } catch {
    return undefined;
  }
}

const claims = (message: Incoming): boolean =>
  (message.kind === 'request' || message.kind === 'notification') &&
  modernClaim(message.params) !== undefined;
