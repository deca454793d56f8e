import type { IncomingMessage, ServerResponse } from 'node:http';
import type { EngineLogger } from '@mcpkit/protocol';

/**
 * One readiness check: resolves when what it checks (a database, a store, a backend) can serve;
 * throws or rejects when not. It is given `signal`, aborted when the check runs out of time.
 * To show more than pass/fail in the probe's body, resolve to a {@link ReadinessDetail} or
 * throw a {@link NotReadyError}; anything else it resolves to is not shown.
 */
export type ReadinessCheck = (signal: AbortSignal) => unknown;

/**
 * What a passing check shows in `/readyz`'s body besides `ok` (served without auth: names and
 * states an operator may see — a failed optional backend — never secrets or error text).
 */
export class ReadinessDetail {
  /** Shown as the check's `detail`. */
  readonly detail: Record<string, unknown>;
  constructor(detail: Record<string, unknown>) {
    this.detail = detail;
  }
}

/**
 * A check that failed for an expected reason (still starting, a required part down): logged as
 * one line without a stack, and only when the reason changes; `detail` is shown in the body as
 * {@link ReadinessDetail}'s is.
 */
export class NotReadyError extends Error {
  /** Shown as the check's `detail`. */
  readonly detail: Record<string, unknown> | undefined;
  constructor(message: string, detail?: Record<string, unknown>) {
    super(message);
    this.name = 'NotReadyError';
    this.detail = detail;
  }
}

/** One check's outcome in a {@link ReadinessReport}. */
export interface ReadinessOutcome {
  /** The check passed. */
  ok: boolean;
  /** How long it took, in ms. */
  ms: number;
  /** What the check chose to show ({@link ReadinessDetail}, {@link NotReadyError}). */
  detail?: Record<string, unknown>;
}

/** What `/readyz` found: each check's outcome and the verdict. */
export interface ReadinessReport {
  /** Every check passed and the server is not draining. */
  ready: boolean;
  /** The server is draining (SIGTERM): it finishes what it has, and takes nothing new. */
  draining: boolean;
  /** Each check by name: whether it passed, how long it took, and what it chose to show. */
  checks: Record<string, ReadinessOutcome>;
}

/** Options of {@link Health}. */
export interface HealthOptions {
  /** Path of the liveness probe (the process answers). Default `/healthz`; false to disable. */
  livePath?: string | false;
  /** Path of the readiness probe (every check passes). Default `/readyz`; false to disable. */
  readyPath?: string | false;
  /** Checks run by every `/readyz`, by name. More can be added later with `addCheck`. */
  checks?: Record<string, ReadinessCheck>;
  /** A check that has not answered after this long has failed. Default 2000 ms. */
  timeoutMs?: number;
}

/**
 * `/healthz` and `/readyz`: liveness (200 while the process serves HTTP) and readiness (200 when
 * every check passes, 503 otherwise or while draining), for load balancers and orchestrators.
 * The bodies name each check and whether it passed, never why (the reason is logged, once per
 * change: probes come every few hundred ms): they are served without auth. A check may add a
 * `detail` it chose to show. Anything can add a check — an app its database, a store its backend.
 */
export class Health {
  /** Where liveness is served; undefined when switched off. */
  readonly livePath: string | undefined;
  /** Where readiness is served; undefined when switched off. */
  readonly readyPath: string | undefined;
  readonly #checks = new Map<string, ReadinessCheck>();
  readonly #timeoutMs: number;
  readonly #logger: (EngineLogger & { info?: EngineLogger['debug'] }) | undefined;
  /** Each failing check's last reason: a failure is logged when it starts or changes. */
  readonly #failing = new Map<string, string>();
  #draining = false;

  constructor(
    options: HealthOptions = {},
    logger?: EngineLogger & { info?: EngineLogger['debug'] },
  ) {
    this.livePath = options.livePath === false ? undefined : (options.livePath ?? '/healthz');
    this.readyPath = options.readyPath === false ? undefined : (options.readyPath ?? '/readyz');
    this.#timeoutMs = options.timeoutMs ?? 2000;
    this.#logger = logger;
    for (const [name, check] of Object.entries(options.checks ?? {})) this.addCheck(name, check);
  }

  /** Add a readiness check; a name already taken throws (two checks never hide each other). */
  addCheck(name: string, check: ReadinessCheck): this {
    if (this.#checks.has(name)) throw new Error(`readiness check '${name}' is already registered`);
    this.#checks.set(name, check);
    return this;
  }

  /** Remove a readiness check; says whether there was one. */
  removeCheck(name: string): boolean {
    this.#failing.delete(name);
    return this.#checks.delete(name);
  }

  /** The server is draining: `/readyz` answers 503 from now on. */
  get draining(): boolean {
    return this.#draining;
  }

  /** Start draining (see {@link McpHttpServer.drain}). */
  startDraining(): void {
    this.#draining = true;
  }

  /** Run every check at once, each bounded by the timeout. */
  async readiness(): Promise<ReadinessReport> {
    const entries = await Promise.all(
      [...this.#checks].map(async ([name, check]) => {
        const started = performance.now();
        const { ok, detail } = await this.#run(name, check);
        const outcome: ReadinessOutcome = { ok, ms: Math.round(performance.now() - started) };
        if (detail) outcome.detail = detail;
        return [name, outcome] as const;
      }),
    );
    const checks = Object.fromEntries(entries);
    const ready = !this.#draining && entries.every(([, r]) => r.ok);
    return { ready, draining: this.#draining, checks };
  }

  /** Answer `req` when it asks for a probe path; false (nothing sent) for any other path. */
  handle(req: IncomingMessage, res: ServerResponse, path: string): boolean {
    if (path !== this.livePath && path !== this.readyPath) return false;
    const method = req.method ?? 'GET';
    if (method !== 'GET' && method !== 'HEAD') {
      res.writeHead(405, { Allow: 'GET, HEAD', 'Content-Length': '0' }).end();
      return true;
    }
    if (path === this.livePath) {
      reply(res, method, 200, { status: 'ok' });
      return true;
    }
    this.readiness().then(
      (report) =>
        reply(res, method, report.ready ? 200 : 503, {
          status: report.ready ? 'ready' : report.draining ? 'draining' : 'not ready',
          checks: report.checks,
        }),
      (err: unknown) => {
        this.#logger?.error({ err }, 'readiness probe failed');
        reply(res, method, 503, { status: 'not ready' });
      },
    );
    return true;
  }

  /** At info where the logger has it (pino), else debug. */
  #info(obj: object, msg: string): void {
    const logger = this.#logger;
    if (logger?.info) logger.info(obj, msg);
    else logger?.debug(obj, msg);
  }

  async #run(
    name: string,
    check: ReadinessCheck,
  ): Promise<{ ok: boolean; detail?: Record<string, unknown> | undefined }> {
    const controller = new AbortController();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        controller.abort();
        reject(new Error(`no answer within ${this.#timeoutMs} ms`));
      }, this.#timeoutMs);
    });
    try {
      const value = await Promise.race([
        Promise.resolve().then(() => check(controller.signal)),
        timeout,
      ]);
      if (this.#failing.delete(name)) this.#info({ check: name }, 'readiness check passes');
      return { ok: true, detail: value instanceof ReadinessDetail ? value.detail : undefined };
    } catch (err) {
      const reason = err instanceof Error ? err.message : String(err);
      if (this.#failing.get(name) !== reason) {
        this.#failing.set(name, reason);
        // An expected state (starting) is one short line; anything else keeps its error.
        if (err instanceof NotReadyError) {
          this.#info({ check: name }, `not ready: ${reason}`);
        } else {
          this.#logger?.warn({ check: name, err }, 'readiness check failed');
        }
      }
      return { ok: false, detail: err instanceof NotReadyError ? err.detail : undefined };
    } finally {
      clearTimeout(timer);
    }
  }
}

function reply(res: ServerResponse, method: string, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'Content-Type': 'application/json',
    'Content-Length': Buffer.byteLength(text),
    'Cache-Control': 'no-store',
  });
  res.end(method === 'HEAD' ? undefined : text);
}
