/**
 * observability: what metrics and traces cost. The same HTTP tools/call load (autocannon) on
 *
 *   - the engine's HTTP server (engine-http) plain, with McpMetrics, and with metrics + traces;
 *   - the gateway over HTTP (its `rich` fixture's echo) with `--metrics off`, with metrics (the
 *     default), and with metrics + traces;
 *
 * in interleaved rounds, so drift hits every side alike. Traces go to a sink in this process
 * that accepts OTLP/HTTP and throws it away (the export's cost is the server's, not a
 * collector's).
 *
 * Target: metrics on, tracing off costs at most 5 % of the throughput. Separate processes run one
 * after the other differ by ±30 % in CPU per request on a shared two-core machine, far more than
 * the effect, so the judged figure comes from one process with the metrics switched on and off in
 * 200 ms windows under the same load (servers/observe-toggle.ts): requests per CPU-second with
 * metrics on, as a fraction of off, median over pairs of windows (one on, one off, in a random
 * order). The separate-process figures (req/s and CPU per request, paired by round) are printed
 * beside it, and the tracing-on figures with them.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type HttpResult, type HttpTarget, httpRun, TOOL_CALL_EXPECT } from './http-driver.js';
import { type ToggleWindow, toggleRatio } from './servers/observe-toggle.js';
import { median, withEnv } from './shared.js';

const TARGET = 0.95;

const server = (name: string) => [
  process.execPath,
  fileURLToPath(new URL(`./servers/${name}.js`, import.meta.url)),
];

const GATEWAY_BODY = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'tools/call',
  params: { name: 'rich__echo', arguments: { text: '5' } },
});

/** The loss a ratio of on to off stands for, in per cent. */
const pct = (ratio: number) => `${((1 - ratio) * 100).toFixed(1)} %`;

/** Run `targets` interleaved for `rounds`; each target's samples, in order. */
async function interleaved(
  targets: EnvTarget[],
  rounds: number,
  duration: number,
  connections: number,
): Promise<HttpResult[][]> {
  const samples: HttpResult[][] = targets.map(() => []);
  for (let r = 0; r < rounds; r++) {
    for (const [i, target] of targets.entries()) {
      samples[i]?.push(
        await withEnv(target.env, () =>
          httpRun(target, { connections, durationSec: duration, warmupSec: 1 }),
        ),
      );
    }
  }
  return samples;
}

type EnvTarget = HttpTarget & { env?: Record<string, string> };

/**
 * `rounds` runs of `target` with its metrics toggled in windows; each run's windows, and whether
 * any run had errors.
 */
async function toggledRuns(
  target: EnvTarget,
  rounds: number,
  duration: number,
  connections: number,
): Promise<{ runs: ToggleWindow[][]; bad: boolean }> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-toggle-'));
  const runs: ToggleWindow[][] = [];
  let bad = false;
  try {
    for (let r = 0; r < rounds; r++) {
      const out = join(dir, `${r}.json`);
      const result = await withEnv({ ...target.env, BENCH_TOGGLE_OUT: out }, () =>
        httpRun(target, { connections, durationSec: duration, warmupSec: 1 }),
      );
      if (result.non2xx + result.errors + result.timeouts + result.mismatches > 0) bad = true;
      // Written as the server exits: a server killed after its 2 s grace left none (a bad run).
      if (existsSync(out)) runs.push(JSON.parse(readFileSync(out, 'utf8')) as ToggleWindow[]);
      else bad = true;
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return { runs, bad };
}

export async function observabilityBench(roundsAsked: number, duration: number): Promise<boolean> {
  // Six servers a round: three rounds at most keep the group near a minute and a half.
  const rounds = Math.min(roundsAsked, 3);
  // The OTLP sink: every export answered 200 at once.
  const sink = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end('{}'));
  });
  await new Promise<void>((resolve) => sink.listen(0, '127.0.0.1', resolve));
  const otlp = `http://127.0.0.1:${(sink.address() as AddressInfo).port}`;
  let ok = true;
  try {
    const engineObserved: EnvTarget = {
      command: server('engine-http-observed'),
      path: '/rpc',
      expect: TOOL_CALL_EXPECT,
    };
    const gatewayTarget = (mode: 'off' | 'metrics' | 'tracing'): EnvTarget => ({
      command: server('gateway-http'),
      path: '/messages/',
      body: GATEWAY_BODY,
      expect: TOOL_CALL_EXPECT,
      env: { GATEWAY_MODE: mode, BENCH_OTLP: otlp },
    });
    const engine = await interleaved(
      [
        { command: server('engine-http'), path: '/rpc', expect: TOOL_CALL_EXPECT },
        engineObserved,
        {
          command: server('engine-http-observed'),
          path: '/rpc',
          expect: TOOL_CALL_EXPECT,
          env: { BENCH_TRACING: '1', OTEL_EXPORTER_OTLP_ENDPOINT: otlp },
        },
      ],
      rounds,
      duration,
      50,
    );
    const gateway = await interleaved(
      (['off', 'metrics', 'tracing'] as const).map(gatewayTarget),
      rounds,
      duration,
      32,
    );
    // Twice as long as a side of the comparison above: the gateway's windows are noisier (its
    // event-log thread's batches land in either kind), and five CI runs spread −1.4…5.2 % at 5 s.
    const toggledSec = 2 * duration;
    const engineToggled = await toggledRuns(engineObserved, rounds, toggledSec, 50);
    const gatewayToggled = await toggledRuns(gatewayTarget('metrics'), rounds, toggledSec, 32);
    console.log(
      `\nobservability: HTTP tools/call, autocannon, ${duration} s per side after a 1 s warm-up, ${rounds} interleaved round(s); ratio = paired median of req/s vs off`,
    );
    console.log(`  ${''.padEnd(44)}      req/s   p50 ms   ratio   CPU µs/req   CPU ratio`);
    const report = (group: string, labels: string[], results: HttpResult[][]) => {
      const base = results[0] as HttpResult[];
      results.forEach((samples, i) => {
        const rps = median(samples.map((s) => s.requestsPerSec));
        const p50 = median(samples.map((s) => s.p50));
        const ratio = median(
          samples.map((s, r) => s.requestsPerSec / (base[r] as HttpResult).requestsPerSec),
        );
        // Server CPU per request, paired the same way: steadier than req/s on a shared machine.
        const cpuOf = (r: HttpResult | undefined) => r?.cpuMicrosPerRequest || Number.NaN;
        const cpu = median(samples.map(cpuOf));
        const cpuRatio = median(samples.map((s, r) => cpuOf(base[r]) / cpuOf(s)));
        const bad = samples.some((s) => s.non2xx + s.errors + s.timeouts + s.mismatches > 0);
        if (bad) ok = false;
        console.log(
          `  ${`${group}: ${labels[i]}`.padEnd(44)} ${rps.toFixed(0).padStart(10)} ${String(p50).padStart(8)} ${ratio.toFixed(3).padStart(7)} ${cpu.toFixed(1).padStart(12)} ${cpuRatio.toFixed(3).padStart(11)}${bad ? '  ! errors under load: figures invalid' : ''}`,
        );
        if (i === 1)
          console.log(
            `    metrics on, separate processes: ${pct(ratio)} of req/s, ${pct(cpuRatio)} by CPU per request (informational: ±30 % noise here)`,
          );
        if (i === 2)
          console.log(
            `    tracing on: ${pct(ratio)} of req/s, ${pct(cpuRatio)} by CPU per request (informational)`,
          );
      });
    };
    report('engine', ['metrics off', 'metrics on', 'metrics + tracing'], engine);
    report('gateway', ['--metrics off', 'metrics on (default)', 'metrics + tracing'], gateway);
    console.log(
      `  metrics on vs off in one process, 200 ms windows in pairs of random order (${rounds} run(s) of ${toggledSec} s; requests per CPU-second, median over pairs):`,
    );
    for (const [group, toggled] of [
      ['engine', engineToggled],
      ['gateway', gatewayToggled],
    ] as const) {
      const { ratio, pairs } = toggleRatio(toggled.runs);
      const pass = !toggled.bad && pairs >= 20 && ratio >= TARGET;
      if (!pass) ok = false;
      console.log(
        `    ${group}: metrics on, tracing off: ${pct(ratio)} lost over ${pairs} window pairs (target ≤ ${((1 - TARGET) * 100).toFixed(0)} %) ${pass ? '✓' : '✗'}${toggled.bad ? '  ! errors under load: figures invalid' : ''}${pairs < 20 ? '  ! too few loaded windows' : ''}`,
      );
    }
  } finally {
    sink.close();
  }
  return ok;
}
