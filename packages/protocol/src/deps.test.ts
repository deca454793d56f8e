import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';

/** The CommonJS packages `deps.ts` loads on first use, as they appear in a path. */
const LAZY = /node_modules\/(pino|prom-client|@opentelemetry\/api|rate-limiter-flexible)\//;

/** The lazy packages a fresh process has loaded after running `script` (ESM) on the built package. */
function loadedAfter(script: string): string[] {
  const index = new URL('../dist/index.js', import.meta.url).href;
  const probe = `
    import { createRequire } from 'node:module';
    const mcp = await import(${JSON.stringify(index)});
    ${script}
    const cache = createRequire(import.meta.url).cache;
    const lazy = new RegExp(${JSON.stringify(LAZY.source)});
    const names = Object.keys(cache).map((p) => lazy.exec(p)?.[1]).filter(Boolean);
    console.log(JSON.stringify([...new Set(names)].sort()));
  `;
  const child = spawnSync(process.execPath, ['--input-type=module', '-e', probe], {
    timeout: 30_000,
    encoding: 'utf8',
  });
  expect(child.status, child.stderr).toBe(0);
  return JSON.parse(child.stdout.trim().split('\n').at(-1) ?? '[]') as string[];
}

describe('what importing @mcpkit/protocol loads', () => {
  it('none of the packages only some processes use: a plain stdio server starts without them', () => {
    expect(loadedAfter('void mcp;')).toEqual([]);
  });

  it('loads each on first use: McpMetrics brings prom-client, createLogger pino', () => {
    const loaded = loadedAfter('new mcp.McpMetrics(); mcp.createLogger({ level: "silent" });');
    expect(loaded).toContain('pino');
    expect(loaded).toContain('prom-client');
    expect(loaded).not.toContain('rate-limiter-flexible');
  });
});
