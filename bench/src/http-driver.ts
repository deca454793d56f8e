// Raw frames on purpose: pre-serialized requests measure the server alone, with no client cost.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import autocannon from 'autocannon';
import type { Child } from './stdio-driver.js';

export interface HttpTarget {
  /** `node <server file>`; the server prints its port on the first stdout line. */
  command: string[];
  path: string;
  /**
   * Substrings the body of a correct reply contains: checked on one request by hand before the
   * load, then on every reply under load (a reply without them counts in `mismatches`).
   */
  expect: readonly string[];
  /** The request body; TOOL_CALL_BODY unless given. */
  body?: string;
  /** Headers sent beside content-type and accept (the 2026-07-28 ones, say). */
  headers?: Readonly<Record<string, string>>;
}

export interface HttpResult {
  requestsPerSec: number;
  /** Median latency in ms (autocannon records whole milliseconds). */
  p50: number;
  mean: number;
  /** CPU time (user + system) the server process spent per answered request, when known. */
  cpuMicrosPerRequest: number | undefined;
  non2xx: number;
  errors: number;
  timeouts: number;
  /** 2xx replies under load whose body lacked one of `expect` (a JSON-RPC error, say). */
  mismatches: number;
}

export const TOOL_CALL_BODY = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'tools/call',
  params: { name: 'add', arguments: { a: 2, b: 3 } },
});
export const TOOL_CALL_EXPECT: readonly string[] = ['"text":"5"'];

/**
 * The same call as a MCP 2026-07-28 request: the per-request `_meta` envelope (protocol version
 * and client capabilities; no initialize, no session) and the headers a conforming client sends.
 */
export const MODERN_TOOL_CALL_BODY = JSON.stringify({
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
export const MODERN_HEADERS: Readonly<Record<string, string>> = {
  'mcp-protocol-version': '2026-07-28',
  'mcp-method': 'tools/call',
  'mcp-name': 'add',
};
/** A modern reply: the tool's text and the 2026-07-28 `resultType` a 2025-era reply lacks. */
export const MODERN_TOOL_CALL_EXPECT: readonly string[] = ['"text":"5"', '"resultType":"complete"'];
const HEADERS = {
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
};
const HOST = '127.0.0.1';

/**
 * Starts the server as a child process (so the load generator has an event loop of its own),
 * checks one request by hand, warms it up for `warmupSec`, then measures `connections`
 * keep-alive connections for `durationSec`. The child is stopped whatever happens.
 */
export async function httpRun(
  target: HttpTarget,
  options: { connections: number; durationSec: number; warmupSec: number },
): Promise<HttpResult> {
  const [bin, ...args] = target.command as [string, ...string[]];
  const child: Child = spawn(bin, args, { stdio: ['pipe', 'pipe', 'inherit'] });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  try {
    const port = await portOf(child, target.command.at(-1) ?? bin);
    const url = `http://${HOST}:${port}${target.path}`;
    const sent = {
      headers: { ...HEADERS, ...target.headers },
      body: target.body ?? TOOL_CALL_BODY,
    };
    await checkOnce(url, sent, target.expect);
    const expect = target.expect;
    const load = {
      url,
      connections: options.connections,
      method: 'POST' as const,
      ...sent,
      verifyBody: (body: unknown) =>
        typeof body === 'string' && expect.every((e) => body.includes(e)),
    };
    await autocannon({ ...load, duration: options.warmupSec });
    const before = cpuMicros(child.pid);
    const result = await autocannon({ ...load, duration: options.durationSec });
    const after = cpuMicros(child.pid);
    return {
      requestsPerSec: result.requests.average,
      p50: result.latency.p50,
      mean: result.latency.average,
      non2xx: result.non2xx,
      errors: result.errors,
      timeouts: result.timeouts,
      mismatches: result.mismatches,
      cpuMicrosPerRequest:
        before === undefined || after === undefined || result.requests.total === 0
          ? undefined
          : (after - before) / result.requests.total,
    };
  } finally {
    // The servers exit when stdin ends; SIGKILL in case one does not within 2 s.
    child.stdin.on('error', () => {});
    child.stdin.end();
    const timer = setTimeout(() => child.kill('SIGKILL'), 2_000);
    await exited;
    clearTimeout(timer);
  }
}

/**
 * User + system CPU time of a process in µs, from /proc (Linux; undefined elsewhere). Unlike
 * req/s it barely moves when other work shares the machine, so it backs the ratios up.
 */
function cpuMicros(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after "(comm) ": state is [0], utime [11], stime [12], in clock ticks (USER_HZ 100).
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(fields[11]) + Number(fields[12]);
    return Number.isFinite(ticks) ? ticks * 10_000 : undefined;
  } catch {
    return undefined;
  }
}

/** The port the child prints on its first stdout line. */
function portOf(child: Child, who: string): Promise<number> {
  return new Promise((resolve, reject) => {
    let text = '';
    const timer = setTimeout(() => finish(new Error(`${who}: no port within 10 s`)), 10_000);
    const onData = (chunk: Buffer) => {
      text += chunk.toString('utf8');
      const nl = text.indexOf('\n');
      if (nl === -1) return;
      const port = Number(text.slice(0, nl));
      if (Number.isInteger(port) && port > 0) finish(undefined, port);
      else finish(new Error(`${who}: expected a port, got ${JSON.stringify(text.slice(0, nl))}`));
    };
    const onExit = (code: number | null) => finish(new Error(`${who}: exited (${code})`));
    const finish = (err: Error | undefined, port?: number) => {
      clearTimeout(timer);
      child.stdout.off('data', onData);
      child.off('exit', onExit);
      if (err) reject(err);
      else resolve(port as number);
    };
    child.stdout.on('data', onData);
    child.once('exit', onExit);
  });
}

/** One request on a connection of its own: status 200 and a body containing each of `expect`. */
function checkOnce(
  url: string,
  sent: { headers: Record<string, string>; body: string },
  expect: readonly string[],
): Promise<void> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      { method: 'POST', headers: sent.headers, agent: false, timeout: 5_000 },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const body = Buffer.concat(chunks).toString('utf8');
          if (res.statusCode === 200 && expect.every((e) => body.includes(e))) resolve();
          else reject(new Error(`${url}: HTTP ${res.statusCode} ${body.slice(0, 300)}`));
        });
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error(`${url}: no answer within 5 s`)));
    req.on('error', reject);
    req.end(sent.body);
  });
}
