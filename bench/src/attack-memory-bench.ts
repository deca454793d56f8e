/**
 * attack memory: what an attacker can make an MCP HTTP server hold, in a child process whose RSS
 * is read from /proc/<pid>/status. Two attacks, each against a fresh server:
 *
 *   - slow streams: 200 `subscriptions/listen` (2026-07-28) on raw sockets that are paused and
 *     never read, while the server is made to notify them. Each listen's id is 2,000 characters:
 *     every notification echoes it (`_meta` subscriptionId), so each one is ~2 KB — what an
 *     attacker would pick. Without a bound every notification is queued in memory for a client
 *     that will never take it (200 such streams took a server from 74 MB to 1.4 GB); now a stream
 *     more than 256 KiB behind is ended, and its listen with it.
 *   - large listens: 100 listens, each naming as much as one may (256 URIs, ≤ 64 KiB of params),
 *     held open (before the bounds, 100 such listens took 783 MB); and one listen over each
 *     bound, which must be refused with -32602.
 *
 * The slow-stream server is the `everything` fixture of @mcpkit/node (runCli, the same HTTP
 * stack as the apps): system-info never notifies a listen, and the fixture has a tool,
 * `test_trigger_resource_update`, that notifies every listener of `test://watched-resource` and
 * answers how many it told — so the bench also sees when the server has ended every stalled
 * stream. The large-listen server is system-info itself.
 *
 * "before" and "after" are read after a full GC in the child (`--expose-gc`, a SIGUSR2 hook, as
 * in fuzz-rss-bench): what the attack left behind, not garbage V8 has not collected yet ("after":
 * see rssAfterClose). "peak" is VmHWM, the child's resident high-water mark: the real peak, not
 * the highest of a few samples. Bounded in count, time and memory; the children are killed in
 * `finally` whatever happens.
 */
import { Agent, type IncomingMessage, request } from 'node:http';
import type { Socket } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  GC_ON_SIGNAL,
  type HttpProcess,
  openRawListen,
  procMemoryMb,
  rssAfterGc,
  spawnHttpServer,
} from '@mcpkit/testing';
import { size } from './mode.js';

const STALLED = 200;
const LARGE = 100;
/** Slow streams: bounds of the flood of notifications (it stops once every stream is ended). */
const MAX_TRIGGERS = size(40_000, 20_000);
const MAX_FLOOD_MS = size(120_000, 60_000);
/**
 * The flood also stops once the child holds this much (a miss already): were the queues
 * unbounded again, it would take gigabytes before reaching the other bounds.
 */
const ABORT_MB = 1000;
/** Trigger calls in flight at once (keep-alive connections). */
const CONCURRENCY = 4;
/** Length of each stalled listen's id, echoed in every notification it is sent. */
const ID_CHARS = 2000;
/**
 * Peak targets, well below the unbounded figures: 200 streams × 256 KiB queued is 50 MB over a
 * ~70 MB server; 100 listens × 64 KiB is 6.4 MB of params, held in a few copies each.
 */
const TARGET_PEAK_MB = { slow: 400, large: 300 };
/** RSS after the attackers close, after GC, at most this far above where it started. */
const TARGET_AFTER_MB = 50;
const SETTLE_MS = 300;
const SETTLE_MAX_S = 15;

const SYSTEM_INFO = join(
  dirname(fileURLToPath(import.meta.resolve('@mcpkit/system-info'))),
  'cli.js',
);
const EVERYTHING = join(
  dirname(fileURLToPath(import.meta.resolve('@mcpkit/node'))),
  'fixtures',
  'everything.js',
);
/**
 * The envelope of listen `id`, from a client program of its own: without auth the per-caller
 * share (64 listens) keys on the address and `clientInfo.name`, which an attacker chooses — so
 * the attack varies it, and what bounds memory is the limits measured here, not that share.
 * Names of one length, so every listen's size is the same.
 */
const metaFor = (id: string) => ({
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
  'io.modelcontextprotocol/clientInfo': {
    name: `attacker-${id}`.padEnd(24, '.').slice(0, 24),
    version: '0',
  },
});
const MAX_LISTEN_BYTES = 64 * 1024;
const MAX_LISTEN_URIS = 256;
const MAX_URI_CHARS = 2048;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * RSS after GC once the attackers have gone: read about every second, until it is back within
 * 2 MB of `before` or SETTLE_MAX_S have passed; the lowest reading and when it was taken. Freed
 * memory is handed back to the system late: read at once, even after a full GC, RSS still counts
 * 30-60 MB the server no longer uses, and 5-8 s later it is back where it started. What a leak
 * holds never comes back down, so the lowest reading is what the attack left behind.
 */
async function rssAfterClose(pid: number, before: number): Promise<{ mb: number; s: number }> {
  const started = Date.now();
  let lowest = { mb: Number.POSITIVE_INFINITY, s: 0 };
  while (Date.now() - started < SETTLE_MAX_S * 1000) {
    const mb = await rssAfterGc(pid, SETTLE_MS);
    if (mb < lowest.mb) lowest = { mb, s: (Date.now() - started) / 1000 };
    if (mb <= before + 2) break;
    await sleep(1000 - 2 * SETTLE_MS);
  }
  return lowest;
}

function spawnServer(cli: string): Promise<HttpProcess> {
  return spawnHttpServer(
    process.execPath,
    [
      ...GC_ON_SIGNAL,
      cli,
      '--transport',
      'http',
      '--host',
      '127.0.0.1',
      '--port',
      '0',
      '--log-level',
      'error',
    ],
    // At this log level the URL is in the start-up banner, not in a JSON log line.
    { detached: true, urlFrom: /listening on (http:\/\/[\d.:]+)/ },
  );
}

/** The listen's request body: a 2026-07-28 request (the `_meta` envelope, no session). */
function listenBody(id: string, notifications: Record<string, unknown>): string {
  return JSON.stringify({
    jsonrpc: '2.0',
    id,
    method: 'subscriptions/listen',
    params: { notifications, _meta: metaFor(id) },
  });
}

/** One POST read to the end: its body as JSON. */
async function post(
  agent: Agent | undefined,
  url: string,
  body: string,
  headers: Record<string, string> = {},
): Promise<{ result?: { content?: { text?: string }[] }; error?: { code: number } }> {
  const req = request(url, {
    method: 'POST',
    agent,
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...headers,
    },
    signal: AbortSignal.timeout(30_000),
  });
  req.end(body);
  const res = await new Promise<IncomingMessage>((resolve, reject) => {
    req.once('response', resolve);
    req.once('error', reject);
  });
  let text = '';
  res.setEncoding('utf8');
  for await (const chunk of res) text += chunk;
  // An SSE answer (never expected here) would carry the JSON on its last `data:` line.
  return JSON.parse(text.startsWith('{') ? text : (/data: (.*)\n\n$/.exec(text)?.[1] ?? 'null'));
}

const TRIGGER = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'tools/call',
  params: { name: 'test_trigger_resource_update', arguments: {} },
});

/** Notify every listener of the watched resource once; how many the server told. */
async function trigger(agent: Agent, url: string): Promise<number> {
  const reply = await post(agent, `${url}/`, TRIGGER);
  const told = Number(/^(\d+) subscriber/.exec(reply.result?.content?.[0]?.text ?? '')?.[1]);
  if (!Number.isInteger(told))
    throw new Error(`trigger: unexpected reply ${JSON.stringify(reply)}`);
  return told;
}

interface Figures {
  before: number;
  peak: number;
  after: { mb: number; s: number };
  note: string;
  extraOk: boolean;
}

/** 200 listens never read, fed notifications until the server has ended every one of them. */
async function slowStreams(): Promise<Figures> {
  let server: HttpProcess | undefined;
  const sockets: Socket[] = [];
  const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY });
  try {
    server = await spawnServer(EVERYTHING);
    const before = await rssAfterGc(server.pid, SETTLE_MS);
    for (let i = 0; i < STALLED; i++) {
      const id = `stalled-${i}-`.padEnd(ID_CHARS, 'x');
      const body = listenBody(id, { resourceSubscriptions: ['test://watched-resource'] });
      const socket = openRawListen(server.url, body);
      // Paused before anything arrives: nothing is read, ever (the attack).
      socket.pause();
      sockets.push(socket);
    }
    // Until the server has taken every listen (each trigger also counts them).
    const started = Date.now();
    while ((await trigger(agent, server.url)) < STALLED) {
      if (Date.now() - started > 30_000) throw new Error('slow streams: listens not all taken');
      await sleep(50);
    }
    // The flood: each trigger sends each live listen ~2 KB. It stops when the server says it
    // told nobody — every stream was ended for falling behind — or at the bounds.
    let calls = 0;
    let live = STALLED;
    let tooLarge = false;
    const deadline = Date.now() + MAX_FLOOD_MS;
    const { url, pid } = server;
    const worker = async () => {
      while (live > 0 && calls < MAX_TRIGGERS && Date.now() < deadline && !tooLarge) {
        if (calls % 20 === 0) tooLarge = procMemoryMb(pid, 'VmRSS') > ABORT_MB;
        calls++;
        // Replies may come back out of order; streams only ever end, so the least is current.
        live = Math.min(live, await trigger(agent, url));
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    const peak = procMemoryMb(server.pid, 'VmHWM');
    for (const socket of sockets) socket.destroy();
    const after = await rssAfterClose(server.pid, before);
    const ended = STALLED - live;
    return {
      before,
      peak,
      after,
      note: `streams ended by the server ${ended}/${STALLED}, after ${calls.toLocaleString('en-US')} triggers${tooLarge ? ` (stopped: over ${ABORT_MB} MB)` : ''}`,
      extraOk: ended === STALLED,
    };
  } finally {
    for (const socket of sockets) socket.destroy();
    agent.destroy();
    await server?.stop(2_000);
  }
}

/**
 * Params naming `count` URIs of `chars` characters, as the server measures them (JSON of the
 * parsed params, `_meta` included).
 */
function listenParams(id: string, count: number, chars: number) {
  const uris = Array.from({ length: count }, (_, i) => `mem://${id}/${i}/`.padEnd(chars, 'x'));
  const notifications = { resourceSubscriptions: uris };
  return { notifications, bytes: JSON.stringify({ notifications, _meta: metaFor(id) }).length };
}

/**
 * The longest URIs that let 256 of them fit the 64 KiB bound: the largest listen allowed. Each
 * character more per URI is 256 bytes more, so it is computed from the size at 32 characters.
 */
function largestListen(id: string) {
  const spare = MAX_LISTEN_BYTES - listenParams(id, MAX_LISTEN_URIS, 32).bytes;
  const chars = Math.min(MAX_URI_CHARS, 32 + Math.floor(spare / MAX_LISTEN_URIS));
  return { chars, ...listenParams(id, MAX_LISTEN_URIS, chars) };
}

/** Read a listen's acknowledgment; how many URIs the server honoured. */
function acknowledged(socket: Socket): Promise<number> {
  return new Promise((resolve, reject) => {
    let text = '';
    const timer = setTimeout(
      () => reject(new Error(`large listen: no acknowledgment: ${text.slice(0, 400)}`)),
      30_000,
    );
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      text += chunk;
      const data = /data: (\{.*"notifications\/subscriptions\/acknowledged".*)\n\n/.exec(text);
      if (!data) return;
      clearTimeout(timer);
      // Nothing else comes; the listen is held, and its socket no longer read.
      socket.pause();
      socket.removeAllListeners('data');
      const ack = JSON.parse(data[1] as string);
      resolve(ack.params.notifications.resourceSubscriptions.length);
    });
  });
}

/** 100 of the largest listens held; and one over each bound refused. */
async function largeListens(): Promise<Figures> {
  let server: HttpProcess | undefined;
  const sockets: Socket[] = [];
  try {
    server = await spawnServer(SYSTEM_INFO);
    const url = server.url;
    const before = await rssAfterGc(server.pid, SETTLE_MS);
    const headers = { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'subscriptions/listen' };
    const refusal = async (notifications: Record<string, unknown>) =>
      (await post(undefined, `${url}/mcp`, listenBody('over', notifications), headers)).error?.code;
    const { chars, bytes } = largestListen('l-000');
    // One character more per URI is over 64 KiB; one URI more is over the 256.
    const overSize = await refusal(listenParams('over', MAX_LISTEN_URIS, chars + 1).notifications);
    const overCount = await refusal(listenParams('over', MAX_LISTEN_URIS + 1, 8).notifications);
    const honoured: Promise<number>[] = [];
    for (let i = 0; i < LARGE; i++) {
      const id = `l-${String(i).padStart(3, '0')}`;
      const socket = openRawListen(url, listenBody(id, largestListen(id).notifications));
      sockets.push(socket);
      honoured.push(acknowledged(socket));
    }
    const held = (await Promise.all(honoured)).filter((n) => n === MAX_LISTEN_URIS).length;
    const whileHeld = await rssAfterGc(server.pid, SETTLE_MS);
    const peak = procMemoryMb(server.pid, 'VmHWM');
    for (const socket of sockets) socket.destroy();
    const after = await rssAfterClose(server.pid, before);
    const refused = overSize === -32602 && overCount === -32602;
    return {
      before,
      peak,
      after,
      note: `held ${held}/${LARGE} listens of ${MAX_LISTEN_URIS} URIs × ${chars} chars (${bytes.toLocaleString('en-US')} B), ${whileHeld.toFixed(1)} MB while held (after GC); over 64 KiB → ${overSize}, ${MAX_LISTEN_URIS + 1} URIs → ${overCount}`,
      extraOk: held === LARGE && refused,
    };
  } finally {
    for (const socket of sockets) socket.destroy();
    await server?.stop(2_000);
  }
}

export async function attackMemoryBench(): Promise<boolean> {
  const slow = await slowStreams();
  const large = await largeListens();
  console.log(
    '\nattack memory: what attackers make an MCP HTTP server hold (child RSS in MB; before and after after a full GC, peak = VmHWM)',
  );
  let ok = true;
  const report = (label: string, f: Figures, peakTarget: number, extra: string) => {
    const peakOk = f.peak <= peakTarget;
    const grew = f.after.mb - f.before;
    const afterOk = grew <= TARGET_AFTER_MB;
    ok &&= peakOk && afterOk && f.extraOk;
    console.log(`  ${label}`);
    console.log(
      `    before ${f.before.toFixed(1)}   peak ${f.peak.toFixed(1)}   after close ${f.after.mb.toFixed(1)} (${f.after.s.toFixed(0)} s after)`,
    );
    console.log(`    ${f.note}`);
    console.log(
      `    ${'peak'.padEnd(28)}${`${f.peak.toFixed(0)} MB`.padStart(9)}   target ≤ ${peakTarget} MB  ${peakOk ? 'OK' : 'MISSED'}`,
    );
    console.log(
      `    ${'after close − before'.padEnd(28)}${`${grew.toFixed(1)} MB`.padStart(9)}   target ≤ ${TARGET_AFTER_MB} MB   ${afterOk ? 'OK' : 'MISSED'}`,
    );
    console.log(`    ${extra.padEnd(40)}   ${f.extraOk ? 'OK' : 'MISSED'}`);
  };
  report(
    `slow streams: ${STALLED} listens never read, ~2 KB notifications (everything fixture; was 1.4 GB)`,
    slow,
    TARGET_PEAK_MB.slow,
    'every stalled stream ended by the server',
  );
  report(
    `large listens: ${LARGE} of the largest allowed, held (system-info; was 783 MB)`,
    large,
    TARGET_PEAK_MB.large,
    'all held; each over a bound refused -32602',
  );
  return ok;
}
