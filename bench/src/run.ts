/**
 * `pnpm bench`: runs every benchmark against its baselines in the same run and prints the
 * ratios next to the targets. Rounds are interleaved so drift in machine load hits all sides.
 *
 *   --rounds N        rounds per side, stdio and HTTP (default 5; the median is reported)
 *   --count N         requests per stdio round (default 20000)
 *   --duration S      seconds each HTTP server is measured per round (default 5, after a 1 s warm-up)
 *   --only stdio|client|http|sysinfo|events|projects|tokens|gateway|memory|attack|observability|fleet|startup|oauth|rules|context|tasks
 *                     run one group of benchmarks (attack: what stalled or oversized listens make a
 *                     server hold)
 *   --check           exit 1 when a target is missed
 *   --short           CI's mode: every group and ratio, on fewer and smaller rounds (mode.ts)
 */
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { attackMemoryBench } from './attack-memory-bench.js';
import { clientBench } from './client-bench.js';
import { contextBench } from './context-bench.js';
import { eventsBench } from './events-bench.js';
import { fleetBench } from './fleet-bench.js';
import { fuzzRssBench } from './fuzz-rss-bench.js';
import { gatewayBench } from './gateway-bench.js';
import { gatewayHttpBench } from './gateway-http-bench.js';
import {
  type HttpResult,
  type HttpTarget,
  httpRun,
  MODERN_HEADERS,
  MODERN_TOOL_CALL_BODY,
  MODERN_TOOL_CALL_EXPECT,
  TOOL_CALL_EXPECT,
} from './http-driver.js';
import { mcpPipelinedRun } from './mcp-stdio-driver.js';
import { size } from './mode.js';
import { oauthBench } from './oauth-bench.js';
import { observabilityBench } from './observability-bench.js';
import { projectsBench } from './projects-bench.js';
import { rulesBench } from './rules-bench.js';
import { startupBench } from './startup-bench.js';
import { pipelinedRun } from './stdio-driver.js';
import { sysinfoBench } from './sysinfo-bench.js';
import { sysinfoHistoryBench } from './sysinfo-history-bench.js';
import { tasksBench } from './tasks-bench.js';
import { tokenBuildsBench } from './token-builds-bench.js';
import { tokensBench } from './tokens-bench.js';

const { values } = parseArgs({
  // `pnpm bench -- --rounds 3` passes the separator through; it means nothing here.
  args: process.argv.slice(2).filter((a) => a !== '--'),
  options: {
    rounds: { type: 'string', default: String(size(5, 1)) },
    count: { type: 'string', default: String(size(20_000, 5000)) },
    duration: { type: 'string', default: String(size(5, 2)) },
    only: { type: 'string' },
    check: { type: 'boolean', default: false },
    short: { type: 'boolean', default: false },
  },
});

function positive(name: string, value: string, integer: boolean): number {
  const n = Number(value);
  if (!(n > 0) || (integer && !Number.isInteger(n)) || !Number.isFinite(n)) {
    console.error(`--${name} must be a positive ${integer ? 'integer' : 'number'}, got '${value}'`);
    process.exit(2);
  }
  return n;
}
const rounds = positive('rounds', values.rounds, true);
const count = positive('count', values.count, true);
const duration = positive('duration', values.duration, false);
const only = values.only;
const GROUPS = [
  'stdio',
  'client',
  'http',
  'sysinfo',
  'events',
  'projects',
  'tokens',
  'gateway',
  'memory',
  'attack',
  'observability',
  'fleet',
  'startup',
  'oauth',
  'rules',
  'context',
  'tasks',
];
if (only !== undefined && !GROUPS.includes(only)) {
  console.error(`--only must be one of ${GROUPS.map((g) => `'${g}'`).join(', ')}; got '${only}'`);
  process.exit(2);
}

const server = (name: string) => [
  process.execPath,
  fileURLToPath(new URL(`./servers/${name}.js`, import.meta.url)),
];

interface Side {
  label: string;
  command: string[];
  samples: number[];
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] as number;
};
/** The sample with the median req/s: a row shows one real run, not a mix of several. */
const typical = (samples: HttpResult[]): HttpResult => {
  const sorted = [...samples].sort((a, b) => a.requestsPerSec - b.requestsPerSec);
  return sorted[Math.floor(sorted.length / 2)] as HttpResult;
};
const fmt = (n: number) => Math.round(n).toLocaleString('en-US').padStart(10);
const verdict = (ok: boolean) => (ok ? 'OK' : 'MISSED');

async function stdioBench(): Promise<boolean> {
  const sides: Side[] = [
    { label: 'raw line echo (readline)', command: server('raw-echo'), samples: [] },
    { label: 'raw line echo (batched writes)', command: server('raw-echo-batched'), samples: [] },
    { label: '@mcpkit/protocol stdio', command: server('engine-stdio'), samples: [] },
  ];
  for (let r = 0; r < rounds; r++) {
    for (const side of sides) side.samples.push(await pipelinedRun(side.command, count));
  }
  const [raw, rawBatched, ours] = sides.map((s) => median(s.samples)) as [number, number, number];
  console.log(`\nstdio: ${count} pipelined calls, median of ${rounds} rounds (calls/s)`);
  for (const side of sides) console.log(`  ${side.label.padEnd(34)} ${fmt(median(side.samples))}`);
  const ratio = ours / raw;
  const ok = ratio >= 0.75;
  console.log(
    `  ratio ours / raw echo            ${(ratio * 100).toFixed(0).padStart(9)} %   target ≥ 75 %  ${verdict(ok)}`,
  );
  console.log(
    `  ratio ours / batched raw echo    ${((ours / rawBatched) * 100).toFixed(0).padStart(9)} %   (informational)`,
  );
  return ok;
}

async function mcpStdioBench(): Promise<boolean> {
  const sides: Side[] = [
    {
      label: 'SDK McpServer + StdioServerTransport',
      command: server('sdk-mcp-stdio'),
      samples: [],
    },
    { label: '@mcpkit/protocol McpServer stdio', command: server('engine-mcp-stdio'), samples: [] },
  ];
  for (let r = 0; r < rounds; r++) {
    for (const side of sides) side.samples.push(await mcpPipelinedRun(side.command, count));
  }
  const [sdk, ours] = sides.map((s) => median(s.samples)) as [number, number];
  console.log(
    `\nstdio MCP tools/call: ${count} pipelined calls after initialize, median of ${rounds} rounds (calls/s)`,
  );
  for (const side of sides) console.log(`  ${side.label.padEnd(38)} ${fmt(median(side.samples))}`);
  const ratio = ours / sdk;
  const ok = ratio >= 4;
  console.log(
    `  ratio ours / SDK                   ${ratio.toFixed(1).padStart(9)} ×   target ≥ 4 ×   ${verdict(ok)}`,
  );
  return ok;
}

async function httpBench(): Promise<boolean> {
  const connections = 50;
  type Target = HttpTarget & { label: string };
  const legacy: Target[] = [
    {
      label: 'raw node:http JSON echo (ceiling)',
      command: server('raw-http'),
      path: '/',
      expect: TOOL_CALL_EXPECT,
    },
    {
      label: 'SDK stateless Streamable HTTP',
      command: server('sdk-http'),
      path: '/mcp',
      expect: TOOL_CALL_EXPECT,
    },
    {
      label: '@mcpkit/protocol Streamable /mcp',
      command: server('engine-http'),
      path: '/mcp',
      expect: TOOL_CALL_EXPECT,
    },
    {
      label: '@mcpkit/protocol plain JSON-RPC /rpc',
      command: server('engine-http'),
      path: '/rpc',
      expect: TOOL_CALL_EXPECT,
    },
  ];
  // The same call as a 2026-07-28 request (the `_meta` envelope and the MCP-Protocol-Version,
  // Mcp-Method, Mcp-Name headers; no initialize, no session). The raw echo gets the same bytes,
  // so the ceiling parses what the servers parse.
  const modern = { body: MODERN_TOOL_CALL_BODY, headers: MODERN_HEADERS };
  const current: Target[] = [
    {
      label: 'raw node:http JSON echo (ceiling)',
      command: server('raw-http'),
      path: '/',
      expect: TOOL_CALL_EXPECT,
      ...modern,
    },
    {
      label: 'SDK v2 createMcpHandler + toNodeHandler',
      command: server('sdk2-modern'),
      path: '/mcp',
      expect: MODERN_TOOL_CALL_EXPECT,
      ...modern,
    },
    {
      label: '@mcpkit/protocol Streamable /mcp',
      command: server('engine-http'),
      path: '/mcp',
      expect: MODERN_TOOL_CALL_EXPECT,
      ...modern,
    },
    {
      label: '@mcpkit/protocol plain JSON-RPC /rpc',
      command: server('engine-http'),
      path: '/rpc',
      expect: MODERN_TOOL_CALL_EXPECT,
      ...modern,
    },
  ];
  // Interleaved rounds (each round measures every target once), so drift in the machine's load
  // hits every side alike; a ratio is the median of its per-round ratios (paired), a row the
  // round with the median req/s.
  const run = async (targets: Target[]) => {
    const samples: HttpResult[][] = targets.map(() => []);
    for (let r = 0; r < rounds; r++) {
      for (const [i, target] of targets.entries()) {
        samples[i]?.push(
          await httpRun(target, { connections, durationSec: duration, warmupSec: 1 }),
        );
      }
    }
    return samples as [HttpResult[], HttpResult[], HttpResult[], HttpResult[]];
  };
  const legacyResults = await run(legacy);
  const modernResults = await run(current);
  console.log(
    `\nHTTP tools/call: autocannon c=${connections}, ${duration} s per server after a 1 s warm-up, servers in child processes, ${rounds} interleaved round(s): medians`,
  );
  console.log(`  ${''.padEnd(38)}      req/s   p50 ms   mean ms   server CPU µs/req`);
  let clean = true;
  const rows = (targets: Target[], results: HttpResult[][]) =>
    targets.forEach((target, i) => {
      const samples = results[i] as HttpResult[];
      const r = typical(samples);
      console.log(
        `  ${target.label.padEnd(38)} ${fmt(r.requestsPerSec)} ${String(r.p50).padStart(8)} ${r.mean.toFixed(2).padStart(9)} ${(r.cpuMicrosPerRequest?.toFixed(1) ?? '-').padStart(19)}`,
      );
      const sum = (key: 'non2xx' | 'errors' | 'timeouts' | 'mismatches') =>
        samples.reduce((n, sample) => n + sample[key], 0);
      if (sum('non2xx') + sum('errors') + sum('timeouts') + sum('mismatches') !== 0) {
        clean = false;
        console.log(
          `    ! non-2xx ${sum('non2xx')}, errors ${sum('errors')}, timeouts ${sum('timeouts')}, wrong bodies ${sum('mismatches')}: figures invalid`,
        );
      }
    });
  // The same ratio from server CPU per request: what req/s would show with the server alone on
  // a core. Informational — it steadies the figures when other work shares the machine.
  const byCpu = (ours: HttpResult[], other: HttpResult[]) => {
    const each = ours.flatMap((o, i) => {
      const t = other[i];
      return o.cpuMicrosPerRequest && t?.cpuMicrosPerRequest
        ? [t.cpuMicrosPerRequest / o.cpuMicrosPerRequest]
        : [];
    });
    return each.length === ours.length ? median(each) : undefined;
  };
  const paired = (ours: HttpResult[], other: HttpResult[]) =>
    median(ours.map((o, i) => o.requestsPerSec / (other[i] as HttpResult).requestsPerSec));
  const ratios = (
    [raw, sdk, streamable, plain]: [HttpResult[], HttpResult[], HttpResult[], HttpResult[]],
    names: { sdk: string; ours: (path: string) => string },
    targets: { sdk: number; raw: number },
  ) => {
    let ok = true;
    const width = Math.max(34, `ratio ${names.ours('/mcp')} / ${names.sdk}`.length);
    for (const [path, ours] of [
      ['/mcp', streamable],
      ['/rpc', plain],
    ] as const) {
      const vsSdk = paired(ours, sdk);
      const vsRaw = paired(ours, raw);
      const cpuSdk = byCpu(ours, sdk);
      const cpuRaw = byCpu(ours, raw);
      ok = ok && vsSdk >= targets.sdk && vsRaw >= targets.raw;
      const sdkTarget = `target ≥ ${targets.sdk} ×`.padEnd(14);
      const rawTarget = `target ≥ ${(targets.raw * 100).toFixed(0)} %`.padEnd(14);
      console.log(
        `  ${`ratio ${names.ours(path)} / ${names.sdk}`.padEnd(width)} ${vsSdk.toFixed(1).padStart(9)} ×   ${sdkTarget} ${verdict(vsSdk >= targets.sdk).padEnd(6)}  by CPU/req ${cpuSdk === undefined ? '-' : `${cpuSdk.toFixed(1)} ×`}`,
      );
      console.log(
        `  ${`ratio ${names.ours(path)} / raw`.padEnd(width)} ${(vsRaw * 100).toFixed(0).padStart(9)} %   ${rawTarget} ${verdict(vsRaw >= targets.raw).padEnd(6)}  by CPU/req ${cpuRaw === undefined ? '-' : `${(cpuRaw * 100).toFixed(0)} %`}`,
      );
    }
    return ok;
  };
  console.log('  2025-era request (no _meta envelope, no version headers)');
  rows(legacy, legacyResults);
  const legacyOk = ratios(
    legacyResults,
    { sdk: 'SDK', ours: (path) => `ours ${path}` },
    { sdk: 15, raw: 0.7 },
  );
  console.log(
    '  2026-07-28 request (_meta envelope + MCP-Protocol-Version, Mcp-Method, Mcp-Name headers)',
  );
  rows(current, modernResults);
  const modernOk = ratios(
    modernResults,
    { sdk: 'SDK v2 modern', ours: (path) => `ours modern ${path}` },
    { sdk: 15, raw: 0.8 },
  );
  return clean && legacyOk && modernOk;
}

const results: boolean[] = [];
if (only === undefined || only === 'stdio') results.push(await stdioBench(), await mcpStdioBench());
if (only === undefined || only === 'client') results.push(await clientBench(rounds, count));
if (only === undefined || only === 'http') results.push(await httpBench());
if (only === undefined || only === 'sysinfo')
  results.push(await sysinfoBench(), await sysinfoHistoryBench());
if (only === undefined || only === 'events') results.push(await eventsBench());
if (only === undefined || only === 'projects')
  results.push(await projectsBench(), await tokensBench(), await tokenBuildsBench());
if (only === 'tokens') results.push(await tokensBench(), await tokenBuildsBench());
if (only === undefined || only === 'gateway')
  results.push(await gatewayBench(), await gatewayHttpBench(rounds));
if (only === undefined || only === 'memory') results.push(await fuzzRssBench());
if (only === undefined || only === 'attack') results.push(await attackMemoryBench());
if (only === undefined || only === 'observability')
  results.push(await observabilityBench(rounds, duration));
if (only === undefined || only === 'fleet') results.push(await fleetBench());
if (only === undefined || only === 'startup') results.push(await startupBench(rounds * 3));
if (only === undefined || only === 'oauth') results.push(await oauthBench(rounds, duration));
if (only === undefined || only === 'rules') results.push(await rulesBench(rounds, duration));
if (only === undefined || only === 'context') results.push(await contextBench());
if (only === undefined || only === 'tasks') results.push(await tasksBench());
if (values.check && results.some((ok) => !ok)) process.exitCode = 1;
