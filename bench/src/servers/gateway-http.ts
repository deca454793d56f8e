/**
 * The gateway over HTTP with the `rich` fixture as its backend, for the observability bench:
 * GATEWAY_MODE=off (--metrics off), metrics (the default: /metrics on), or tracing (metrics and
 * OTel traces to BENCH_OTLP, the bench's sink). Runs `mcp-gateway` as a child and prints its port.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { announce } from './http-child.js';

const gatewayDist = dirname(fileURLToPath(import.meta.resolve('@mcpkit/gateway')));
const mode = process.env.GATEWAY_MODE ?? 'metrics';
const dir = mkdtempSync(join(tmpdir(), 'bench-gw-http-'));
const config = join(dir, 'gateway.json');
writeFileSync(
  config,
  JSON.stringify({
    mcpServers: {
      rich: { command: process.execPath, args: [join(gatewayDist, 'fixtures', 'rich.js')] },
    },
  }),
);
const env: NodeJS.ProcessEnv = { ...process.env };
delete env.OTEL_EXPORTER_OTLP_ENDPOINT;
if (mode === 'tracing') {
  env.OTEL_EXPORTER_OTLP_ENDPOINT = process.env.BENCH_OTLP;
  env.OTEL_SERVICE_NAME = 'bench-gateway';
}
const child = spawn(
  process.execPath,
  [
    join(gatewayDist, 'cli.js'),
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
  ],
  { env, stdio: ['ignore', 'ignore', 'pipe'] },
);
let stderr = '';
const port = await new Promise<number>((resolve, reject) => {
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
    const match = /listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(stderr);
    if (match) resolve(Number(match[1]));
  });
  child.once('exit', (code) => reject(new Error(`gateway exited (${code}): ${stderr}`)));
});
announce(port, async () => {
  child.kill('SIGTERM');
  await new Promise((resolve) => child.once('exit', resolve));
  rmSync(dir, { recursive: true, force: true });
});
