import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { COMMON_OPTIONS } from '@mcpkit/node';
import { waitFor } from '@mcpkit/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { stdioSpec } from './backends/spawn.js';
import { parseConfig } from './config.js';
import { GATEWAY_OPTIONS } from './options.js';
import {
  configToStart,
  GATEWAY_STRING_FLAGS,
  prestartBackends,
  RUNNER_STRING_FLAGS,
  rawStdioSpecs,
  releasePrestarted,
  takePrestarted,
} from './prestart.js';

const dirs: string[] = [];
afterEach(async () => {
  await releasePrestarted();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('configToStart: which config an early spawn reads', () => {
  it('knows every flag of runCli that takes a value (else it would not spawn early)', () => {
    const strings = COMMON_OPTIONS.filter((o) => o.type === 'string').map((o) => o.name);
    expect([...RUNNER_STRING_FLAGS].sort()).toStrictEqual(strings.sort());
    expect(GATEWAY_OPTIONS.filter((o) => o.type === 'string').map((o) => o.name)).toStrictEqual(
      GATEWAY_STRING_FLAGS,
    );
    expect(GATEWAY_OPTIONS.every((o) => o.type === 'string')).toBe(true);
  });

  it('reads --config in both forms, else MCP_GATEWAY_CONFIG, else the built-in config', () => {
    expect(configToStart(['--config', 'a.json'], {})).toBe('a.json');
    expect(configToStart(['--config=b.json', '--log-level', 'warn'], {})).toBe('b.json');
    expect(configToStart(['--transport', 'http', '--port=0'], { MCP_GATEWAY_CONFIG: 'c' })).toBe(
      'c',
    );
    expect(configToStart(['--config', 'a.json'], { MCP_GATEWAY_CONFIG: 'c' })).toBe('a.json');
    // An empty variable is an unset one, as runCli reads it.
    expect(configToStart([], { MCP_GATEWAY_CONFIG: '' })).toBeNull();
    expect(configToStart(['--', '--events', 'e.db'], {})).toBeNull();
  });

  it.each([
    ['--help', ['--help']],
    ['-h', ['-h']],
    ['--version', ['--config', 'a.json', '--version']],
    ['an unknown flag', ['--bogus']],
    ['a positional', ['keys', 'list']],
    ['a flag without its value', ['--config']],
    ['a flag followed by another', ['--config', '--port', '1']],
  ])('spawns nothing for %s', (_what, argv) => {
    expect(configToStart(argv, {})).toBeUndefined();
  });
});

describe('rawStdioSpecs: the launch of each stdio backend of an unvalidated config', () => {
  const env = { PATH: '/usr/bin', SECRET: 's', MCP_GATEWAY_TOKEN: 't' };

  it('is what the validated config spawns, defaults included', () => {
    const raw = {
      mcpServers: {
        a: { command: 'node', args: ['a.js'], env: { X: '1' }, cwd: '/tmp' },
        b: { command: 'node', inheritEnv: true, namespace: 'bee' },
      },
    };
    const specs = rawStdioSpecs(raw, env);
    const config = parseConfig(raw, env);
    for (const name of ['a', 'b']) {
      const backend = config.mcpServers[name];
      if (!backend || !('command' in backend)) throw new Error(name);
      expect(specs.get(name)).toStrictEqual(stdioSpec(backend, env));
    }
    // inheritEnv passes the environment on, the gateway's own settings left out.
    expect(specs.get('b')?.env).toStrictEqual({ PATH: '/usr/bin', SECRET: 's' });
  });

  it('leaves out HTTP backends, disabled ones and any it cannot read plainly', () => {
    const specs = rawStdioSpecs(
      {
        mcpServers: {
          http: { url: 'http://127.0.0.1:1/mcp' },
          off: { command: 'node', enabled: false },
          empty: { command: '' },
          args: { command: 'node', args: 'a.js' },
          env: { command: 'node', env: { N: 1 } },
          typed: { type: 'streamable-http', command: 'node' },
          ok: { type: 'stdio', command: 'node' },
        },
      },
      {},
    );
    expect([...specs.keys()]).toStrictEqual(['ok']);
    expect(rawStdioSpecs({ mcpServers: [] }, {}).size).toBe(0);
    expect(rawStdioSpecs('nonsense', {}).size).toBe(0);
  });
});

describe('prestartBackends and takePrestarted', () => {
  const spec = (args: string[]) =>
    stdioSpec({ command: process.execPath, args, env: {}, inheritEnv: false });

  it('spawns nothing when the config cannot be read', () => {
    expect(prestartBackends(['--config', '/nonexistent/gateway.json'], {})).toBe(0);
  });

  it('hands a backend its early child only for the very same launch, and stops one that is not', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'prestart-test-'));
    dirs.push(dir);
    const file = join(dir, 'gateway.json');
    const idle = ['-e', 'process.stdin.resume(); process.stdin.on("end", () => process.exit(0))'];
    const pidFile = join(dir, 'changed.pid');
    // Tells its pid, then waits for the end of stdin like the other.
    const telling = [
      '-e',
      `require("node:fs").writeFileSync(${JSON.stringify(pidFile)}, String(process.pid)); process.stdin.resume(); process.stdin.on("end", () => process.exit(0))`,
    ];
    writeFileSync(
      file,
      JSON.stringify({
        mcpServers: {
          same: { command: process.execPath, args: idle },
          changed: { command: process.execPath, args: telling },
        },
      }),
    );
    expect(prestartBackends(['--config', file], process.env)).toBe(2);
    const taken = await takePrestarted('same', spec(idle));
    expect(taken?.process.pid).toBeGreaterThan(0);
    const changedPid = Number(
      await waitFor('the pid file', () =>
        existsSync(pidFile) ? readFileSync(pidFile, 'utf8') : undefined,
      ),
    );
    // Asked for another launch: not handed out, and gone before its replacement may start.
    expect(await takePrestarted('changed', spec([...telling, '--other']))).toBeUndefined();
    expect(() => process.kill(changedPid, 0)).toThrow(expect.objectContaining({ code: 'ESRCH' }));
    // Each is handed out once.
    expect(await takePrestarted('same', spec(idle))).toBeUndefined();
    await taken?.process.close();
    expect(await taken?.process.exited).toStrictEqual({ code: 0, signal: null });
  });
});
