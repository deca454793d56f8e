/**
 * Multi round-trip input for 2026-07-28 requests (spec `basic/patterns/mrtr`): a modern server
 * never sends its client a request; a tool that needs the user (elicitation), the model
 * (sampling) or the roots answers `input_required` with what it needs, and the client retries the
 * same request with `inputResponses` and the opaque `requestState`.
 *
 * Tool code stays the same in both eras (`ctx.elicit`, `ctx.sample`): on a modern request each
 * ask gets a key by the order the handler makes it (`elicitation-1`, `sampling-1` …). An ask
 * whose answer the request carries resolves with it; one without makes the request answer
 * `input_required`, the handler is run again on the retry (replay), and the answers collected so
 * far travel in `requestState`, signed with HMAC-SHA256 and bound to the method, the params, the
 * caller and an expiry — the state is the client's to carry, never to change (spec: "MUST be
 * integrity-protected" when it influences behaviour).
 */
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { ErrorCode, McpErrorCode, RpcError } from '../jsonrpc/errors.js';
import { missingClientCapability } from './context.js';

/** The methods that may answer `input_required` (spec `basic/patterns/mrtr`). */
export const INPUT_METHODS: ReadonlySet<string> = new Set([
  'tools/call',
  'prompts/get',
  'resources/read',
]);

/** One request the client must fulfil before retrying. */
export interface InputRequest {
  method: 'elicitation/create' | 'sampling/createMessage' | 'roots/list';
  params: Record<string, unknown>;
}

/** The handler asked for input the request does not carry: the request answers `input_required`. */
export class InputRequiredSignal extends Error {
  constructor() {
    super('input required');
    this.name = 'InputRequiredSignal';
  }
}

interface StatePayload {
  /** method */
  m: string;
  /** digest of the params, without what changes between rounds */
  d: string;
  /** the caller's subject, or '' */
  p: string;
  /** answers collected so far, by key */
  a: Record<string, unknown>;
  /** the keys asked in the last round */
  q: string[];
  /** expiry, ms since the epoch */
  exp: number;
  /** a random id: a state is good for one retry */
  n: string;
}

/**
 * Spent states one caller may have on record at once (each kept until its expiry). Beyond it the
 * caller's next state is refused rather than an old record dropped: a record forgotten before its
 * state expires would let that state be replayed.
 */
const MAX_SPENT_PER_CALLER = 10_000;
/** The same for all callers together: the backstop of the memory they take. */
const MAX_SPENT = 1_000_000;

const CAPABILITY: Record<InputRequest['method'], string> = {
  'elicitation/create': 'elicitation',
  'sampling/createMessage': 'sampling',
  'roots/list': 'roots',
};

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** JSON with sorted keys: the same params give the same digest whatever order they came in. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (isObject(value)) {
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical(value[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

function digest(params: Record<string, unknown>): string {
  const { _meta, inputResponses, requestState, ...rest } = params;
  return createHash('sha256').update(canonical(rest)).digest('base64url');
}

/**
 * Claims `key` for `ttlMs` where every instance of a fleet looks: true for the first, false for
 * every later claim until it expires (`StateStore.claimOnce` of the fleet package).
 */
export type SharedClaim = (key: string, ttlMs: number) => Promise<boolean>;

export const invalidState = () =>
  new RpcError(
    ErrorCode.InvalidParams,
    'Invalid params: requestState is not valid for this request',
  );

/**
 * Signs and checks `requestState` tokens: `v1.<payload>.<mac>`, base64url. A state is good for one
 * retry: a replayed one is refused (spec `basic/patterns/mrtr`: single use "MUST be enforced
 * server-side where it matters"). Spent states are remembered in this process until they expire,
 * never fewer: a caller with MAX_SPENT_PER_CALLER on record (or all with MAX_SPENT) has its next
 * state refused until some expire — instances behind a load balancer each remember their own.
 */
export class RequestStateCodec {
  readonly #key: Buffer;
  readonly #ttlMs: number;
  /** Spent nonces, their expiry and caller, oldest first (a Map keeps insertion order). */
  readonly #spent = new Map<string, { exp: number; caller: string }>();
  /** Records on file per caller. */
  readonly #perCaller = new Map<string, number>();
  readonly #maxPerCaller: number;
  readonly #maxTotal: number;
  readonly #claim: SharedClaim | undefined;

  /**
   * @param key the HMAC key; default a random one per process (a state is then only valid on
   *   the process that issued it — instances behind one load balancer share a key: runCli with
   *   `--redis-url` hands the fleet's to the app as `RunContext.requestState`)
   * @param ttlMs how long a state is valid. Default 10 minutes.
   * @param limits spent states on record per caller (default 10,000) and in all (1,000,000);
   *   `claim`, a fleet's: see {@link RequestStateCodec.claimShared}
   */
  constructor(
    key?: Uint8Array | string,
    ttlMs = 600_000,
    limits: { perCaller?: number; total?: number; claim?: SharedClaim } = {},
  ) {
    this.#key = key === undefined ? randomBytes(32) : Buffer.from(key);
    this.#ttlMs = ttlMs;
    this.#maxPerCaller = limits.perCaller ?? MAX_SPENT_PER_CALLER;
    this.#maxTotal = limits.total ?? MAX_SPENT;
    this.#claim = limits.claim;
  }

  /**
   * A spent state claimed where every instance of a fleet looks (`claim`, e.g. the fleet
   * store's `claimOnce`): resolves false when another instance spent it first. Undefined without
   * a shared claim: this process's record is all there is.
   */
  claimShared(payload: StatePayload): Promise<boolean> | undefined {
    return this.#claim?.(`request-state:${payload.n}`, Math.max(1, payload.exp - Date.now()));
  }

  mint(payload: Omit<StatePayload, 'exp' | 'n'>): string {
    const body = Buffer.from(
      JSON.stringify({
        ...payload,
        exp: Date.now() + this.#ttlMs,
        n: randomBytes(12).toString('base64url'),
      }),
    ).toString('base64url');
    return `v1.${body}.${this.#mac(body)}`;
  }

  /** The payload of a state this codec issued and that has not expired; undefined otherwise. */
  verify(token: string): StatePayload | undefined {
    const [version, body, mac] = token.split('.');
    if (version !== 'v1' || !body || !mac || token.split('.').length !== 3) return undefined;
    const expected = Buffer.from(this.#mac(body));
    const given = Buffer.from(mac);
    if (expected.length !== given.length || !timingSafeEqual(expected, given)) return undefined;
    let payload: StatePayload;
    try {
      payload = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as StatePayload;
    } catch {
      return undefined;
    }
    return payload.exp > Date.now() && !this.#spent.has(payload.n) ? payload : undefined;
  }

  /**
   * Mark a verified state used: the same state is refused from now on, until it expires. Throws
   * -32602 when its caller (or everyone) has too many on record: refusing this one keeps every
   * record until its state expires.
   */
  spend(payload: StatePayload): void {
    const now = Date.now();
    // Expired records go, oldest first; an unexpired one ends the sweep (the rest are newer, or
    // expire within one TTL of it).
    for (const [nonce, record] of this.#spent) {
      if (record.exp > now) break;
      this.#forget(nonce, record.caller);
    }
    const caller = payload.p;
    if (
      (this.#perCaller.get(caller) ?? 0) >= this.#maxPerCaller ||
      this.#spent.size >= this.#maxTotal
    ) {
      throw new RpcError(
        ErrorCode.InvalidParams,
        'Invalid params: requestState not accepted now: too many input rounds in the last minutes; retry later',
        { retryAfterMs: Math.max(0, (this.#spent.values().next().value?.exp ?? now) - now) },
      );
    }
    this.#spent.set(payload.n, { exp: payload.exp, caller });
    this.#perCaller.set(caller, (this.#perCaller.get(caller) ?? 0) + 1);
  }

  #forget(nonce: string, caller: string): void {
    this.#spent.delete(nonce);
    const left = (this.#perCaller.get(caller) ?? 1) - 1;
    if (left > 0) this.#perCaller.set(caller, left);
    else this.#perCaller.delete(caller);
  }

  #mac(body: string): string {
    return createHmac('sha256', this.#key).update(body).digest('base64url');
  }
}

/**
 * The input of one modern request: the answers it carries (from its state and its
 * `inputResponses`) and the asks its handler makes that are still open.
 */
export class InputRound {
  readonly #method: string;
  readonly #capabilities: Record<string, unknown>;
  readonly #answers: Record<string, unknown>;
  /** The `requestState` this request spent, once verified (see RequestStateCodec.claimShared). */
  spent: StatePayload | undefined;
  // Made on the first ask: every modern tools/call opens a round, few ever ask.
  #counters: Map<string, number> | undefined;
  #pending: Map<string, InputRequest> | undefined;

  constructor(
    method: string,
    capabilities: Record<string, unknown>,
    answers: Record<string, unknown>,
  ) {
    this.#method = method;
    this.#capabilities = capabilities;
    this.#answers = answers;
  }

  /**
   * Open the round of a request: verify its `requestState` (bound to method, params and caller)
   * and take the answers it carries for the keys last asked. Throws -32602 for a state that was
   * not issued for this request, or has expired.
   */
  static open(
    codec: RequestStateCodec,
    method: string,
    params: Record<string, unknown>,
    subject: string,
    capabilities: Record<string, unknown>,
  ): InputRound {
    const answers: Record<string, unknown> = {};
    const token = params.requestState;
    if (token !== undefined) {
      const state = typeof token === 'string' ? codec.verify(token) : undefined;
      if (!state || state.m !== method || state.d !== digest(params) || state.p !== subject) {
        throw invalidState();
      }
      codec.spend(state);
      Object.assign(answers, state.a);
      const responses = isObject(params.inputResponses) ? params.inputResponses : {};
      // Only answers to what was asked count; anything else in inputResponses is ignored.
      for (const key of state.q) if (isObject(responses[key])) answers[key] = responses[key];
      const round = new InputRound(method, capabilities, answers);
      round.spent = state;
      return round;
    }
    return new InputRound(method, capabilities, answers);
  }

  /** Asks still open: the answer is then `input_required`, whatever the handler made of them. */
  get hasPending(): boolean {
    return this.#pending !== undefined && this.#pending.size > 0;
  }

  /** The answers this request carries, by key (from its state and its `inputResponses`). */
  get answers(): Readonly<Record<string, unknown>> {
    return this.#answers;
  }

  /**
   * What the handler asked for (its answer, or an open ask and a rejection), under `explicitKey`
   * or the next key of its kind.
   */
  ask(request: InputRequest, explicitKey?: string): Promise<unknown> {
    const kind = CAPABILITY[request.method];
    this.#counters ??= new Map();
    const n = (this.#counters.get(kind) ?? 0) + 1;
    this.#counters.set(kind, n);
    const key = explicitKey ?? `${kind}-${n}`;
    if (key in this.#answers) return Promise.resolve(this.#answers[key]);
    if (!INPUT_METHODS.has(this.#method)) {
      return Promise.reject(
        new RpcError(ErrorCode.InternalError, `input requests are not allowed for ${this.#method}`),
      );
    }
    const missing = missingClientCapability(request.method, request.params, this.#capabilities);
    if (missing) {
      const [name, sub] = Object.entries(missing)[0] ?? [kind, {}];
      const part = Object.keys(sub)[0];
      return Promise.reject(
        new RpcError(
          McpErrorCode.MissingRequiredClientCapability,
          `Missing required client capability: ${part === undefined ? name : `${name}.${part}`}`,
          { requiredCapabilities: missing },
        ),
      );
    }
    this.#pending ??= new Map();
    this.#pending.set(key, request);
    return Promise.reject(new InputRequiredSignal());
  }

  /** The `input_required` result for the asks still open, with the state to carry back. */
  result(codec: RequestStateCodec, params: Record<string, unknown>, subject: string) {
    const pending = this.#pending ?? new Map<string, InputRequest>();
    const inputRequests: Record<string, InputRequest> = {};
    for (const [key, request] of pending) inputRequests[key] = request;
    return {
      resultType: 'input_required',
      inputRequests,
      requestState: codec.mint({
        m: this.#method,
        d: digest(params),
        p: subject,
        a: this.#answers,
        q: [...pending.keys()],
      }),
    };
  }
}
