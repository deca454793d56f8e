// @module-tag process
/**
 * Fuzzing at scale, bounded: every app over every transport — stdio (before and after the
 * handshake), its plain JSON-RPC POST path, Streamable HTTP `/mcp` — gets FUZZ_RUNS inputs from
 * one fast-check arbitrary (`fuzz-inputs.ts`: JSON-RPC with random methods, params and ids,
 * batches, broken JSON, bytes that are not UTF-8, random MCP headers). Every reply is checked
 * against JSON-RPC 2.0, every HTTP status against the documented ones, and a `ping` must be
 * answered within 2 s every 100 inputs and at the end (`fuzz-target.ts`).
 *
 *   FUZZ_RUNS  inputs per transport per app (default 10,000: the file takes about 2 minutes on
 *              this two-core machine; stdio sends a quarter of them before initialize)
 *   FUZZ_SEED  fast-check's seed (default 20261123); printed, and again on a failure
 *   FUZZ_PATH  with FUZZ_SEED, starts at the failing input (the `path` fast-check printed)
 *   FUZZ_ONLY  cells to run, comma-separated: an app, a transport, or app:transport
 *              (`gateway`, `stdio`, `projects:mcp`; transports are stdio, plain, mcp)
 *
 * Long mode (≥ 1,000,000 inputs per transport): `npx -y pnpm@10.34.8 --filter @mcpkit/e2e fuzz`;
 * see the README's "Fuzzing" section.
 */
import { spawnRaw } from '@mcpkit/testing';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { type FuzzInput, fuzzInputs, type InputOptions } from './fuzz-inputs.js';
import { HttpTarget, httpProblems, idsIn, StdioTarget, Tally } from './fuzz-target.js';
import {
  APPS,
  type AppName,
  type HttpApp,
  killAll,
  prepare,
  scratch,
  startHttp,
} from './helpers.js';

const positive = (name: string, fallback: number): number => {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isSafeInteger(n) || n < 0) throw new Error(`${name} must be an integer ≥ 0: ${raw}`);
  return n;
};

const RUNS = Math.max(1, positive('FUZZ_RUNS', 10_000));
const SEED = positive('FUZZ_SEED', 20261123);
const PATH = process.env.FUZZ_PATH || undefined;
const ONLY = (process.env.FUZZ_ONLY ?? '')
  .split(',')
  .map((s) => s.trim())
  .filter(Boolean);
/** Generous: a hung server is caught per input (10 s) long before this. */
const TIMEOUT_MS = 120_000 + RUNS * 10;

type Transport = 'stdio' | 'plain' | 'mcp';
const selected = (app: AppName, transport: Transport) =>
  ONLY.length === 0 ||
  ONLY.some((o) => o === app || o === transport || o === `${app}:${transport}`);

/** Each app's plain JSON-RPC path (the API it is compatible with). */
const PLAIN_PATH: Record<AppName, string> = {
  'system-info': '/',
  projects: '/api/mcp',
  gateway: '/messages/',
};

const SYSINFO_TOOLS = [
  'get_uptime',
  'get_cpu_info',
  'get_memory_info',
  'get_disk_info',
  'get_os_info',
  'get_network_info',
  'get_processes',
  'get_system_snapshot',
  'get_battery',
  'get_temperature',
  'get_gpu_info',
  'get_listening_ports',
  'get_user_sessions',
  'get_docker_containers',
  'get_auth_logs',
  'get_metric_history',
  'top_consumers',
  'find_process_by_port',
  'get_alerts',
];
const PROJECTS_TOOLS = [
  'list_projects',
  'get_project',
  'create_project',
  'update_project',
  'delete_project',
  'list_blocks',
  'get_block',
  'create_block',
  'update_block',
  'delete_block',
  'list_assets',
  'get_asset',
  'get_design_system',
  'update_design_tokens',
];
const URIS = [
  'codefluss://projects',
  'codefluss://design-system/1',
  'codefluss://design-system/',
  'sysinfo://alerts',
  'sysinfo://metrics/cpu.percent',
];

/**
 * The largest body the fuzzer makes: createMcpHttpServer's default limit (system-info, the
 * gateway). Projects refuses bodies over 2 MiB (413), which the fuzz accepts as an answer.
 */
const MAX_BODY = 4 * 1024 * 1024;

const INPUTS: Record<AppName, Omit<InputOptions, 'initialize'>> = {
  'system-info': { tools: SYSINFO_TOOLS, uris: URIS, maxBytes: MAX_BODY },
  projects: { tools: PROJECTS_TOOLS, uris: URIS, maxBytes: MAX_BODY },
  gateway: {
    tools: [
      'gateway_status',
      'get_events',
      'search',
      ...PROJECTS_TOOLS.map((t) => `projects__${t}`),
      ...SYSINFO_TOOLS.map((t) => `sysinfo__${t}`),
      'projects:list_projects',
    ],
    uris: URIS,
    maxBytes: MAX_BODY,
  },
};

/** Projects' rate limit is raised: at 120 a minute the fuzz would see nothing but 429. */
const HTTP_EXTRA: Record<AppName, string[]> = {
  'system-info': [],
  projects: ['--rate-limit', '1000000000', '--rate-window', '1'],
  gateway: [],
};

console.log(
  `fuzz: seed ${SEED}, ${RUNS} inputs per transport per app` +
    `${PATH ? `, path ${PATH}` : ''}${ONLY.length ? `, only ${ONLY.join(',')}` : ''}`,
);

afterAll(killAll);

/** Run `runs` inputs through `send`; a failure names the cell and how to replay it. */
async function fuzz(
  cell: string,
  arbitrary: fc.Arbitrary<FuzzInput>,
  runs: number,
  send: (input: FuzzInput) => Promise<void>,
): Promise<void> {
  try {
    await fc.assert(fc.asyncProperty(arbitrary, send), {
      seed: SEED,
      numRuns: runs,
      // No shrinking: the server has state, and a fresh look at a hung one would hang too.
      endOnFailure: true,
      includeErrorInReport: true,
      ...(PATH ? { path: PATH } : {}),
    });
  } catch (err) {
    throw new Error(
      `${cell} failed (seed ${SEED}). Replay: FUZZ_SEED=${SEED} FUZZ_RUNS=${RUNS} FUZZ_ONLY=${cell.split(' ')[0]}` +
        ` (add FUZZ_PATH=<path below> to start at the failing input)\n${(err as Error).message}`,
    );
  }
}

describe.each(APPS)('fuzz %s', (app) => {
  it.runIf(selected(app, 'stdio'))(
    'stdio: before and after initialize',
    async () => {
      const s = scratch(`fuzz-${app}-stdio`);
      try {
        const { stdio } = await prepare(app, s);
        const raw = spawnRaw(stdio.command, stdio.args, {
          env: stdio.env,
          inheritEnv: false,
          cwd: s.dir,
          detached: true,
        });
        try {
          const target = new StdioTarget(raw);
          await target.ping(20_000, 'the first ping');
          const before = Math.ceil(RUNS / 4);
          const cell = `${app}:stdio`;
          await fuzz(
            `${cell} (before initialize)`,
            fuzzInputs({ ...INPUTS[app], initialize: false }),
            before,
            (input) => target.send(input),
          );
          await target.initialize();
          await fuzz(
            `${cell} (after initialize)`,
            fuzzInputs({ ...INPUTS[app], initialize: true }),
            Math.max(1, RUNS - before),
            (input) => target.send(input),
          );
          await target.finish();
          console.log(`${cell}: ${target.tally.summary()}`);
        } finally {
          await raw.end(5_000);
        }
      } finally {
        s.cleanup();
      }
    },
    TIMEOUT_MS,
  );

  for (const transport of ['plain', 'mcp'] as const) {
    it.runIf(selected(app, transport))(
      transport === 'plain' ? `plain POST ${PLAIN_PATH[app]}` : 'Streamable HTTP /mcp',
      async () => {
        const s = scratch(`fuzz-${app}-${transport}`);
        let server: HttpApp | undefined;
        let target: HttpTarget | undefined;
        try {
          const prepared = await prepare(app, s, true);
          server = await startHttp(app, [...prepared.httpArgs, ...HTTP_EXTRA[app]], prepared.env);
          target = new HttpTarget({
            url: transport === 'plain' ? `${server.url}${PLAIN_PATH[app]}` : server.mcpUrl,
            streamable: transport === 'mcp',
            token: prepared.apiKey,
            pid: server.pid,
            stderr: server.stderr,
          });
          await target.open();
          const cell = `${app}:${transport}`;
          const active = target;
          await fuzz(cell, fuzzInputs({ ...INPUTS[app], initialize: true }), RUNS, (input) =>
            active.send(input),
          );
          await target.finish();
          console.log(`${cell}: ${target.tally.summary()}`);
        } finally {
          target?.close();
          await server?.stop();
          s.cleanup();
        }
      },
      TIMEOUT_MS,
    );
  }
});

/** The checks themselves: a fuzz run that cannot fail proves nothing. */
describe('the fuzz oracle', () => {
  const ping: FuzzInput = {
    kind: 'message',
    body: '{"jsonrpc":"2.0","id":1,"method":"ping"}',
    headers: {},
  };
  const problems = (status: number, text: string, contentType = 'application/json') =>
    httpProblems({ status, contentType, text }, idsIn(ping.body, false), new Tally(), ping);

  it('accepts JSON-RPC 2.0 replies, empty 202s and SSE streams of them', () => {
    expect(problems(200, '{"jsonrpc":"2.0","id":1,"result":{}}')).toEqual([]);
    expect(
      problems(200, '{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}'),
    ).toEqual([]);
    expect(problems(202, '')).toEqual([]);
    expect(
      problems(
        200,
        'id: 1\ndata:\n\nevent: message\ndata: {"jsonrpc":"2.0","id":1,"result":{}}\n\n',
        'text/event-stream',
      ),
    ).toEqual([]);
  });

  it('on a plain path, accepts 400 only for a request of the modern era', () => {
    const refusal = '{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"Invalid _meta"}}';
    const check = (input: FuzzInput) =>
      httpProblems(
        { status: 400, contentType: 'application/json', text: refusal },
        idsIn(input.body, false),
        new Tally(),
        input,
        true,
      );
    expect(check(ping)).not.toEqual([]);
    expect(check({ ...ping, headers: { 'mcp-protocol-version': '2026-07-28' } })).toEqual([]);
  });

  it.each([
    [500, '{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"Internal error"}}'],
    [200, ''],
    [200, 'not JSON'],
    [200, '[]'],
    [200, '{"id":1,"result":{}}'],
    [200, '{"jsonrpc":"2.0","id":2,"result":{}}'],
    [200, '{"jsonrpc":"2.0","id":null,"result":{}}'],
    [200, '{"jsonrpc":"2.0","id":1}'],
    [200, '{"jsonrpc":"2.0","id":1,"result":{},"error":{"code":1,"message":"x"}}'],
    [200, '{"jsonrpc":"2.0","id":1,"error":{"code":1.5,"message":"x"}}'],
    [200, '{"jsonrpc":"2.0","id":1,"error":{"code":1}}'],
    [200, '{"jsonrpc":"2.0","id":{},"result":{}}'],
    [400, '{"jsonrpc":"2.0","id":1,"error":{"code":1,"message":"x\\n    at f (a.js:1:1)"}}'],
  ])('rejects HTTP %i %s', (status, text) => {
    expect(problems(status, text)).not.toEqual([]);
  });

  it('over stdio, catches a line that is not JSON-RPC, a stray id, a request never answered and a server that stops', async () => {
    // A stand-in server: answers requests, misbehaves when told to.
    const script = `
      const rl = require('node:readline').createInterface({ input: process.stdin });
      let stopped = false;
      rl.on('line', (line) => {
        if (stopped) return;
        if (line === 'junk') return void process.stdout.write('this is not JSON-RPC\\n');
        if (line === 'stray') return void process.stdout.write('{"jsonrpc":"2.0","id":"x","result":{}}\\n');
        if (line === 'stop') return void (stopped = true);
        const m = JSON.parse(line);
        if (m.method === 'swallow') return;
        process.stdout.write(JSON.stringify({ jsonrpc: '2.0', id: m.id, result: {} }) + '\\n');
      });`;
    const raw = spawnRaw(process.execPath, ['-e', script]);
    try {
      const target = new StdioTarget(raw);
      await target.send(ping);
      await expect(target.send({ ...ping, body: 'junk' })).rejects.toThrow(/not JSON/);
      await expect(target.send({ ...ping, body: 'stray' })).rejects.toThrow(/no input sent/);
      await target.send({ ...ping, body: '{"jsonrpc":"2.0","id":9,"method":"swallow"}' });
      await expect(target.finish(200)).rejects.toThrow(/id 9 never answered/);
      raw.send('stop');
      await expect(target.ping(300)).rejects.toThrow(/within 300 ms/);
    } finally {
      raw.kill();
    }
  });
});
