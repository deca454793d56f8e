// Ad-hoc: c=32 echo calls through the gateway bin (stdio), the gateway CPU-profiled (preload via env).
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { spawnServer } from '@mcpkit/testing';

const gatewayDist = dirname(fileURLToPath(import.meta.resolve('@mcpkit/gateway')));
const RICH = join(gatewayDist, 'fixtures', 'rich.js');
const CLI = join(gatewayDist, '..', 'bin', 'mcp-gateway.js');
const dir = mkdtempSync(join(tmpdir(), 'c32-'));
const config = join(dir, 'gateway.json');
writeFileSync(
  config,
  JSON.stringify({
    gateway: { name: 'bench-gateway' },
    mcpServers: { rich: { command: process.execPath, args: [RICH] } },
  }),
);
const profile = process.argv[2] === 'prof';
const target = process.argv[3] ?? 'gateway';
const args =
  target === 'gateway'
    ? [CLI, '--config', config, '--events', join(dir, 'events.db'), '--log-level', 'warn']
    : [RICH];
const server = await spawnServer(process.execPath, args, {
  env: profile ? { NODE_OPTIONS: '--import /tmp/tools/gwprof.mjs' } : {},
  client: { clientInfo: { name: 'c32', version: '0' } },
});
const tool = target === 'gateway' ? 'rich__echo' : 'echo';
let seq = 0;
const echo = async () => {
  const text = `b ${seq++}`;
  const r = await server.client.callTool(tool, { text });
  if (r.content[0].text !== text) throw new Error('bad');
};
const run = async (n, c) => {
  let started = 0;
  const t = performance.now();
  await Promise.all(
    Array.from({ length: c }, async () => {
      while (started < n) {
        started++;
        await echo();
      }
    }),
  );
  return n / ((performance.now() - t) / 1000);
};
await run(5000, 32);
const rates = [];
for (let i = 0; i < 3; i++) rates.push(Math.round(await run(20000, 32)));
console.log(target, 'calls/s', rates.join(' '));
(await server.stop?.()) ?? server.close?.();
