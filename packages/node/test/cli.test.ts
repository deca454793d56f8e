// @module-tag process
/** The shared CLI runner, driven through a real app process (the fixture server). */

import type { AddressInfo } from 'node:net';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { clearRedisPrefix } from '@mcpkit/fleet';
import { type RunResult, runProcess } from '@mcpkit/testing';
import { describe, expect, it } from 'vitest';
import { resolveLogFormat } from '../src/logging/logger.js';

const FIXTURE = fileURLToPath(new URL('../dist/fixtures/everything.js', import.meta.url));

/** The fixture app with `args`; with `until`, it runs until stderr matches, then gets SIGTERM. */
const run = (args: string[], env: NodeJS.ProcessEnv = {}, until?: RegExp): Promise<RunResult> =>
  runProcess(process.execPath, [FIXTURE, ...args], {
    env,
    timeoutMs: 10_000,
    ...(until ? { stopWhen: until } : {}),
  });

describe('CLI runner', () => {
  it('--help lists every common flag with its environment variable, on stdout', async () => {
    const { code, stdout } = await run(['--help']);
    expect(code).toBe(0);
    for (const text of [
      '--transport',
      'MCP_TRANSPORT',
      '--host',
      'MCP_HOST',
      '--port',
      'MCP_PORT',
      '--log-level',
      'LOG_LEVEL',
      '--version',
    ]) {
      expect(stdout).toContain(text);
    }
  });

  it('writes the log as JSON lines by default off a terminal, readable lines with --log-format pretty', async () => {
    const json = await run(['--transport', 'stdio']);
    expect(json.code).toBe(0);
    const first = json.stderr.split('\n')[0] ?? '';
    expect(JSON.parse(first)).toMatchObject({ level: 30, name: expect.any(String) });
    for (const [args, env] of [
      [['--log-format', 'pretty'], {}],
      [[], { LOG_FORMAT: 'pretty' }],
    ] as const) {
      const pretty = await run(['--transport', 'stdio', ...args], env);
      expect(pretty.code).toBe(0);
      // `[HH:MM:ss.mmm] INFO (name): message`, with the fields indented below; never JSON.
      expect(pretty.stderr).toMatch(/^\[\d{2}:\d{2}:\d{2}\.\d{3}\] INFO \(.+\): .+/m);
      expect(pretty.stderr).not.toMatch(/^\{"level"/m);
      expect(pretty.stdout).toBe('');
    }
    const bad = await run(['--log-format', 'xml']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--log-format must be one of auto, json, pretty');
  });

  it('picks the log format from the terminal when set to auto', () => {
    expect(resolveLogFormat('auto', { isTTY: true })).toBe('pretty');
    expect(resolveLogFormat('auto', { isTTY: false })).toBe('json');
    expect(resolveLogFormat(undefined, {})).toBe('json');
    expect(resolveLogFormat('json', { isTTY: true })).toBe('json');
    expect(resolveLogFormat('pretty', { isTTY: false })).toBe('pretty');
  });

  it('--version prints the version', async () => {
    expect(await run(['--version'])).toMatchObject({ code: 0, stdout: '0.1.0\n' });
  });

  it('refuses an unknown flag, a bad choice and a bad port with exit 2 and a reason', async () => {
    const unknown = await run(['--frobnicate']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("Unknown option '--frobnicate'\n");
    // Node's hint about positionals after `--` fits no app here.
    expect(unknown.stderr).not.toContain('positional argument');
    const transport = await run(['--transport', 'ws']);
    expect(transport.code).toBe(2);
    expect(transport.stderr).toContain('--transport must be one of stdio, http');
    const port = await run(['--transport', 'http', '--port', '70000']);
    expect(port.code).toBe(2);
    expect(port.stderr).toContain('--port must be an integer from 0 to 65535');
    expect(unknown.stdout + transport.stdout + port.stdout).toBe('');
  });

  it('takes its settings from the environment and stops cleanly on SIGTERM', async () => {
    const { code, stderr } = await run(
      [],
      { MCP_TRANSPORT: 'http', MCP_PORT: '0' },
      /serving MCP over HTTP/,
    );
    expect(stderr).toMatch(/"url":"http:\/\/127\.0\.0\.1:\d+"/);
    expect(stderr).toContain('shutting down');
    expect(code).toBe(0);
  });

  it('takes a `--` before the flags (`pnpm start -- --port N`) and names the flag when the port is taken', async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const { port } = blocker.address() as AddressInfo;
    try {
      const { code, stderr } = await run(['--', '--transport', 'http', '--port', String(port)]);
      expect(code).toBe(1);
      expect(stderr).toContain(
        `port ${port} on 127.0.0.1 is in use: choose another with --port <n> (or MCP_PORT)`,
      );
    } finally {
      await new Promise((resolve) => blocker.close(resolve));
    }
  });

  it('refuses a --cors-origins entry that is not an origin, with exit 2', async () => {
    for (const [args, env] of [
      [['--cors-origins', 'https://app.example.com/'], {}],
      [[], { MCP_CORS_ORIGINS: 'https://app.example.com, app.example.com' }],
      [['--cors-origins', '*'], {}],
    ] as const) {
      const { code, stderr } = await run(['--transport', 'http', '--port', '0', ...args], env);
      expect(code).toBe(2);
      expect(stderr).toMatch(
        /--cors-origins: '.+' is not an origin like https:\/\/app\.example\.com/,
      );
    }
    const help = await run(['--help']);
    expect(help.stdout).toMatch(/--cors-origins <value> +MCP_CORS_ORIGINS/);
  });

  it('refuses a --public-url that is not a URL origin, with exit 2', async () => {
    for (const [args, env] of [
      [['--public-url', 'mcp.example.com'], {}],
      [[], { MCP_PUBLIC_URL: 'https://mcp.example.com/mcp' }],
    ] as const) {
      const { code, stderr } = await run(['--transport', 'http', '--port', '0', ...args], env);
      expect(code).toBe(2);
      expect(stderr).toMatch(
        /--public-url: '.+' is not an origin like https:\/\/app\.example\.com/,
      );
    }
    const help = await run(['--help']);
    expect(help.stdout).toMatch(/--public-url <value> +MCP_PUBLIC_URL/);
  });

  it('refuses to bind beyond loopback without auth', async () => {
    const { code, stderr } = await run(['--transport', 'http', '--host', '0.0.0.0', '--port', '0']);
    expect(code).toBe(1);
    expect(stderr).toContain('refusing to listen on 0.0.0.0 without auth');
  });

  it('refuses an unreachable or malformed --redis-url with exit 1 and one line, and a bad drain time with 2', async () => {
    const unreachable = await run(
      ['--transport', 'http', '--port', '0', '--redis-url', 'redis://127.0.0.1:1'],
      {},
    );
    expect(unreachable.code).toBe(1);
    expect(unreachable.stderr).toContain('--redis-url: cannot reach Redis at redis://127.0.0.1:1');
    const malformed = await run(['--transport', 'http', '--redis-url', 'http://x'], {});
    expect(malformed.code).toBe(1);
    expect(malformed.stderr).toContain("invalid Redis URL 'http://x'");
    const drain = await run(['--transport', 'http', '--drain-timeout', 'soon']);
    expect(drain.code).toBe(2);
    expect(drain.stderr).toContain('--drain-timeout must be a number of seconds');
  });

  it('joins a fleet with MCP_REDIS_URL and drains on SIGTERM', { tags: ['redis'] }, async () => {
    const { code, stderr } = await run(
      [],
      {
        MCP_TRANSPORT: 'http',
        MCP_PORT: '0',
        MCP_REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
        MCP_REDIS_PREFIX: `test-cli-${process.pid}:`,
        MCP_DRAIN_DELAY: '0.2',
      },
      /serving MCP over HTTP/,
    );
    // The fleet's secret is all it left in Redis (no expiry): gone with the test.
    await clearRedisPrefix(
      process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
      `test-cli-${process.pid}:`,
    );
    expect(stderr).toContain('fleet mode: shared state in Redis');
    // The fixture passes RunContext.requestState on to its McpServer.
    expect(stderr).not.toContain('without the fleet key');
    expect(stderr).toContain('shutting down: draining');
    expect(code).toBe(0);
  });

  it('warns in fleet mode when the app builds its McpServer without the fleet key', {
    tags: ['redis'],
  }, async () => {
    const entry = JSON.stringify(fileURLToPath(new URL('../dist/index.js', import.meta.url)));
    const app = `import { runCli } from ${entry};
      import { McpServer } from '@mcpkit/protocol';
      process.exitCode = await runCli({ command: 'keyless', version: '1', description: 'x',
        build: async () => ({ server: new McpServer({ name: 'keyless', version: '1' }) }) });`;
    const prefix = `test-cli-keyless-${process.pid}:`;
    const redis = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
    const { stderr } = await runProcess(process.execPath, ['--input-type=module', '-e', app], {
      cwd: fileURLToPath(new URL('..', import.meta.url)),
      env: { MCP_TRANSPORT: 'http', MCP_PORT: '0', MCP_REDIS_URL: redis, MCP_REDIS_PREFIX: prefix },
      timeoutMs: 10_000,
      stopWhen: /serving MCP over HTTP/,
    });
    await clearRedisPrefix(redis, prefix);
    expect(stderr).toContain('without the fleet key: pass RunContext.requestState');
  });

  it('exits 0 when stdin closes in stdio mode', async () => {
    const { code, stdout } = await run(['--transport', 'stdio', '--log-level', 'silent']);
    expect(code).toBe(0);
    expect(stdout).toBe('');
  });
});
