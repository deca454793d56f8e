/**
 * fuzz RSS: memory under sustained small bad input. The system-info app runs as a child process
 * over stdio and over HTTP (its plain `POST /` and Streamable `/mcp`) and gets rounds of 20,000
 * small bad inputs each — broken and truncated JSON, bytes that are not UTF-8, wrong versions and
 * ids, unknown methods, tools and resources (each with a name of its own, so nothing keyed by
 * name can stay small by accident), stray responses, junk batches, refused headers. After each
 * round (once every reply of the round is in) the child's RSS is read from /proc/<pid>/status.
 * RSS must plateau: the last five rounds within 5 MB of each other, per transport.
 *
 * Before each reading the child runs a full GC (it is started with `--expose-gc` and a SIGUSR2
 * hook): what is measured is what the inputs left behind. Without it V8 lets garbage pile up
 * for ~25 rounds (RSS +0.9 MB a round) before a major GC gives it back, and 12 rounds would
 * measure V8's heap sizing, not a leak.
 *
 * The children are stopped in `finally` whatever happens (stdin closed, then SIGKILL; the HTTP
 * one by the kit's `stop()`).
 */
import { type ChildProcessByStdio, spawn } from 'node:child_process';
import { once } from 'node:events';
import { Agent, type IncomingMessage, request } from 'node:http';
import { dirname, join } from 'node:path';
import type { Readable, Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import {
  GC_ON_SIGNAL,
  type HttpProcess,
  rssAfterGc,
  seededRandom,
  spawnHttpServer,
} from '@mcpkit/testing';
import { size } from './mode.js';

const ROUNDS = size(12, 8);
const PER_ROUND = size(20_000, 10_000);
const LAST = 5;
const TARGET_SPREAD_MB = 5;
/** HTTP requests in flight at once (keep-alive connections). */
const CONCURRENCY = 8;
/** Let the child settle (idle GC) before its RSS is read. */
const SETTLE_MS = 300;

const CLI = join(dirname(fileURLToPath(import.meta.resolve('@mcpkit/system-info'))), 'cli.js');

type Bad = string | Buffer;

/**
 * Small bad inputs, each at most a few hundred bytes; `n` makes names and ids unique. Every one
 * is refused or answered with an error (or, for notifications and stray responses, ignored).
 */
const BAD: ((n: number, random: () => number) => Bad)[] = [
  () => '{"jsonrpc":"2.0","id":1,"method":',
  (n) => `{"jsonrpc":"2.0","id":${n},"method":"no/such/method-${n}"}`,
  (n) => `{"jsonrpc":"1.0","id":${n},"method":"ping"}`,
  (n) => `{"jsonrpc":"2.0","id":{"n":${n}},"method":"ping"}`,
  (n) => `{"jsonrpc":"2.0","id":${n}.5,"method":"ping"}`,
  () => '[]',
  (n) => `[1,"x",null,{"jsonrpc":"2.0","id":"b${n}","result":{}},[]]`,
  (n) =>
    `{"jsonrpc":"2.0","id":${n},"method":"tools/call","params":{"name":"no_tool_${n}","arguments":{}}}`,
  (n) =>
    `{"jsonrpc":"2.0","id":${n},"method":"tools/call","params":{"name":"get_uptime","arguments":${n}}}`,
  (n) => `{"jsonrpc":"2.0","method":"notifications/unknown-${n}","params":{"n":${n}}}`,
  (n) => `{"jsonrpc":"2.0","id":"stray-${n}","result":{"n":${n}}}`,
  (n) => `{"jsonrpc":"2.0","id":${n},"method":"resources/read","params":{"uri":"nowhere://${n}"}}`,
  (n) => `{"jsonrpc":"2.0","id":${n},"method":"ping","params":"not an object"}`,
  (n) => `{"jsonrpc":"2.0","id":${n},"method":"prompts/get","params":{"name":"no-prompt-${n}"}}`,
  (n) => `{"jsonrpc":"2.0","id":${n},"method":"logging/setLevel","params":{"level":"loud-${n}"}}`,
  (n) =>
    `{"jsonrpc":"2.0","id":${n},"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"1999-${n}","io.modelcontextprotocol/clientCapabilities":{}}}}`,
  () => 'not json at all',
  () => Buffer.from([0x7b, 0xff, 0xfe, 0x7d]),
  (n, random) =>
    Array.from({ length: 8 + Math.floor(random() * 120) }, () =>
      String.fromCharCode(32 + Math.floor(random() * 95)),
    ).join('') + String(n),
];

/** Input `i` of the run, the same on every run (seeded). */
function badInputs(seed: number): (i: number) => Bad {
  const random = seededRandom(seed);
  return (i) => (BAD[Math.floor(random() * BAD.length)] as (typeof BAD)[number])(i, random);
}

type Child = ChildProcessByStdio<Writable, Readable, null>;

/**
 * Over stdio: a round is written in one go (with backpressure), then a ping whose answer — in
 * order, after every reply of the round — closes it.
 */
async function stdioRounds(): Promise<number[]> {
  const child: Child = spawn(process.execPath, [...GC_ON_SIGNAL, CLI, '--log-level', 'error'], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.stdin.on('error', () => {});
  let tail = '';
  const waiters = new Map<string, () => void>();
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk: string) => {
    const text = tail + chunk;
    for (const [marker, resolve] of waiters) {
      if (text.includes(marker)) {
        waiters.delete(marker);
        resolve();
      }
    }
    tail = text.slice(-200);
  });
  const next = badInputs(1);
  const rss: number[] = [];
  try {
    for (let round = 0; round < ROUNDS; round++) {
      const marker = `"id":"rss-round-${round}"`;
      const closed = new Promise<void>((resolve, reject) => {
        waiters.set(marker, resolve);
        void exited.then(() => reject(new Error('stdio: the server exited')));
      });
      for (let i = 0; i < PER_ROUND; i++) {
        const bad = next(round * PER_ROUND + i);
        const ok = child.stdin.write(
          typeof bad === 'string' ? `${bad}\n` : Buffer.concat([bad, Buffer.from('\n')]),
        );
        if (!ok) await new Promise((resolve) => child.stdin.once('drain', resolve));
      }
      child.stdin.write(`{"jsonrpc":"2.0","id":"rss-round-${round}","method":"ping"}\n`);
      await closed;
      rss.push(await rssAfterGc(child.pid as number, SETTLE_MS));
    }
    return rss;
  } finally {
    child.stdin.end();
    const timer = setTimeout(() => child.kill('SIGKILL'), 2_000);
    await exited;
    clearTimeout(timer);
  }
}

const HEADERS = [
  { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
  { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
  { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
  {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-session-id': 'no-such-session',
  },
  { 'content-type': 'text/plain', accept: 'application/json' },
  { 'content-type': 'application/json', accept: 'text/html' },
];

/** One POST, read to the end: its status. */
async function post(
  agent: Agent,
  url: URL,
  body: Bad,
  headers: Record<string, string>,
): Promise<number> {
  const req = request(url, { method: 'POST', agent, headers, signal: AbortSignal.timeout(10_000) });
  req.end(body);
  const [res] = (await once(req, 'response')) as [IncomingMessage];
  res.resume();
  await once(res, 'end');
  return res.statusCode ?? 0;
}

/** Over HTTP: the round's inputs by `CONCURRENCY` keep-alive connections, to `/` and `/mcp`. */
async function httpRounds(): Promise<number[]> {
  let server: HttpProcess | undefined;
  const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY });
  try {
    server = await spawnHttpServer(
      process.execPath,
      [
        ...GC_ON_SIGNAL,
        CLI,
        '--transport',
        'http',
        '--host',
        '127.0.0.1',
        '--port',
        '0',
        '--log-level',
        'info',
      ],
      { detached: true },
    );
    const urls = [new URL(`${server.url}/`), new URL(`${server.url}/mcp`)];
    const next = badInputs(2);
    const pickHeaders = seededRandom(3);
    const rss: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      let sent = 0;
      const worker = async () => {
        while (sent < PER_ROUND) {
          const i = round * PER_ROUND + sent++;
          const headers = HEADERS[Math.floor(pickHeaders() * HEADERS.length)] as Record<
            string,
            string
          >;
          const status = await post(agent, urls[i % 2] as URL, next(i), headers);
          if (status >= 500 && status !== 503) throw new Error(`HTTP ${status} for input ${i}`);
        }
      };
      await Promise.all(Array.from({ length: CONCURRENCY }, worker));
      rss.push(await rssAfterGc(server.pid, SETTLE_MS));
    }
    return rss;
  } finally {
    agent.destroy();
    await server?.stop();
  }
}

export async function fuzzRssBench(): Promise<boolean> {
  const sides = [
    { label: 'stdio', rss: await stdioRounds() },
    { label: 'HTTP', rss: await httpRounds() },
  ];
  console.log(
    `\nfuzz RSS: system-info under sustained small bad input, ${ROUNDS} rounds of ${PER_ROUND.toLocaleString('en-US')} inputs per transport (HTTP: POST / and /mcp)`,
  );
  console.log('  RSS after each round, after a full GC in the child (MB)');
  for (const side of sides) {
    console.log(
      `  ${side.label.padEnd(8)}${side.rss.map((mb) => mb.toFixed(1).padStart(7)).join('')}`,
    );
  }
  let ok = true;
  for (const side of sides) {
    const last = side.rss.slice(-LAST);
    const spread = Math.max(...last) - Math.min(...last);
    const fine = spread <= TARGET_SPREAD_MB;
    ok &&= fine;
    console.log(
      `  ${`${side.label}: spread of the last ${LAST} rounds`.padEnd(36)}${`${spread.toFixed(1)} MB`.padStart(9)}   target ≤ ${TARGET_SPREAD_MB} MB  ${fine ? 'OK' : 'MISSED'}`,
    );
  }
  return ok;
}
