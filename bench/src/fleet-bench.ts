/**
 * The per-call cost of fleet mode: the same server over HTTP in memory mode (each process
 * on its own) and in shared mode (sessions and rate-limit buckets in Redis), one call in flight
 * at a time, so the latency difference is what one call pays for sharing. This 2-core machine
 * cannot show fleet throughput; the per-call cost is what shows whether a fleet is worth it.
 *
 * Printed per kind of call: p50 in each mode (timed in-process with `performance.now()`, µs
 * resolution), the added p50, and the Redis commands each call sends (every one a round trip on
 * these paths; counted on the store's connection). PostgreSQL: shared mode adds none (sessions
 * and limits never touch it; an app's own queries are the same in both modes).
 * Targets: ≤ 1 Redis round trip per modern tools/call and ≤ 0.3 ms added p50.
 */
import { randomUUID } from 'node:crypto';
import { Agent, request } from 'node:http';
import { createRedisStateStore, type RedisStateStore } from '@mcpkit/fleet';
import { createMcpHttpServer } from '@mcpkit/node';
import { defineTool, McpServer } from '@mcpkit/protocol';
import { z } from 'zod';
import { size } from './mode.js';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const CALLS = size(2000, 500);
const ROUNDS = size(5, 2);
const RATE = { points: 1_000_000, durationSec: 60 };

const add = defineTool({
  name: 'add',
  description: 'Add two numbers',
  inputSchema: z.object({ a: z.number(), b: z.number() }),
  handler: ({ a, b }) => String(a + b),
});

const MODERN = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'tools/call',
  params: {
    name: 'add',
    arguments: { a: 2, b: 3 },
    _meta: {
      'io.modelcontextprotocol/protocolVersion': '2026-07-28',
      'io.modelcontextprotocol/clientCapabilities': {},
    },
  },
});
const MODERN_HEADERS = {
  'mcp-protocol-version': '2026-07-28',
  'mcp-method': 'tools/call',
  'mcp-name': 'add',
};
const LEGACY = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'tools/call',
  params: { name: 'add', arguments: { a: 2, b: 3 } },
});

interface Target {
  port: number;
  close(): Promise<void>;
}

async function serve(store: RedisStateStore | undefined): Promise<Target> {
  const server = new McpServer({ name: 'fleet-bench', version: '1.0.0' }).addTool(add);
  const http = createMcpHttpServer(server, {
    rateLimit: RATE,
    ...(store ? { state: store } : {}),
  });
  const { port } = await http.listen();
  return { port, close: () => http.close() };
}

const agent = new Agent({ keepAlive: true, maxSockets: 1 });

function post(
  port: number,
  body: string,
  headers: Record<string, string>,
): Promise<{ status: number; text: string; session: string | undefined }> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path: '/mcp',
        method: 'POST',
        agent,
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          ...headers,
        },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          text += chunk;
        });
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            text,
            session: res.headers['mcp-session-id'] as string | undefined,
          }),
        );
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

async function openSession(port: number): Promise<string> {
  const init = await post(
    port,
    JSON.stringify({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: {
        protocolVersion: '2025-06-18',
        capabilities: {},
        clientInfo: { name: 'fleet-bench', version: '1' },
      },
    }),
    {},
  );
  if (!init.session) throw new Error(`initialize failed: ${init.status} ${init.text}`);
  await post(port, JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }), {
    'mcp-session-id': init.session,
  });
  return init.session;
}

/** `CALLS` sequential calls: their latencies in ms. */
async function measure(port: number, body: string, headers: Record<string, string>) {
  const out: number[] = [];
  for (let i = 0; i < CALLS; i++) {
    const started = performance.now();
    const reply = await post(port, body, headers);
    out.push(performance.now() - started);
    if (reply.status !== 200 || !reply.text.includes('"text":"5"'))
      throw new Error(`unexpected reply ${reply.status}: ${reply.text.slice(0, 200)}`);
  }
  return out;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;

/** Counts the commands the store's connection sends (ioredis `sendCommand`). */
function countCommands(store: RedisStateStore): () => number {
  const client = store.client as unknown as { sendCommand: (...args: unknown[]) => unknown };
  const original = client.sendCommand.bind(client);
  let n = 0;
  client.sendCommand = (...args: unknown[]) => {
    n++;
    return original(...args);
  };
  return () => n;
}

export async function fleetBench(): Promise<boolean> {
  let store: RedisStateStore;
  const prefix = `bench-fleet-${randomUUID()}:`;
  try {
    store = await createRedisStateStore(REDIS_URL, { prefix });
  } catch (err) {
    console.log(`\nfleet: Redis unreachable at ${REDIS_URL} (${(err as Error).message}): skipped`);
    return false;
  }
  const commands = countCommands(store);
  const memory = await serve(undefined);
  const shared = await serve(store);
  const memorySession = await openSession(memory.port);
  const sharedSession = await openSession(shared.port);
  const cases = [
    { label: 'modern tools/call (2026-07-28)', body: MODERN, headers: () => MODERN_HEADERS },
    {
      label: 'legacy tools/call (2025 session)',
      body: LEGACY,
      headers: (mode: 'memory' | 'shared') => ({
        'mcp-session-id': mode === 'memory' ? memorySession : sharedSession,
      }),
    },
  ];
  const results = cases.map(() => ({
    memory: [] as number[],
    shared: [] as number[],
    commands: 0,
  }));
  try {
    // Warm both sides (JIT, connections, Redis scripts loaded), then interleaved rounds.
    for (const c of cases) {
      await measure(memory.port, c.body, c.headers('memory'));
      await measure(shared.port, c.body, c.headers('shared'));
    }
    for (let r = 0; r < ROUNDS; r++) {
      for (const [i, c] of cases.entries()) {
        const result = results[i] as (typeof results)[number];
        result.memory.push(median(await measure(memory.port, c.body, c.headers('memory'))));
        const before = commands();
        result.shared.push(median(await measure(shared.port, c.body, c.headers('shared'))));
        result.commands += commands() - before;
      }
    }
  } finally {
    await memory.close();
    await shared.close();
    // Nothing of the run is left in Redis (the rate-limit buckets would live a minute more).
    const keys = await store.client.keys(`${prefix}*`).catch(() => [] as string[]);
    if (keys.length > 0) await store.client.del(...keys).catch(() => undefined);
    await store.close();
    agent.destroy();
  }
  console.log(
    `\nfleet: per-call cost of shared mode (Redis ${REDIS_URL}) vs memory mode, rate limit on in both, 1 call in flight, median of ${ROUNDS} rounds × ${CALLS} calls`,
  );
  console.log(
    `  ${''.padEnd(34)} memory p50   shared p50   added p50   Redis round trips/call   PostgreSQL`,
  );
  let ok = true;
  for (const [i, c] of cases.entries()) {
    const result = results[i] as (typeof results)[number];
    const mem = median(result.memory);
    const sh = median(result.shared);
    const perCall = result.commands / (ROUNDS * CALLS);
    const added = sh - mem;
    const modern = i === 0;
    const pass = perCall <= 1 && added <= 0.3;
    if (modern) ok = pass;
    console.log(
      `  ${c.label.padEnd(34)} ${mem.toFixed(3).padStart(7)} ms ${sh.toFixed(3).padStart(9)} ms ${added.toFixed(3).padStart(8)} ms ${perCall.toFixed(2).padStart(14)}            0${modern ? `   target ≤ 1 and ≤ 0.3 ms  ${pass ? 'OK' : 'MISSED'}` : ''}`,
    );
  }
  console.log(
    '  (legacy: the session is read from Redis once per instance, then served from memory; changes to it cost a write and a publish)',
  );
  return ok;
}
