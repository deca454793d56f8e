import type { IncomingMessage, ServerResponse } from 'node:http';
import type { EngineLogger } from '@mcpkit/protocol';

/**
 * One readiness check: resolves when what it checks (a database, a store, a backend) can serve;
 * throws or rejects when not. It is given `signal`, aborted when the check runs out of time.
 */
export type ReadinessCheck = (signal: AbortSignal) => unknown;

/** What `/readyz` found: each check's outcome and the verdict. */
export interface ReadinessReport {
  /** Every check passed and the server is not draining. */
  ready: boolean;
  /** The server is draining (SIGTERM): it finishes what it has, and takes nothing new. */
  draining: boolean;
  /** Each check by name: whether it passed, and how long it took. */
  checks: Record<string, { ok: boolean; ms: number }>;
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
 * The bodies name each check and whether it passed, never why (the reason is logged): they are
 * served without auth. Anything can add a check — an app its database, a store its backend.
 */
export class Health {
  /** Where liveness is served; undefined when switched off. */
  readonly livePath: string | undefined;
  /** Where readiness is served; undefined when switched off. */
  readonly readyPath: string | undefined;
  readonly #checks = new Map<string, ReadinessCheck>();
  readonly #timeoutMs: number;
  readonly #logger: EngineLogger | undefined;
  #draining = false;

  constructor(options: HealthOptions = {}, logger?: EngineLogger) {
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
        const ok = await this.#run(name, check);
        return [name, { ok, ms: Math.round(performance.now() - started) }] as const;
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

  async #run(name: string, check: ReadinessCheck): Promise<boolean> {
    const controller = new AbortController();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        controller.abort();
        reject(new Error(`no answer within ${this.#timeoutMs} ms`));
      }, this.#timeoutMs);
    });
    try {
      await Promise.race([Promise.resolve().then(() => check(controller.signal)), timeout]);
      return true;
    } catch (err) {
      this.#logger?.warn({ check: name, err }, 'readiness check failed');
      return false;
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
