/**
 * gateway: the cost of the hop. The same `tools/call echo` of the gateway's `rich` fixture is
 * sent straight to the fixture over stdio and through `mcp-gateway` (stdio in front, the fixture
 * as its stdio backend), by the same minimal JSON-RPC client, in one run:
 *
 *   - concurrency 1: sequential calls, p50/p99 latency per side and the latency the gateway adds
 *     (gateway − direct). The sides are measured in interleaved blocks so drift hits both.
 *   - concurrency 32: a fixed number of calls kept 32 in flight; throughput gateway / direct.
 *
 * Both sides are warmed up first (JIT, the gateway's event log). The children are stopped by
 * closing their stdin, and killed in `finally` whatever happens.
 */
import { type ChildProcessByStdio, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { Readable, Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';

const SEQUENTIAL = 2000;
const BLOCK = 250;
const CONCURRENT = 20_000;
const CONCURRENCY = 32;
const WARMUP_SEQUENTIAL = 1000;
const WARMUP_CONCURRENT = 5000;
const TARGET_ADDED_P50_US = 50;

const gatewayDist = dirname(fileURLToPath(import.meta.resolve('@mcpkit/gateway')));
const RICH = join(gatewayDist, 'fixtures', 'rich.js');
const CLI = join(gatewayDist, 'cli.js');

type Child = ChildProcessByStdio<Writable, Readable, Readable>;

interface Reply {
  id?: number;
  result?: { content?: { type?: string; text?: string }[]; isError?: boolean } & Record<
    string,
    unknown
  >;
  error?: { code: number; message: string };
}

/** Newline-delimited JSON-RPC over a child's stdin/stdout: the client both sides share. */
class LineClient {
  readonly #pending = new Map<number, (reply: Reply) => void>();
  #nextId = 1;
  #buffer = '';
  readonly exited: Promise<void>;
  #stderr = '';

  constructor(
    readonly label: string,
    readonly child: Child,
  ) {
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => this.#onData(chunk));
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => {
      this.#stderr = (this.#stderr + chunk).slice(-4000);
    });
    child.stdin.on('error', () => {});
    this.exited = new Promise((resolve) => child.once('exit', () => resolve()));
    void this.exited.then(() => {
      for (const [, settle] of this.#pending) settle({ error: { code: -1, message: 'exited' } });
      this.#pending.clear();
    });
  }

  #onData(chunk: string): void {
    this.#buffer += chunk;
    let nl = this.#buffer.indexOf('\n');
    while (nl !== -1) {
      const line = this.#buffer.slice(0, nl);
      this.#buffer = this.#buffer.slice(nl + 1);
      nl = this.#buffer.indexOf('\n');
      if (line.trim() === '') continue;
      const message = JSON.parse(line) as Reply & { method?: string };
      if (message.method !== undefined || typeof message.id !== 'number') continue;
      const settle = this.#pending.get(message.id);
      if (settle) {
        this.#pending.delete(message.id);
        settle(message);
      }
    }
  }

  request(method: string, params?: unknown): Promise<Reply> {
    const id = this.#nextId++;
    const done = new Promise<Reply>((resolve) => this.#pending.set(id, resolve));
    this.child.stdin.write(
      `${JSON.stringify({ jsonrpc: '2.0', id, method, ...(params === undefined ? {} : { params }) })}\n`,
    );
    return done;
  }

  notify(method: string): void {
    this.child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method })}\n`);
  }

  async result(method: string, params?: unknown): Promise<NonNullable<Reply['result']>> {
    const reply = await this.request(method, params);
    if (!reply.result)
      throw new Error(
        `${this.label}: ${method} failed: ${JSON.stringify(reply.error)}\n${this.#stderr}`,
      );
    return reply.result;
  }

  async initialize(): Promise<void> {
    await this.result('initialize', {
      protocolVersion: '2025-06-18',
      capabilities: {},
      clientInfo: { name: 'mcpkit-bench', version: '0.0.0' },
    });
    this.notify('notifications/initialized');
  }

  /** Ends stdin and waits for the child; kills it after `graceMs`. */
  async stop(graceMs = 5000): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    this.child.stdin.end();
    const timer = setTimeout(() => this.child.kill('SIGKILL'), graceMs);
    await this.exited;
    clearTimeout(timer);
  }
}

interface Side {
  label: string;
  client: LineClient;
  tool: string;
}

let seq = 0;
/** One echo call; its reply must carry the text back. Resolves with the latency in µs. */
async function echo(side: Side): Promise<number> {
  const text = `bench ${seq++}`;
  const start = performance.now();
  const reply = await side.client.request('tools/call', {
    name: side.tool,
    arguments: { text },
  });
  const micros = (performance.now() - start) * 1000;
  if (reply.result?.content?.[0]?.text !== text || reply.result.isError === true) {
    throw new Error(`${side.label}: unexpected reply ${JSON.stringify(reply).slice(0, 300)}`);
  }
  return micros;
}

async function sequential(side: Side, n: number, into?: number[]): Promise<void> {
  for (let i = 0; i < n; i++) {
    const us = await echo(side);
    into?.push(us);
  }
}

/** `n` calls, `concurrency` in flight at all times; resolves with calls per second. */
async function concurrent(side: Side, n: number, concurrency: number): Promise<number> {
  let started = 0;
  const worker = async () => {
    while (started < n) {
      started++;
      await echo(side);
    }
  };
  const start = performance.now();
  await Promise.all(Array.from({ length: concurrency }, worker));
  return n / ((performance.now() - start) / 1000);
}

const percentile = (sorted: number[], q: number) =>
  sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] as number;

const isAlive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

export async function gatewayBench(): Promise<boolean> {
  const dir = mkdtempSync(join(tmpdir(), 'mcpkit-gateway-bench-'));
  const config = join(dir, 'gateway.json');
  writeFileSync(
    config,
    JSON.stringify({
      gateway: { name: 'bench-gateway' },
      mcpServers: { rich: { command: process.execPath, args: [RICH] } },
    }),
  );
  const clients: LineClient[] = [];
  let backendPid: number | undefined;
  try {
    const directClient = new LineClient(
      'direct',
      spawn(process.execPath, [RICH], { stdio: ['pipe', 'pipe', 'pipe'] }),
    );
    clients.push(directClient);
    const gatewayClient = new LineClient(
      'gateway',
      spawn(
        process.execPath,
        [CLI, '--config', config, '--events', join(dir, 'events.db'), '--log-level', 'warn'],
        { stdio: ['pipe', 'pipe', 'pipe'] },
      ),
    );
    clients.push(gatewayClient);
    await Promise.all([directClient.initialize(), gatewayClient.initialize()]);

    const direct: Side = { label: 'direct', client: directClient, tool: 'echo' };
    const gateway: Side = { label: 'gateway', client: gatewayClient, tool: 'rich__echo' };
    const listed = (await gatewayClient.result('tools/list')) as { tools?: { name: string }[] };
    if (!listed.tools?.some((t) => t.name === 'rich__echo'))
      throw new Error('gateway: rich__echo is not listed; the backend did not start');
    const who = await gatewayClient.result('tools/call', { name: 'rich__who', arguments: {} });
    backendPid = Number(who.content?.[0]?.text) || undefined;

    for (const side of [direct, gateway]) {
      await sequential(side, WARMUP_SEQUENTIAL);
      await concurrent(side, WARMUP_CONCURRENT, CONCURRENCY);
    }

    const samples = new Map<Side, number[]>([
      [direct, []],
      [gateway, []],
    ]);
    for (let done = 0; done < SEQUENTIAL; done += BLOCK) {
      for (const side of [direct, gateway]) {
        await sequential(side, Math.min(BLOCK, SEQUENTIAL - done), samples.get(side));
      }
    }
    const stats = (side: Side) => {
      const sorted = [...(samples.get(side) ?? [])].sort((a, b) => a - b);
      return { p50: percentile(sorted, 0.5), p99: percentile(sorted, 0.99) };
    };
    const d = stats(direct);
    const g = stats(gateway);

    const directRate = await concurrent(direct, CONCURRENT, CONCURRENCY);
    const gatewayRate = await concurrent(gateway, CONCURRENT, CONCURRENCY);

    const us = (n: number) => `${n.toFixed(1)} µs`.padStart(11);
    const rate = (n: number) => Math.round(n).toLocaleString('en-US').padStart(11);
    const addedP50 = g.p50 - d.p50;
    const ok = addedP50 <= TARGET_ADDED_P50_US;
    console.log(
      `\ngateway: tools/call echo of the rich fixture over stdio, direct vs through mcp-gateway`,
    );
    console.log(
      `  concurrency 1: ${SEQUENTIAL} sequential calls per side, interleaved blocks of ${BLOCK}`,
    );
    console.log(`  ${''.padEnd(36)}        p50         p99`);
    console.log(`  ${'direct to the backend'.padEnd(36)}${us(d.p50)} ${us(d.p99)}`);
    console.log(`  ${'through the gateway'.padEnd(36)}${us(g.p50)} ${us(g.p99)}`);
    console.log(
      `  ${'added by the gateway'.padEnd(36)}${us(addedP50)} ${us(g.p99 - d.p99)}   target p50 ≤ ${TARGET_ADDED_P50_US} µs  ${ok ? 'OK' : 'MISSED'}`,
    );
    console.log(`  concurrency ${CONCURRENCY}: ${CONCURRENT} calls per side (calls/s)`);
    console.log(`  ${'direct to the backend'.padEnd(36)}${rate(directRate)}`);
    console.log(`  ${'through the gateway'.padEnd(36)}${rate(gatewayRate)}`);
    console.log(
      `  ${'ratio gateway / direct'.padEnd(36)}${`${((gatewayRate / directRate) * 100).toFixed(0)} %`.padStart(11)}   (informational)`,
    );
    return ok;
  } finally {
    await Promise.all(clients.map((c) => c.stop()));
    for (const c of clients) {
      if (c.child.exitCode === null && c.child.signalCode === null) c.child.kill('SIGKILL');
    }
    // The backend leads its own process group; normally the gateway has reaped it already.
    if (backendPid !== undefined && isAlive(backendPid)) {
      try {
        process.kill(-backendPid, 'SIGKILL');
      } catch {
        try {
          process.kill(backendPid, 'SIGKILL');
        } catch {
          // gone meanwhile
        }
      }
    }
    rmSync(dir, { recursive: true, force: true });
  }
}
