/**
 * The gateway over HTTP with the `rich` fixture as its backend, for the observability and rules
 * benches: GATEWAY_MODE=off (--metrics off), metrics (the default: /metrics on), or tracing
 * (metrics and OTel traces to BENCH_OTLP, the bench's sink); GATEWAY_RULES=<n> for n rules. `mcp-gateway` runs in this process (its CLI
 * imported with the arguments set), so the driver's CPU-per-request figure is the gateway's.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { installObserveToggle } from './observe-toggle.js';

const gatewayDist = dirname(fileURLToPath(import.meta.resolve('@mcpkit/gateway')));
const mode = process.env.GATEWAY_MODE ?? 'metrics';
const dir = mkdtempSync(join(tmpdir(), 'bench-gw-http-'));
const config = join(dir, 'gateway.json');
// GATEWAY_RULES=<n>: n CEL rules, as a governed gateway has them (the rules bench): n − 1 deny
// rules on tools this run never calls, each evaluated per call, and the allow that permits it.
const ruleCount = Number(process.env.GATEWAY_RULES ?? 0);
const rules = Array.from({ length: ruleCount }, (_, i) =>
  i === ruleCount - 1
    ? { name: 'rich-for-all', effect: 'allow', when: "tool.backend == 'rich'" }
    : {
        name: `guard-${i}`,
        effect: 'deny',
        when: `tool.name == 'other__tool_${i}' && !('team-${i}' in identity.groups)`,
      },
);
writeFileSync(
  config,
  JSON.stringify({
    ...(ruleCount > 0 ? { gateway: { rules, rules_default: 'deny' } } : {}),
    mcpServers: {
      rich: { command: process.execPath, args: [join(gatewayDist, 'fixtures', 'rich.js')] },
    },
  }),
);
delete process.env.OTEL_EXPORTER_OTLP_ENDPOINT;
if (mode === 'tracing') {
  process.env.OTEL_EXPORTER_OTLP_ENDPOINT = process.env.BENCH_OTLP;
  process.env.OTEL_SERVICE_NAME = 'bench-gateway';
}
const cli = join(gatewayDist, 'cli.js');
process.argv = [
  process.execPath,
  cli,
  '--transport',
  'http',
  '--port',
  '0',
  '--config',
  config,
  '--events',
  join(dir, 'events.db'),
  '--log-level',
  'warn',
  ...(mode === 'off' ? ['--metrics', 'off'] : []),
];
// The driver reads the port from the first stdout line; the gateway says it on stderr.
const write = process.stderr.write.bind(process.stderr);
let announced = false;
process.stderr.write = ((chunk: string | Uint8Array, ...rest: never[]) => {
  const match = announced ? null : /listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(String(chunk));
  if (match) {
    announced = true;
    process.stdout.write(`${match[1]}\n`);
    return true; // the bench's output stays its table
  }
  return write(chunk, ...rest);
}) as typeof process.stderr.write;
// The driver closes stdin to stop it: SIGTERM is the gateway's own way down (backends stopped).
process.stdin.once('end', () => {
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  process.kill(process.pid, 'SIGTERM');
});
process.stdin.resume();
// GATEWAY_MODE=metrics with BENCH_TOGGLE_OUT: metrics on and off in alternating windows.
installObserveToggle();
await import(cli);
