/**
 * system-info: latency of get_processes and get_cpu_info through an in-memory connection —
 * cold (a fresh server, nothing sampled), warm (served from the sampler within its TTL), and
 * re-sampling (TTL expired, so systeminformation runs again) — next to systeminformation called
 * directly, the cost every call would pay without the shared sampler.
 */
import type { McpClient } from '@mcpkit/protocol';
import { createSystemInfoServer } from '@mcpkit/system-info';
import { connectClient } from '@mcpkit/testing';
import si from 'systeminformation';

async function time(fn: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await fn();
  return performance.now() - start;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
const ms = (n: number) => `${n < 1 ? n.toFixed(3) : n.toFixed(1)} ms`.padStart(11);

async function measure(tool: string, direct: () => Promise<unknown>): Promise<string[]> {
  const cold = createSystemInfoServer({ warm: false });
  const coldClient = await connectClient(cold.server);
  const ask = async (client: McpClient) => {
    const result = await client.callTool(tool);
    if (result.isError) throw new Error(`${tool} failed: ${JSON.stringify(result.content)}`);
  };
  // systeminformation answers repeated process and load queries within ~0.5 s from its own
  // state; spacing the samples measures a real collection each time.
  const spaced = async (n: number, fn: () => Promise<unknown>) => {
    const out: number[] = [];
    for (let i = 0; i < n; i++) {
      await new Promise((r) => setTimeout(r, 600));
      out.push(await time(fn));
    }
    return out;
  };
  const coldMs = await time(() => ask(coldClient));

  const warmMs: number[] = [];
  for (let i = 0; i < 200; i++) warmMs.push(await time(() => ask(coldClient)));

  // TTLs of zero: every call samples again, as a server without the sampler would.
  const fresh = createSystemInfoServer({
    warm: false,
    sampler: { ttlMs: { dynamic: 0, static: 0, semi: 0 } },
  });
  const freshClient = await connectClient(fresh.server);
  const resampleMs = await spaced(5, () => ask(freshClient));
  const directMs = await spaced(5, direct);
  await Promise.all([coldClient.close(), freshClient.close()]);
  return [
    `  ${tool.padEnd(14)} cold ${ms(coldMs)}   warm ${ms(median(warmMs))}   re-sampling ${ms(median(resampleMs))}   systeminformation direct ${ms(median(directMs))}`,
  ];
}

export async function sysinfoBench(): Promise<boolean> {
  console.log(
    '\nsystem-info: tools/call latency through an in-memory connection (median; warm = within the sampler TTL)',
  );
  for (const line of await measure('get_processes', () => si.processes())) console.log(line);
  for (const line of await measure('get_cpu_info', () => Promise.all([si.cpu(), si.currentLoad()])))
    console.log(line);
  return true;
}
