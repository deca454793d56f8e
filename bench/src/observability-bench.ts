/**
 * observability: what metrics and traces cost. The same HTTP tools/call load (autocannon) on
 *
 *   - the engine's HTTP server (engine-http) plain, with McpMetrics, and with metrics + traces;
 *   - the gateway over HTTP (its `rich` fixture's echo) with `--metrics off`, with metrics (the
 *     default), and with metrics + traces;
 *
 * in interleaved rounds, so drift hits every side alike. Traces go to a sink in this process
 * that accepts OTLP/HTTP and throws it away (the export's cost is the server's, not a
 * collector's). Target: metrics on, tracing off costs at most 5 % of the throughput — judged by
 * the paired median of server CPU per request (what req/s would be with the server alone on a
 * core; req/s itself swings with whatever else shares the machine), by req/s when CPU is not
 * known. Both are printed, and the tracing-on figures beside them.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { type HttpResult, type HttpTarget, httpRun, TOOL_CALL_EXPECT } from './http-driver.js';

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

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? (s[m] as number) : ((s[m - 1] as number) + (s[m] as number)) / 2;
};

/** Run `targets` interleaved for `rounds`; each target's samples, in order. */
async function interleaved(
  targets: (HttpTarget & { env?: Record<string, string> })[],
  rounds: number,
  duration: number,
  connections: number,
): Promise<HttpResult[][]> {
  const samples: HttpResult[][] = targets.map(() => []);
  for (let r = 0; r < rounds; r++) {
    for (const [i, target] of targets.entries()) {
      const saved = { ...process.env };
      Object.assign(process.env, target.env ?? {});
      try {
        samples[i]?.push(
          await httpRun(target, { connections, durationSec: duration, warmupSec: 1 }),
        );
      } finally {
        for (const key of Object.keys(target.env ?? {})) {
          if (saved[key] === undefined) delete process.env[key];
          else process.env[key] = saved[key];
        }
      }
    }
  }
  return samples;
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
    const engine = await interleaved(
      [
        { command: server('engine-http'), path: '/rpc', expect: TOOL_CALL_EXPECT },
        { command: server('engine-http-observed'), path: '/rpc', expect: TOOL_CALL_EXPECT },
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
      (['off', 'metrics', 'tracing'] as const).map((mode) => ({
        command: server('gateway-http'),
        path: '/messages/',
        body: GATEWAY_BODY,
        expect: TOOL_CALL_EXPECT,
        env: { GATEWAY_MODE: mode, BENCH_OTLP: otlp },
      })),
      rounds,
      duration,
      32,
    );
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
        if (i === 1) {
          // The check reads server CPU per request when it is known: what req/s would show with
          // the server alone on a core (req/s swings with whatever else shares the machine).
          const judged = Number.isFinite(cpuRatio) ? cpuRatio : ratio;
          const pass = judged >= TARGET;
          if (!pass) ok = false;
          console.log(
            `    metrics on, tracing off: ${((1 - judged) * 100).toFixed(1)} % lost by ${Number.isFinite(cpuRatio) ? 'CPU per request' : 'req/s'} (target ≤ ${((1 - TARGET) * 100).toFixed(0)} %) ${pass ? '✓' : '✗'}`,
          );
        }
        if (i === 2)
          console.log(
            `    tracing on: ${((1 - ratio) * 100).toFixed(1)} % of req/s, ${((1 - cpuRatio) * 100).toFixed(1)} % by CPU per request (informational)`,
          );
      });
    };
    report('engine', ['metrics off', 'metrics on', 'metrics + tracing'], engine);
    report('gateway', ['--metrics off', 'metrics on (default)', 'metrics + tracing'], gateway);
  } finally {
    sink.close();
  }
  return ok;
}
