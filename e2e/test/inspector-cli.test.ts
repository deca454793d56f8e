// @module-tag process
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  type AppName,
  CELLS,
  checkSimpleResult,
  cliOf,
  DEMO_USER,
  E2E,
  EXPECTED_TOOLS,
  type HttpApp,
  INSPECTOR_CLI,
  killAll,
  prepare,
  type RunResult,
  run,
  SIMPLE_TOOL,
  scratch,
  startHttp,
} from './helpers.js';

afterAll(killAll);

/**
 * inspector-cli 1.0.3 finds its own package.json with `fs.existsSync('../package.json')` relative
 * to the working directory (then imports it relative to its module): run anywhere without a
 * package.json one level up and it fails with "Cannot find module …/@modelcontextprotocol/
 * package.json". e2e/test has e2e/package.json above it.
 */
const CWD = join(E2E, 'test');
const TIMEOUT_MS = 45_000;

/** The app's settings as environment variables: flags after the target would be taken by the
 * Inspector's own parser (it has --log-level and --transport too); the environment reaches the
 * server untouched, since the Inspector passes its own environment on to the stdio child. */
function stdioEnv(app: AppName, env: Record<string, string>): Record<string, string> {
  const extra: Record<string, string> = { LOG_LEVEL: 'warn' };
  if (app === 'projects')
    Object.assign(extra, { CODEFLUSS_SEED_DEMO: 'true', CODEFLUSS_USER: DEMO_USER });
  if (app === 'gateway') extra.MCP_GATEWAY_EVENTS = join(env.HOME ?? '', 'events.db');
  return { ...env, ...extra };
}

function inspect(
  target: string[],
  method: string[],
  env: Record<string, string>,
  headers: string[] = [],
) {
  return run(INSPECTOR_CLI, ['--cli', ...target, ...headers, ...method], {
    env,
    cwd: CWD,
    timeoutMs: TIMEOUT_MS,
  });
}

const explain = (r: RunResult) =>
  `exit ${r.code} signal ${r.signal} timedOut ${r.timedOut} after ${r.ms} ms\n--- stdout ---\n${r.stdout.slice(-3000)}\n--- stderr ---\n${r.stderr.slice(-3000)}`;

/** The JSON document the Inspector prints on stdout (a deprecation notice goes to stderr). */
function parseOutput(r: RunResult): Record<string, unknown> {
  const start = r.stdout.indexOf('{');
  if (r.code !== 0 || start === -1) throw new Error(`mcp-inspector-cli failed: ${explain(r)}`);
  return JSON.parse(r.stdout.slice(start)) as Record<string, unknown>;
}

describe('Inspector CLI (@modelcontextprotocol/inspector-cli 1.0.3, mcp-inspector-cli --cli)', () => {
  it.each(CELLS)('%s over %s: tools/list and tools/call', async (app, transport) => {
    const s = scratch(`inspector-${app}-${transport}`);
    let server: HttpApp | undefined;
    try {
      const prepared = await prepare(app, s, transport === 'http');
      let target: string[];
      let env: Record<string, string>;
      let headers: string[] = [];
      if (transport === 'stdio') {
        target = [process.execPath, cliOf(app)];
        env = stdioEnv(app, prepared.env);
      } else {
        server = await startHttp(app, prepared.httpArgs, prepared.env);
        target = [server.mcpUrl, '--transport', 'http'];
        env = prepared.env;
        if (prepared.apiKey) headers = ['--header', `Authorization: Bearer ${prepared.apiKey}`];
      }

      const listed = await inspect(target, ['--method', 'tools/list'], env, headers);
      const { tools } = parseOutput(listed) as { tools: { name: string; description?: string }[] };
      expect(tools.length, explain(listed)).toBeGreaterThan(0);
      for (const name of EXPECTED_TOOLS[app]) expect(listed.stdout).toContain(`"name": "${name}"`);
      expect(tools.filter((t) => !t.description).map((t) => t.name)).toEqual([]);

      const called = await inspect(
        target,
        ['--method', 'tools/call', '--tool-name', SIMPLE_TOOL[app]],
        env,
        headers,
      );
      const result = parseOutput(called) as { isError?: boolean; structuredContent?: unknown };
      expect(result.isError ?? false, explain(called)).toBe(false);
      expect(checkSimpleResult(app, result.structuredContent)).toBeUndefined();
      // And as a person at a terminal would see it:
      if (app === 'system-info') expect(called.stdout).toMatch(/"uptime_seconds": \d/);
      if (app === 'projects') expect(called.stdout).toContain('"name": "Meine Website"');
      if (app === 'gateway') expect(called.stdout).toMatch(/"projects": \{\s+"status": "running"/);
    } catch (err) {
      if (server)
        console.error(`[${app} ${transport}] server stderr:\n${server.stderr().slice(-4000)}`);
      throw err;
    } finally {
      await server?.stop();
      s.cleanup();
    }
  });
});
