// @module-tag postgres
// @module-tag redis
// @module-tag haproxy
// @module-tag process
/**
 * A fleet: three instances of the projects app on one PostgreSQL schema and one Redis (a key
 * prefix of their own), behind a real HAProxy running `deploy/haproxy.cfg` — round-robin per
 * request, no stickiness. What must hold:
 *
 * - any instance serves any session: the official SDK v1 client (a 2025 session, a GET stream,
 *   `resources/subscribe`) and SDK v2 pinned to 2026-07-28 (`subscriptions/listen`) each make 200
 *   calls through the balancer while one instance is SIGKILLed mid-run; no session is lost and no
 *   call fails beyond the one each client may have had in flight on the killed instance;
 * - a change made through instance A reaches a subscriber whose GET stream is on instance C;
 * - a rate limit of N per window per key is exact across the three (N accepted, the rest 429);
 * - SIGTERM drains: the instance's in-flight calls finish, the balancer sends the rest elsewhere.
 *
 * The same for three gateway instances (each with its own projects backend on the shared
 * database): SDK v1 and v2 through a SIGKILL, and a resource change seen by one instance's backend
 * reaching the subscribers of every instance.
 *
 * Needs Redis on 127.0.0.1:6379, PostgreSQL on 127.0.0.1:5432 (database `test`) and
 * /usr/sbin/haproxy (`.ci/run` provides all three); a missing one fails the test, saying which.
 */
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createRedisStateStore } from '@mcpkit/fleet';
import { TimeoutError, waitFor } from '@mcpkit/testing';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as HttpTransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  dropKeys,
  freshSchema,
  preflightBalancerAndPostgres,
  ready,
  servedBy,
  startBalancer,
} from './balancer.js';
import {
  appEnv,
  cliOf,
  createApiKey,
  DEMO_USER,
  freePort,
  type HttpApp,
  killAll,
  REPO,
  type Scratch,
  scratch,
  seedProjects,
  startHttp,
  within,
} from './helpers.js';

const EVERYTHING = join(REPO, 'packages', 'node', 'dist', 'fixtures', 'everything.js');
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const PROJECTS_URI = 'codefluss://projects';
const RATE_LIMIT = 450;
const CALLS = 200;
const REQUEST = { timeout: 20_000 };

type FleetApp = 'projects' | 'gateway';

interface Fleet {
  app: FleetApp;
  s: Scratch;
  instances: HttpApp[];
  haproxy: ChildProcess;
  /** The balancer's origin. */
  lb: string;
  /** API keys of the demo user (projects); empty for the gateway, which runs without auth. */
  keys: { v1: string; v2: string; rate: string; raw: string };
}

/** What to undo, last first: made as a fleet is built, so a failed start is cleaned too. */
let undo: (() => unknown)[] = [];

async function teardown(): Promise<void> {
  const steps = undo.reverse();
  undo = [];
  for (const step of steps) await Promise.resolve(step()).catch(() => undefined);
}

afterAll(async () => {
  await teardown();
  killAll();
}, 30_000);

/** Everything the fleet needs is there, or the test fails naming what is missing. */
async function preflight(): Promise<void> {
  await preflightBalancerAndPostgres();
  const redis = await createRedisStateStore(REDIS_URL, { connectTimeoutMs: 3000 }).catch(
    (err: Error) => {
      throw new Error(`Redis unreachable at ${REDIS_URL}: ${err.message}`);
    },
  );
  await redis.close();
}

async function startInstance(
  app: FleetApp,
  env: Record<string, string>,
  s: Scratch,
  n: number,
): Promise<HttpApp> {
  if (app === 'projects') {
    return startHttp(
      'projects',
      ['--rate-limit', String(RATE_LIMIT), '--rate-window', '60', '--log-level', 'info'],
      env,
    );
  }
  return startHttp(
    'gateway',
    [
      '--config',
      s.path('gateway.json'),
      // One event log for the fleet, in PostgreSQL (the shared schema, through the URL's
      // search_path): get_events on any instance sees every instance's events.
      '--events',
      env.DATABASE_URL ?? s.path(`events-${n}.db`),
      '--log-level',
      'info',
    ],
    env,
    30_000,
  );
}

async function startFleet(app: FleetApp): Promise<Fleet> {
  await preflight();
  const s = scratch(`fleet-${app}`);
  undo.push(() => s.cleanup());
  const id = `${process.pid}_${randomBytes(4).toString('hex')}`;
  const shared = await freshSchema('fleet');
  undo.push(shared.drop);
  const url = new URL(shared.url);
  const env = appEnv(s, {
    DATABASE_URL: url.toString(),
    MCP_REDIS_URL: REDIS_URL,
    MCP_REDIS_PREFIX: `e2e-fleet-${id}:`,
  });
  // What the fleet leaves in Redis without an expiry (its secret, its member list): dropped at
  // the end, the backends' prefix (`…-backends:`) with it.
  undo.push(() => dropKeys(`e2e-fleet-${id}`));
  // Migrated and seeded once, before any instance (or backend) starts on the schema.
  await seedProjects(env);
  const keys =
    app === 'projects'
      ? await Promise.all([1, 2, 3, 4].map(() => createApiKey(env)))
      : ['', '', '', ''];
  if (app === 'gateway') {
    // Each gateway instance runs its own projects backend (stdio) on the shared schema, itself
    // in fleet mode: a change made through one instance's backend is heard by the others'.
    writeFileSync(
      s.path('gateway.json'),
      JSON.stringify({
        gateway: { name: 'fleet-gateway' },
        mcpServers: {
          projects: {
            command: process.execPath,
            args: [cliOf('projects'), '--user', DEMO_USER, '--log-level', 'warn'],
            namespace: 'projects',
            env: {
              DATABASE_URL: url.toString(),
              MCP_REDIS_URL: REDIS_URL,
              MCP_REDIS_PREFIX: `e2e-fleet-${id}-backends:`,
            },
          },
          // A backend that asks for input mid-call (the protocol's everything fixture, a 2025
          // link): a modern client's call waits on the instance whose link runs it.
          every: {
            command: process.execPath,
            args: [EVERYTHING, '--log-level', 'warn'],
            namespace: 'every',
            protocol: 'legacy',
          },
          // One backend that cannot start, in the config every instance shares (an npx package
          // that is gone, a server that crashes at once): each instance gives it up and stays
          // ready for the others — the balancer must not lose the whole fleet to it.
          broken: {
            command: process.execPath,
            args: ['-e', 'console.error("broken: cannot start"); process.exit(1)'],
            namespace: 'broken',
            restart: { maxRestarts: 1 },
          },
        },
      }),
    );
  }
  const instances = await Promise.all([1, 2, 3].map((n) => startInstance(app, env, s, n)));
  undo.push(() => Promise.all(instances.map((i) => i.stop())));
  // Listening is not ready: a gateway is not ready while its backends' first start is under
  // way, and HAProxy (which takes a server as up until its checks fail) would route to each
  // instance for a moment, then take all three out until they are. On a loaded machine that
  // window is seconds long; the tests start once every instance says it is ready.
  await Promise.all(instances.map((i) => ready(i.url)));
  const { lb, haproxy } = await startBalancer(
    await freePort(),
    instances.map((i) => i.url),
  );
  undo.push(() => haproxy.kill('SIGKILL'));
  const [v1, v2, rate, raw] = keys as [string, string, string, string];
  const made: Fleet = { app, s, instances, haproxy, lb, keys: { v1, v2, rate, raw } };
  return made;
}

const auth = (key: string): Record<string, string> =>
  key ? { Authorization: `Bearer ${key}` } : {};

/** An error with its cause (undici's "fetch failed" says why only there). */
function withCause(err: unknown): string {
  const e = err as Error & { cause?: { code?: string; message?: string } };
  const cause = e.cause?.code ?? e.cause?.message;
  return cause ? `${e.message} (${cause})` : e.message;
}

function rawPost(origin: string, key: string, body: unknown, session?: string) {
  return fetch(`${origin}/mcp`, {
    method: 'POST',
    headers: {
      ...auth(key),
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...(session ? { 'mcp-session-id': session } : {}),
    },
    body: JSON.stringify(body),
  });
}

describe('three projects instances behind HAProxy, Redis and PostgreSQL', () => {
  let fleet: Fleet | undefined;
  beforeAll(async () => {
    fleet = await startFleet('projects');
  }, 120_000);
  afterAll(teardown, 30_000);

  const the = (): Fleet => {
    if (!fleet) throw new Error('the fleet did not start');
    return fleet;
  };

  it('balances round-robin per request, with no stickiness', async () => {
    const names = [];
    for (let i = 0; i < 6; i++) {
      const res = await fetch(`${the().lb}/healthz`);
      names.push(res.headers.get('x-served-by'));
      await res.text();
    }
    // One keep-alive client connection, three instances in turn.
    expect(new Set(names)).toEqual(new Set(['app1', 'app2', 'app3']));
    expect(names.slice(0, 3)).toEqual(names.slice(3));
  });

  it('tells a subscriber whose GET stream is on C of a change made through A', async () => {
    const { instances, keys } = the();
    const [a, b, c] = instances.map((i) => i.url) as [string, string, string];
    const key = keys.raw;
    const init = await rawPost(a, key, {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: {
        protocolVersion: '2025-06-18',
        capabilities: {},
        clientInfo: { name: 'fleet-raw', version: '1' },
      },
    });
    expect(init.status).toBe(200);
    await init.json();
    const session = init.headers.get('mcp-session-id') as string;
    await (
      await rawPost(b, key, { jsonrpc: '2.0', method: 'notifications/initialized' }, session)
    ).text();
    const sub = await rawPost(
      b,
      key,
      { jsonrpc: '2.0', id: 2, method: 'resources/subscribe', params: { uri: PROJECTS_URI } },
      session,
    );
    expect(await sub.json()).toMatchObject({ id: 2, result: {} });
    const controller = new AbortController();
    const stream = await fetch(`${c}/mcp`, {
      headers: { ...auth(key), accept: 'text/event-stream', 'mcp-session-id': session },
      signal: controller.signal,
    });
    expect(stream.status).toBe(200);
    let text = '';
    const reading = (async () => {
      const decoder = new TextDecoder();
      for await (const chunk of stream.body as AsyncIterable<Uint8Array>) {
        text += decoder.decode(chunk, { stream: true });
      }
    })().catch(() => undefined);
    const created = await rawPost(
      a,
      key,
      {
        jsonrpc: '2.0',
        id: 3,
        method: 'tools/call',
        params: { name: 'create_project', arguments: { name: 'made on A' } },
      },
      session,
    );
    const reply = (await created.json()) as { id: number; result?: { isError?: boolean } };
    expect(reply.id).toBe(3);
    expect(reply.result?.isError).not.toBe(true);
    await waitFor(
      'the update on C',
      () => text.includes('notifications/resources/updated'),
      30_000,
    );
    expect(text).toContain(PROJECTS_URI);
    controller.abort();
    await reading;
  });

  it(`accepts exactly ${RATE_LIMIT} calls per key per window across the three, then 429`, async () => {
    const { lb, keys } = the();
    const total = RATE_LIMIT + 30;
    const statuses: number[] = [];
    let next = 0;
    const worker = async () => {
      while (next < total) {
        const id = next++;
        const res = await fetch(`${lb}/api/mcp`, {
          method: 'POST',
          headers: { ...auth(keys.rate), 'content-type': 'application/json' },
          body: JSON.stringify({ jsonrpc: '2.0', id, method: 'ping' }),
        });
        statuses.push(res.status);
        await res.text();
      }
    };
    await Promise.all(Array.from({ length: 6 }, worker));
    const accepted = statuses.filter((s) => s === 200).length;
    expect(accepted).toBeGreaterThanOrEqual(RATE_LIMIT - 1);
    expect(accepted).toBeLessThanOrEqual(RATE_LIMIT + 1);
    expect(statuses.filter((s) => s === 429)).toHaveLength(total - accepted);
  }, 60_000);

  it(`SDK v1 and SDK v2 make ${CALLS} calls each while an instance is SIGKILLed; nothing is lost`, async () => {
    await throughKill(the(), { list: 'list_projects', create: 'create_project' }, PROJECTS_URI);
  }, 120_000);

  it('SIGTERM drains an instance: its in-flight calls finish, the balancer routes around it', async () => {
    const { lb, keys, instances } = the();
    const draining = instances[2] as HttpApp;
    const calls = Array.from({ length: 40 }, (_, id) =>
      fetch(`${lb}/api/mcp`, {
        method: 'POST',
        headers: { ...auth(keys.raw), 'content-type': 'application/json' },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id,
          method: 'tools/call',
          params: { name: 'list_projects', arguments: {} },
        }),
      }).then(async (res) => ({ status: res.status, body: await res.text() })),
    );
    await new Promise((r) => setTimeout(r, 20));
    process.kill(draining.pid, 'SIGTERM');
    const results = await Promise.all(calls);
    expect(results.filter((r) => r.status !== 200)).toEqual([]);
    // It exits on its own (0) once drained; the balancer keeps serving on the one left.
    await waitFor('the drained instance exited', () => {
      try {
        process.kill(draining.pid, 0);
        return false;
      } catch {
        return true;
      }
    });
    const after = await fetch(`${lb}/api/mcp`, {
      method: 'POST',
      headers: { ...auth(keys.raw), 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
    });
    expect(after.status).toBe(200);
  }, 60_000);
});

describe('three gateway instances behind HAProxy, Redis and PostgreSQL', () => {
  let fleet: Fleet | undefined;
  beforeAll(async () => {
    fleet = await startFleet('gateway');
  }, 150_000);
  afterAll(teardown, 30_000);

  it('lists the three instances in gateway_status, whichever answers', async () => {
    if (!fleet) throw new Error('the fleet did not start');
    const res = await fetch(`${fleet.lb}/messages/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'gateway_status', arguments: {} },
      }),
    });
    const reply = (await res.json()) as {
      result: { structuredContent: { fleet: { instances: { pid: number }[] } } };
    };
    const pids = reply.result.structuredContent.fleet.instances.map((i) => i.pid);
    expect(pids.sort()).toEqual(fleet.instances.map((i) => i.pid).sort());
  });

  it('keeps every instance serving with one backend that cannot start, and says so in /readyz', async () => {
    if (!fleet) throw new Error('the fleet did not start');
    for (const instance of fleet.instances) {
      const ready = await waitFor(`${instance.url} to give the broken backend up`, async () => {
        const res = await fetch(`${instance.url}/readyz`);
        const body = (await res.json()) as {
          checks: { backends: { detail?: { failed?: string[] } } };
        };
        return body.checks.backends.detail?.failed?.includes('broken')
          ? { status: res.status, body }
          : undefined;
      });
      expect(ready.status).toBe(200);
    }
    // HAProxy takes an instance back after its own checks pass (`rise`): once all three are up
    // in the balancer, round-robin sends six calls to each instance twice.
    await waitFor(
      'HAProxy routing to all three',
      async () => (await servedBy(fleet?.lb ?? '', 6)).size === 3,
      30_000,
      200,
    );
    const servers = new Set<string>();
    for (let i = 0; i < 6; i++) {
      const res = await fetch(`${fleet.lb}/messages/`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: i,
          method: 'tools/call',
          params: { name: 'projects__list_projects', arguments: {} },
        }),
      });
      servers.add(res.headers.get('x-served-by') ?? '?');
      const reply = (await res.json()) as { result?: { isError?: boolean } };
      expect(reply.result?.isError ?? false).toBe(false);
    }
    expect(servers.size).toBe(3);
  });

  it("sees every instance's events in get_events, whichever answers (one log in PostgreSQL)", async () => {
    if (!fleet) throw new Error('the fleet did not start');
    const post = async (id: number, name: string, args: Record<string, unknown>) => {
      const res = await fetch(`${fleet?.lb}/messages/`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id,
          method: 'tools/call',
          params: { name, arguments: args },
        }),
      });
      return (await res.json()) as {
        result: { structuredContent: { events: { instance: string; event_type: string }[] } };
      };
    };
    // Round-robin: six calls reach each of the three instances twice.
    for (let i = 0; i < 6; i++) await post(10 + i, 'gateway_status', {});
    const instances = await waitFor('every instance in the shared log', async () => {
      const reply = await post(20, 'get_events', { event_type: 'gateway.started', limit: 50 });
      const seen = new Set(reply.result.structuredContent.events.map((e) => e.instance));
      return seen.size >= 3 ? seen : undefined;
    });
    expect(instances.size).toBe(3);
  });

  it('finishes a 2026-07-28 input round wherever its retries land (round-robin, no stickiness)', async () => {
    if (!fleet) throw new Error('the fleet did not start');
    const lb = fleet.lb;
    const tool = 'every__test_input_required_result_multi_round';
    type Round = {
      result?: {
        resultType: string;
        inputRequests?: Record<string, unknown>;
        requestState?: string;
        content?: unknown;
      };
      error?: unknown;
    };
    await waitFor(
      'HAProxy routing to all three',
      async () => (await servedBy(lb, 6)).size === 3,
      30_000,
      200,
    );
    const served: string[] = [];
    const round = async (id: number, extra: Record<string, unknown> = {}): Promise<Round> => {
      const res = await fetch(`${lb}/mcp`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': '2026-07-28',
          'mcp-method': 'tools/call',
          'mcp-name': tool,
        },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id,
          method: 'tools/call',
          params: {
            name: tool,
            arguments: {},
            ...extra,
            _meta: {
              'io.modelcontextprotocol/protocolVersion': '2026-07-28',
              'io.modelcontextprotocol/clientCapabilities': { elicitation: {} },
              'io.modelcontextprotocol/clientInfo': { name: 'fleet-e2e', version: '1' },
            },
          },
        }),
      });
      served.push(res.headers.get('x-served-by') ?? '?');
      return (await res.json()) as Round;
    };
    const answer = (r: Round, content: Record<string, unknown>) => {
      const key = Object.keys(r.result?.inputRequests ?? {})[0] as string;
      return {
        inputResponses: { [key]: { action: 'accept', content } },
        requestState: r.result?.requestState,
      };
    };
    // Three calls of three rounds each: with round-robin over three instances, most retries
    // land on an instance that does not hold the call.
    for (const [name, color] of [
      ['Ada', 'red'],
      ['Grace', 'teal'],
      ['Edsger', 'blue'],
    ]) {
      const first = await round(1);
      expect(first.result?.resultType).toBe('input_required');
      const second = await round(2, answer(first, { name }));
      expect(second.result?.resultType).toBe('input_required');
      const done = await round(3, answer(second, { color }));
      expect(done.result).toMatchObject({
        resultType: 'complete',
        content: [{ type: 'text', text: `${name} likes ${color}` }],
      });
    }
    // Rounds crossed instances (all three, unless the balancer took one out for a moment).
    expect(new Set(served).size).toBeGreaterThanOrEqual(2);
    // A spent requestState is refused by every instance, not only the one that took it (the
    // claim is in Redis): replayed through the balancer, it reaches each of the three.
    const first = await round(10);
    const retry = answer(first, { name: 'Barbara' });
    expect((await round(11, retry)).result?.resultType).toBe('input_required');
    served.length = 0;
    for (let i = 0; i < 3; i++) {
      expect((await round(12 + i, retry)).error).toMatchObject({ code: -32602 });
    }
    expect(new Set(served).size).toBeGreaterThanOrEqual(2);
  });

  it(`SDK v1 and SDK v2 make ${CALLS} calls each while an instance is SIGKILLed; nothing is lost`, async () => {
    if (!fleet) throw new Error('the fleet did not start');
    // The gateway advertises its backend's resource under its own URI (no other backend has it).
    await throughKill(
      fleet,
      { list: 'projects__list_projects', create: 'projects__create_project' },
      PROJECTS_URI,
    );
  }, 120_000);
});

/**
 * SDK v1 (a 2025 session, a GET stream, resources/subscribe on `uri`) and SDK v2 pinned to
 * 2026-07-28 (subscriptions/listen) make CALLS calls each through the balancer — every fifth
 * creates a project, so subscribers are told — while the second instance is SIGKILLed halfway.
 */
async function throughKill(
  f: Fleet,
  tools: { list: string; create: string },
  uri: string,
): Promise<void> {
  const { lb, keys, instances } = f;
  // SDK v1: a 2025 session (initialize), a GET stream, resources/subscribe.
  const v1 = new ClientV1({ name: 'fleet-v1', version: '1.0.0' });
  const v1Updates: string[] = [];
  v1.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => {
    v1Updates.push(n.params.uri);
  });
  const v1Transport = new HttpTransportV1(new URL(`${lb}/mcp`), {
    requestInit: { headers: auth(keys.v1) },
    reconnectionOptions: {
      initialReconnectionDelay: 200,
      maxReconnectionDelay: 1000,
      reconnectionDelayGrowFactor: 1.5,
      maxRetries: 20,
    },
  });
  await within(v1.connect(v1Transport, REQUEST), 20_000, 'SDK v1 connect');
  const v1Session = v1Transport.sessionId;
  expect(v1Session).toBeTruthy();
  await v1.subscribeResource({ uri: uri }, REQUEST);

  // SDK v2 pinned to 2026-07-28: no session, subscriptions/listen.
  const v2 = new Client(
    { name: 'fleet-v2', version: '1.0.0' },
    { versionNegotiation: { mode: { pin: '2026-07-28' } } },
  );
  const v2Updates: string[] = [];
  v2.setNotificationHandler('notifications/resources/updated', (n) => {
    v2Updates.push(n.params.uri);
  });
  await within(
    v2.connect(
      new StreamableHTTPClientTransport(new URL(`${lb}/mcp`), {
        requestInit: { headers: auth(keys.v2) },
      }),
      REQUEST,
    ),
    20_000,
    'SDK v2 connect',
  );
  expect(v2.getProtocolEra()).toBe('modern');
  let listening = await v2.listen({ resourceSubscriptions: [uri] }, REQUEST);

  const victim = instances[1] as HttpApp;
  let killed = false;
  const done = { v1: 0, v2: 0 };
  // kind: 'dropped' (the connection or the balancer gave up: a clean, fast failure), 'hung' (no
  // answer in time) or 'tool error' (an instance answered isError) — only the first is allowed.
  const failures: { client: string; call: number; kind: string; error: string }[] = [];
  const run = async (
    name: 'v1' | 'v2',
    call: (n: number) => Promise<{ isError?: unknown }>,
  ): Promise<void> => {
    for (let n = 0; n < CALLS; n++) {
      try {
        const result = await within(call(n), 25_000, `${name} call ${n}`);
        if (result.isError) {
          failures.push({ client: name, call: n, kind: 'tool error', error: 'isError' });
        }
      } catch (err) {
        // The SDKs' own request timeout is JSON-RPC -32001; within() throws TimeoutError.
        const hung = err instanceof TimeoutError || (err as { code?: unknown }).code === -32001;
        failures.push({
          client: name,
          call: n,
          kind: hung ? 'hung' : 'dropped',
          error: withCause(err),
        });
      }
      done[name]++;
      if (!killed && done.v1 >= CALLS / 2 && done.v2 >= CALLS / 2) {
        killed = true;
        process.kill(victim.pid, 'SIGKILL');
      }
    }
  };
  // Every fifth call writes (a project: its owner's subscribers are told), the rest read.
  const v1Call = (n: number) =>
    (n % 5 === 0
      ? v1.callTool({ name: tools.create, arguments: { name: `v1 ${n}` } }, undefined, REQUEST)
      : v1.callTool({ name: tools.list, arguments: {} }, undefined, REQUEST)) as Promise<{
      isError?: unknown;
    }>;
  const v2Call = (n: number) =>
    (n % 5 === 0
      ? v2.callTool({ name: tools.create, arguments: { name: `v2 ${n}` } }, REQUEST)
      : v2.callTool({ name: tools.list, arguments: {} }, REQUEST)) as Promise<{
      isError?: unknown;
    }>;
  await Promise.all([run('v1', v1Call), run('v2', v2Call)]);
  expect(killed).toBe(true);
  console.error(
    `fleet (${f.app}): ${failures.length} failed call(s) around the kill: ${JSON.stringify(failures)}; updates v1 ${v1Updates.length}, v2 ${v2Updates.length}`,
  );
  // At most the call each client had in flight on the killed instance, failed cleanly — and one
  // more if it met the dying process: between SIGKILL and the kernel closing its sockets, a
  // connection may still be accepted and then dropped, and HAProxy never resends a request that
  // reached an instance (tools are not idempotent). It takes the instance out at the first refused
  // connection (deploy/haproxy.cfg: observe layer4), so that one is a few calls after the first
  // (round-robin over three, the other client's calls interleaved). Seen in clean-clone CI runs
  // on the 2-core machine: calls 100 and 101, and 100 and 103.
  expect(failures.filter((f) => f.kind !== 'dropped')).toEqual([]);
  for (const client of ['v1', 'v2']) {
    const theirs = failures.filter((f) => f.client === client);
    expect(theirs.length, JSON.stringify(failures)).toBeLessThanOrEqual(2);
    // Failures around the kill only: close together, not a spread over the run.
    if (theirs.length === 2) {
      expect(
        Math.abs((theirs[1]?.call ?? 0) - (theirs[0]?.call ?? 0)),
        JSON.stringify(failures),
      ).toBeLessThanOrEqual(4);
    }
  }
  // The session survived the kill: same id, never re-initialized.
  expect(v1Transport.sessionId).toBe(v1Session);
  // Both subscriptions heard their own writes (each user owns its projects).
  expect(v1Updates.length).toBeGreaterThan(0);
  expect(v2Updates.length).toBeGreaterThan(0);

  // After the kill, a change still reaches both: v1's GET stream came back on a live
  // instance (the SDK reconnects it), v2 listens again if its stream was on the dead one.
  if ((await Promise.race([listening.closed, Promise.resolve('open')])) !== 'open') {
    listening = await v2.listen({ resourceSubscriptions: [uri] }, REQUEST);
  }
  const [v1Before, v2Before] = [v1Updates.length, v2Updates.length];
  await waitFor(
    'updates after the kill reach both clients',
    async () => {
      await v1.callTool(
        { name: tools.create, arguments: { name: 'v1 after' } },
        undefined,
        REQUEST,
      );
      await v2.callTool({ name: tools.create, arguments: { name: 'v2 after' } }, REQUEST);
      return v1Updates.length > v1Before && v2Updates.length > v2Before;
    },
    30_000,
    500,
  );
  await listening.close();
  await v1.close();
  await v2.close();
}
