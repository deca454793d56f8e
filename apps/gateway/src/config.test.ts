import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ConfigError,
  DEFAULT_RESTART,
  defaultConfig,
  defaultGatewayProjectsDatabase,
  exposureWarnings,
  isPersonal,
  isStdio,
  loadConfig,
  parseConfig,
} from './config.js';
import { lineOf } from './config-file.js';

/** The ConfigError parseConfig throws for `raw`; fails the test when it does not throw one. */
function configError(raw: unknown, env: NodeJS.ProcessEnv = {}): ConfigError {
  try {
    parseConfig(raw, env);
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return err as ConfigError;
  }
  throw new Error(`parseConfig accepted ${JSON.stringify(raw)}`);
}

/** The problem lines of an "invalid gateway config" message. */
const problems = (err: ConfigError) =>
  err.message
    .split('\n')
    .slice(1)
    .map((l) => l.trim());

const one = (backend: unknown) => ({ mcpServers: { one: backend } });

describe('parseConfig defaults', () => {
  it('fills the gateway section when it is absent', () => {
    const config = parseConfig({ mcpServers: {} }, {});
    expect(config.gateway).toEqual({
      name: 'mcpkit-gateway',
      log_level: 'INFO',
      debug: false,
      backend_timeout: 30,
      tool_names: 'double-underscore',
      bridge: { park_ttl_ms: 300_000, max_parked: 100, max_parked_per_caller: 10 },
      per_person: { max_links: 64, idle_sec: 600 },
      events: { retention_days: 30, max_events: 1_000_000, detail_per_second: 1_000 },
    });
    expect(config.mcpServers).toEqual({});
  });

  it('fills the missing fields of a partial gateway section', () => {
    const config = parseConfig({ gateway: { name: 'mine', debug: true }, mcpServers: {} }, {});
    expect(config.gateway.name).toBe('mine');
    expect(config.gateway.debug).toBe(true);
    expect(config.gateway.backend_timeout).toBe(30);
    expect(config.gateway.tool_names).toBe('double-underscore');
    expect(config.gateway.log_level).toBe('INFO');
    expect(config.gateway.events).toEqual({
      retention_days: 30,
      max_events: 1_000_000,
      detail_per_second: 1_000,
    });
  });

  it('keeps explicit gateway settings', () => {
    const config = parseConfig(
      {
        gateway: {
          name: 'gw',
          log_level: 'debug',
          backend_timeout: 2.5,
          tool_names: 'colon',
          events: { path: '/tmp/x.db', retention_days: 1, max_events: 10, detail_per_second: 0 },
        },
        mcpServers: {},
      },
      {},
    );
    expect(config.gateway).toMatchObject({
      name: 'gw',
      log_level: 'debug',
      backend_timeout: 2.5,
      tool_names: 'colon',
      events: { path: '/tmp/x.db', retention_days: 1, max_events: 10, detail_per_second: 0 },
    });
  });

  it('has the documented restart defaults', () => {
    expect(DEFAULT_RESTART).toEqual({
      policy: 'on-failure',
      maxRestarts: 5,
      windowMs: 60_000,
      initialDelayMs: 500,
      maxDelayMs: 30_000,
      resetAfterMs: 60_000,
    });
    const config = parseConfig(one({ command: 'x', restart: {} }), {});
    expect(config.mcpServers.one?.restart).toEqual(DEFAULT_RESTART);
    const partial = parseConfig(one({ command: 'x', restart: { policy: 'never' } }), {});
    expect(partial.mcpServers.one?.restart).toEqual({ ...DEFAULT_RESTART, policy: 'never' });
  });

  it('fills backend defaults: enabled, args, env; restart and timeout stay unset', () => {
    const config = parseConfig(one({ command: 'server' }), {});
    const backend = config.mcpServers.one;
    expect(backend).toEqual({
      command: 'server',
      args: [],
      env: {},
      inheritEnv: false,
      enabled: true,
      required: false,
      protocol: 'auto',
    });
    expect(backend?.restart).toBeUndefined();
    expect(backend?.timeoutMs).toBeUndefined();
    expect(backend?.namespace).toBeUndefined();
  });

  it('takes namespace false (names as they are) but not true', () => {
    expect(parseConfig(one({ command: 'x', namespace: false }), {}).mcpServers.one?.namespace).toBe(
      false,
    );
    expect(() => parseConfig(one({ command: 'x', namespace: true }), {})).toThrow(
      'mcpServers.one.namespace',
    );
  });

  it('takes the era to speak per backend and names the field otherwise', () => {
    for (const protocol of ['auto', '2026-07-28', 'legacy'] as const) {
      expect(parseConfig(one({ command: 'x', protocol }), {}).mcpServers.one?.protocol).toBe(
        protocol,
      );
    }
    expect(() => parseConfig(one({ url: 'http://127.0.0.1:1/mcp', protocol: '2025' }), {})).toThrow(
      'mcpServers.one.protocol: Invalid option: expected one of "auto"|"2026-07-28"|"legacy"',
    );
  });

  it('bounds the input bridge and names the field otherwise', () => {
    const config = parseConfig(
      { gateway: { bridge: { park_ttl_ms: 1000, max_parked: 2 } }, mcpServers: {} },
      {},
    );
    expect(config.gateway.bridge).toEqual({
      park_ttl_ms: 1000,
      max_parked: 2,
      max_parked_per_caller: 10,
    });
    expect(() =>
      parseConfig({ gateway: { bridge: { max_parked: 0 } }, mcpServers: {} }, {}),
    ).toThrow('gateway.bridge.max_parked: Too small');
  });

  it('takes inheritEnv as a boolean and names the field otherwise', () => {
    expect(parseConfig(one({ command: 'x', inheritEnv: true }), {}).mcpServers.one).toMatchObject({
      inheritEnv: true,
    });
    expect(() => parseConfig(one({ command: 'x', inheritEnv: 'yes' }), {})).toThrow(
      'mcpServers.one.inheritEnv: Invalid input: expected boolean, received string',
    );
  });
});

describe('parseConfig: the mcpServers shape of Claude Desktop configs', () => {
  const claudeDesktop = {
    mcpServers: {
      filesystem: {
        command: 'npx',
        args: [
          '-y',
          '@modelcontextprotocol/server-filesystem',
          '/Users/me/Desktop',
          '/Users/me/Downloads',
        ],
      },
      github: {
        command: 'npx',
        args: ['-y', '@modelcontextprotocol/server-github'],
        env: { GITHUB_PERSONAL_ACCESS_TOKEN: 'ghp_example' },
      },
      'brave-search': {
        command: 'docker',
        args: ['run', '-i', '--rm', '-e', 'BRAVE_API_KEY', 'mcp/brave-search'],
        env: { BRAVE_API_KEY: 'key' },
      },
    },
  };

  it('parses unchanged, only defaults added', () => {
    const config = parseConfig(structuredClone(claudeDesktop), {});
    expect(Object.keys(config.mcpServers)).toEqual(['filesystem', 'github', 'brave-search']);
    for (const [name, original] of Object.entries(claudeDesktop.mcpServers)) {
      const parsed = config.mcpServers[name];
      expect(parsed).toEqual({
        env: {},
        inheritEnv: false,
        enabled: true,
        required: false,
        protocol: 'auto',
        ...original,
      });
      expect(parsed && isStdio(parsed)).toBe(true);
    }
  });

  it('does not touch strings that only look like interpolation', () => {
    const raw = one({ command: 'sh', args: ['-c', `echo $HOME \${HOME} \${ENV:X} \${env:}`] });
    const config = parseConfig(raw, { HOME: '/root', X: 'x' });
    const backend = config.mcpServers.one;
    expect(backend && isStdio(backend) ? backend.args : undefined).toEqual([
      '-c',
      `echo $HOME \${HOME} \${ENV:X} \${env:}`,
    ]);
  });
});

describe('parseConfig: stdio and http backends', () => {
  it('names the conflict of a backend with both command and url', () => {
    const err = configError({
      mcpServers: { both: { command: 'mcp-x', url: 'http://127.0.0.1:1/mcp' } },
    });
    expect(err.message).toContain('mcpServers.both');
    expect(err.message).toContain('has both `command` (a stdio server) and `url` (an HTTP server)');
  });

  it('tells stdio (command) from http (url) backends', () => {
    const config = parseConfig(
      {
        mcpServers: {
          local: {
            type: 'stdio',
            command: 'node',
            args: ['server.js'],
            cwd: '/srv',
            timeoutMs: 5000,
          },
          remote: { url: 'https://mcp.example.com/mcp', headers: { Authorization: 'Bearer t' } },
          plain: { type: 'http', url: 'http://127.0.0.1:3000/mcp' },
          streamable: { type: 'streamable-http', url: 'http://localhost:8080/' },
        },
      },
      {},
    );
    const { local, remote, plain, streamable } = config.mcpServers;
    expect(local && isStdio(local)).toBe(true);
    expect(local).toMatchObject({
      command: 'node',
      args: ['server.js'],
      cwd: '/srv',
      timeoutMs: 5000,
    });
    for (const b of [remote, plain, streamable]) expect(b && isStdio(b)).toBe(false);
    expect(remote).toEqual({
      url: 'https://mcp.example.com/mcp',
      headers: { Authorization: 'Bearer t' },
      enabled: true,
      required: false,
      protocol: 'auto',
    });
    expect(plain).toEqual({
      type: 'http',
      url: 'http://127.0.0.1:3000/mcp',
      headers: {},
      enabled: true,
      required: false,
      protocol: 'auto',
    });
    expect(streamable).toMatchObject({ type: 'streamable-http', url: 'http://localhost:8080/' });
  });

  it.each([
    'ftp://files.example.com/mcp',
    'ws://127.0.0.1:3000/mcp',
    'file:///etc/passwd',
    'not a url',
    '127.0.0.1:3000/mcp',
    '',
  ])('rejects the http url %j, naming mcpServers.<name>.url', (url) => {
    const err = configError(one({ url }));
    expect(problems(err)).toEqual([expect.stringMatching(/^mcpServers\.one\.url: /)]);
  });

  it('keeps a disabled backend in the config with enabled: false', () => {
    const config = parseConfig(one({ command: 'x', enabled: false }), {});
    expect(config.mcpServers.one?.enabled).toBe(false);
  });

  it('accepts tool allow and deny lists', () => {
    const config = parseConfig(one({ command: 'x', tools: { allow: ['a'], deny: ['b'] } }), {});
    expect(config.mcpServers.one?.tools).toEqual({ allow: ['a'], deny: ['b'] });
  });
});

describe('parseConfig: every validation error names its field path', () => {
  it.each([
    [
      'a namespace with dots',
      one({ command: 'x', namespace: 'my.ns' }),
      'mcpServers.one.namespace',
    ],
    [
      'a namespace with a colon',
      one({ command: 'x', namespace: 'a:b' }),
      'mcpServers.one.namespace',
    ],
    [
      'a namespace with spaces',
      one({ command: 'x', namespace: 'a b' }),
      'mcpServers.one.namespace',
    ],
    [
      'a namespace of 33 characters',
      one({ command: 'x', namespace: 'n'.repeat(33) }),
      'mcpServers.one.namespace',
    ],
    ['an empty namespace', one({ command: 'x', namespace: '' }), 'mcpServers.one.namespace'],
    ['a negative timeoutMs', one({ command: 'x', timeoutMs: -1 }), 'mcpServers.one.timeoutMs'],
    ['a zero timeoutMs', one({ command: 'x', timeoutMs: 0 }), 'mcpServers.one.timeoutMs'],
    [
      'an http backend with a negative timeoutMs',
      one({ url: 'https://h.example/mcp', timeoutMs: -5 }),
      'mcpServers.one.timeoutMs',
    ],
    [
      'a timeoutMs over an hour',
      one({ command: 'x', timeoutMs: 3_600_001 }),
      'mcpServers.one.timeoutMs',
    ],
    ['an empty command', one({ command: '' }), 'mcpServers.one.command'],
    [
      'negative maxRestarts',
      one({ command: 'x', restart: { maxRestarts: -1 } }),
      'mcpServers.one.restart.maxRestarts',
    ],
    [
      'a zero restart window',
      one({ command: 'x', restart: { windowMs: 0 } }),
      'mcpServers.one.restart.windowMs',
    ],
    [
      'a negative backend_timeout',
      { gateway: { backend_timeout: -1 }, mcpServers: {} },
      'gateway.backend_timeout',
    ],
    [
      'a backend_timeout over an hour',
      { gateway: { backend_timeout: 3601 }, mcpServers: {} },
      'gateway.backend_timeout',
    ],
    [
      'a negative events.detail_per_second',
      { gateway: { events: { detail_per_second: -1 } }, mcpServers: {} },
      'gateway.events.detail_per_second',
    ],
    [
      'an unknown tool_names mode',
      { gateway: { tool_names: 'dots' }, mcpServers: {} },
      'gateway.tool_names',
    ],
    [
      'an unknown log level',
      { gateway: { log_level: 'loud' }, mcpServers: {} },
      'gateway.log_level',
    ],
    ['an empty gateway name', { gateway: { name: '' }, mcpServers: {} }, 'gateway.name'],
    [
      'a zero retention',
      { gateway: { events: { retention_days: 0 } }, mcpServers: {} },
      'gateway.events.retention_days',
    ],
    [
      'a backend name with a dot',
      { mcpServers: { 'my.server': { command: 'x' } } },
      'mcpServers.my.server',
    ],
    ['no mcpServers at all', {}, 'mcpServers'],
  ])('%s', (_what, raw, path) => {
    const err = configError(raw);
    expect(err.message).toMatch(/^invalid gateway config:\n/);
    const lines = problems(err);
    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines) expect(line.startsWith(`${path}: `)).toBe(true);
  });

  it.each([
    ['at the top level', { mcpServers: {}, globalShortcut: 'x' }, '(root)', 'globalShortcut'],
    ['in the gateway section', { gateway: { nmae: 'x' }, mcpServers: {} }, 'gateway', 'nmae'],
    [
      'in the events section',
      { gateway: { events: { keep: 1 } }, mcpServers: {} },
      'gateway.events',
      'keep',
    ],
    ['in a stdio backend', one({ command: 'x', bogus: 1 }), 'mcpServers.one', 'bogus'],
    ['in an http backend', one({ url: 'http://h.example/', bogus: 1 }), 'mcpServers.one', 'bogus'],
    [
      'in a restart policy',
      one({ command: 'x', restart: { retries: 3 } }),
      'mcpServers.one.restart',
      'retries',
    ],
    [
      'in a tool filter',
      one({ command: 'x', tools: { only: ['a'] } }),
      'mcpServers.one.tools',
      'only',
    ],
  ])('rejects an unknown key %s, naming its object and the key', (_where, raw, path, key) => {
    const lines = problems(configError(raw));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(new RegExp(`^${path.replace(/[().]/g, '\\$&')}: `));
    expect(lines[0]).toContain(`"${key}"`);
  });

  it('lists every problem of a config, one line each', () => {
    const err = configError({
      gateway: { backend_timeout: -1 },
      mcpServers: {
        a: { command: 'x', namespace: 'bad.ns', timeoutMs: -1 },
        b: { url: 'gopher://old.example' },
      },
    });
    const paths = problems(err).map((l) => l.slice(0, l.indexOf(': ')));
    expect(paths.sort()).toEqual([
      'gateway.backend_timeout',
      'mcpServers.a.namespace',
      'mcpServers.a.timeoutMs',
      'mcpServers.b.url',
    ]);
  });

  it('throws a ConfigError with its name set', () => {
    const err = configError({ mcpServers: 1 });
    expect(err.name).toBe('ConfigError');
    expect(err).toBeInstanceOf(Error);
  });
});

describe(`parseConfig: \${env:VAR} interpolation`, () => {
  const env = { TOKEN: 's3cret', HOST: 'mcp.example.com', DIR: '/data', EMPTY: '' };

  it('replaces variables in args, env, headers and url', () => {
    const config = parseConfig(
      {
        mcpServers: {
          local: {
            command: 'server',
            args: ['--root', `\${env:DIR}`, `--token=\${env:TOKEN}`],
            env: {
              API_TOKEN: `\${env:TOKEN}`,
              BOTH: `\${env:HOST}:\${env:DIR}`,
              NONE: `x\${env:EMPTY}y`,
            },
          },
          remote: {
            url: `https://\${env:HOST}/mcp`,
            headers: { Authorization: `Bearer \${env:TOKEN}` },
          },
        },
      },
      env,
    );
    expect(config.mcpServers.local).toMatchObject({
      args: ['--root', '/data', '--token=s3cret'],
      env: { API_TOKEN: 's3cret', BOTH: 'mcp.example.com:/data', NONE: 'xy' },
    });
    expect(config.mcpServers.remote).toMatchObject({
      url: 'https://mcp.example.com/mcp',
      headers: { Authorization: 'Bearer s3cret' },
    });
  });

  it('validates the interpolated value', () => {
    const err = configError(one({ url: `\${env:URL}` }), { URL: 'not a url' });
    expect(problems(err)).toEqual([expect.stringMatching(/^mcpServers\.one\.url: /)]);
  });

  it('uses process.env when no environment is given', () => {
    const name = 'MCPKIT_CONFIG_TEST_VAR';
    process.env[name] = 'from-process';
    try {
      const config = parseConfig(one({ command: 'x', args: [`\${env:${name}}`] }));
      expect(config.mcpServers.one).toMatchObject({ args: ['from-process'] });
    } finally {
      delete process.env[name];
    }
  });

  it.each([
    [
      'an argument',
      one({ command: 'x', args: ['ok', `\${env:MISSING}`] }),
      'mcpServers.one.args[1]',
    ],
    [
      'an env value',
      one({ command: 'x', env: { KEY: `a-\${env:MISSING}` } }),
      'mcpServers.one.env.KEY',
    ],
    [
      'a header',
      one({ url: 'https://h.example', headers: { Authorization: `Bearer \${env:MISSING}` } }),
      'mcpServers.one.headers.Authorization',
    ],
    ['the url', one({ url: `\${env:MISSING}/mcp` }), 'mcpServers.one.url'],
    ['the command', one({ command: `\${env:MISSING}` }), 'mcpServers.one.command'],
    ['the gateway name', { gateway: { name: `\${env:MISSING}` }, mcpServers: {} }, 'gateway.name'],
  ])('a missing variable in %s is a ConfigError naming its path', (_what, raw, path) => {
    const err = configError(raw, env);
    expect(err.message).toBe(`${path}: environment variable MISSING is not set`);
  });
});

describe('loadConfig', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'gateway-config-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('reads and validates a JSON file, with the given environment', () => {
    const file = join(dir, 'ok.json');
    writeFileSync(file, JSON.stringify(one({ command: 'x', args: [`\${env:A}`] })));
    const config = loadConfig(file, { A: 'a' });
    expect(config.mcpServers.one).toEqual({
      command: 'x',
      args: ['a'],
      inheritEnv: false,
      env: {},
      enabled: true,
      required: false,
      protocol: 'auto',
    });
    expect(config.gateway.name).toBe('mcpkit-gateway');
  });

  it('names a file that does not exist', () => {
    const file = join(dir, 'missing.json');
    expect(() => loadConfig(file, {})).toThrow(ConfigError);
    expect(() => loadConfig(file, {})).toThrow(`cannot read config ${file}`);
    expect(() => loadConfig(file, {})).toThrow(/ENOENT/);
  });

  it('names a path that is a directory', () => {
    const sub = join(dir, 'a-directory');
    mkdirSync(sub);
    expect(() => loadConfig(sub, {})).toThrow(`cannot read config ${sub}`);
  });

  it.each([
    ['broken JSON', '{"mcpServers": {'],
    ['JSON with comments', '// mine\n{"mcpServers": {}}'],
    ['an empty file', ''],
    ['YAML', 'mcpServers:\n  a:\n    command: x\n'],
  ])('reports %s as not JSON', (_what, text) => {
    const file = join(dir, 'bad.json');
    writeFileSync(file, text);
    expect(() => loadConfig(file, {})).toThrow(ConfigError);
    expect(() => loadConfig(file, {})).toThrow(`config ${file} is not JSON: `);
  });

  it.each([
    ['an unquoted value', '{"mcpServers": {}, "token": s3cret-value}', 1, 29],
    ['a stray character', '{\n  "token": "s3cret-value" x\n}', 2, 27],
    ['a leading character', 'x{"token":"s3cret-value"}', 1, 1],
  ])(
    'says where JSON with %s breaks, without quoting the file (secrets)',
    (_what, text, line, column) => {
      const file = join(dir, 'secret.json');
      writeFileSync(file, text);
      let message = '';
      try {
        loadConfig(file, {});
      } catch (err) {
        message = (err as Error).message;
      }
      expect(message).toContain(`at line ${line}, column ${column}`);
      expect(message).not.toContain('s3cret');
    },
  );

  it('passes validation errors through', () => {
    const file = join(dir, 'invalid.json');
    writeFileSync(file, JSON.stringify(one({ command: 'x', timeoutMs: -1 })));
    expect(() => loadConfig(file, {})).toThrow(/mcpServers\.one\.timeoutMs \(line 1\): /);
  });
});

describe('defaultConfig', () => {
  it('has the two sibling apps as stdio backends', () => {
    const config = defaultConfig({});
    expect(Object.keys(config.mcpServers).sort()).toEqual(['projects', 'system-info']);
    const { projects, 'system-info': sysinfo } = config.mcpServers;
    expect(projects?.namespace).toBe('projects');
    expect(sysinfo?.namespace).toBe('sysinfo');
    for (const [backend, app] of [
      [projects, 'projects'],
      [sysinfo, 'system-info'],
    ] as const) {
      expect(backend && isStdio(backend)).toBe(true);
      if (!backend || !isStdio(backend)) continue;
      expect(backend.command).toBe(process.execPath);
      expect(backend.args[0]).toMatch(new RegExp(`[/\\\\]${app}[/\\\\]dist[/\\\\]cli\\.js$`));
      expect(backend.enabled).toBe(true);
    }
    expect(config.gateway.name).toBe('mcpkit-gateway');
    expect(config.gateway.backend_timeout).toBe(30);
  });

  it("gives the projects backend DATABASE_URL when set, else the gateway's own file", () => {
    // Never the standalone mcp-projects' projects.db: the gateway seeds its demo user there.
    const without = defaultConfig({});
    expect(without.mcpServers.projects).toMatchObject({
      env: { DATABASE_URL: join(homedir(), '.local', 'share', 'mcpkit', 'gateway-projects.db') },
    });
    expect(defaultConfig({ XDG_DATA_HOME: '/srv/data' }).mcpServers.projects).toMatchObject({
      env: { DATABASE_URL: join('/srv/data', 'mcpkit', 'gateway-projects.db') },
    });
    // A relative XDG_DATA_HOME is ignored (XDG spec); an empty DATABASE_URL is unset.
    expect(
      defaultConfig({ XDG_DATA_HOME: 'rel', DATABASE_URL: '' }).mcpServers.projects,
    ).toMatchObject({ env: { DATABASE_URL: defaultGatewayProjectsDatabase({}) } });
    expect(defaultGatewayProjectsDatabase({})).not.toBe(
      join(homedir(), '.local', 'share', 'mcpkit', 'projects.db'),
    );
    const withDb = defaultConfig({ DATABASE_URL: 'postgres://db/x' });
    expect(withDb.mcpServers.projects).toMatchObject({ env: { DATABASE_URL: 'postgres://db/x' } });
    expect(withDb.mcpServers['system-info']).toMatchObject({ env: {} });
  });
});

describe('gateway.example.json (the checked-in example the deploy examples use)', () => {
  const example = fileURLToPath(new URL('../gateway.example.json', import.meta.url));

  it('is a valid config once its variables are set', () => {
    const env = { CODEFLUSS_API_KEY: 'cf_live_sk_x', DATABASE_URL: '/var/lib/mcpkit/projects.db' };
    const config = loadConfig(example, env);
    expect(parseConfig(JSON.parse(readFileSync(example, 'utf8')), env)).toEqual(config);
    expect(Object.keys(config.mcpServers).sort()).toEqual(['files', 'projects', 'system-info']);
    expect(config.mcpServers.projects).toMatchObject({
      command: 'mcp-projects',
      env: env,
      enabled: true,
      required: false,
    });
    expect(config.mcpServers['system-info']).toMatchObject({ command: 'mcp-system-info' });
    expect(config.mcpServers.files?.enabled).toBe(false);
    // No token in the file: the gateway's own comes from MCP_GATEWAY_TOKEN (an EnvironmentFile).
    expect(config.gateway.tokens).toBeUndefined();
    expect(exposureWarnings(config, true, {})).toEqual([]);
  });

  it('names the variable a service must set', () => {
    expect(() => loadConfig(example, { DATABASE_URL: 'x' })).toThrow(
      'mcpServers.projects.env.CODEFLUSS_API_KEY: environment variable CODEFLUSS_API_KEY is not set',
    );
  });
});

describe('errors inside a backend name their field', () => {
  it.each([
    [{ command: 'x', args: '--foo' }, 'mcpServers.b.args'],
    [{ command: 'x', timeoutMs: '5000' }, 'mcpServers.b.timeoutMs'],
    [{ command: 'x', env: { K: 1 } }, 'mcpServers.b.env.K'],
    [{ command: 'x', restart: { policy: 'sometimes' } }, 'mcpServers.b.restart.policy'],
    [{ url: 123 }, 'mcpServers.b.url'],
    [{ command: 'x', url: 'http://127.0.0.1/mcp' }, 'mcpServers.b'],
    [{}, 'mcpServers.b.command'],
  ])('%j → %s', (backend, field) => {
    expect(() => parseConfig({ mcpServers: { b: backend } })).toThrow(
      new RegExp(`${field.replace(/\./g, '\\.')}\\b[^\\n]*:`),
    );
  });

  it('refuses __ inside a namespace: it separates advertised names', () => {
    expect(() => parseConfig({ mcpServers: { b: { command: 'x', namespace: 'a__b' } } })).toThrow(
      /mcpServers\.b\.namespace/,
    );
  });
});

describe('exposureWarnings', () => {
  const sysinfo = (extra: Record<string, unknown>) =>
    parseConfig({ mcpServers: { sysinfo: { command: 'mcp-system-info', ...extra } } }, {});
  const sensitiveEnv = { env: { MCP_SYSINFO_SCOPES: 'core,sensitive' } };

  it('warns when a backend started with the sensitive scope is open to every client', () => {
    expect(exposureWarnings(sysinfo(sensitiveEnv), false)).toEqual([
      'backend \'sysinfo\' is started with the sensitive scope and its tools are open to every gateway client (no token: anyone who reaches the gateway): set "scopes" on it and give clients tokens in gateway.tokens',
    ]);
    // Tokens, but the backend asks none of them for a scope: still open to every client.
    expect(exposureWarnings(sysinfo(sensitiveEnv), true)).toHaveLength(1);
    expect(exposureWarnings(sysinfo({ args: ['--scopes', 'sensitive'] }), true)).toHaveLength(1);
    expect(exposureWarnings(sysinfo({ args: ['--scopes=core,sensitive'] }), true)).toHaveLength(1);
    expect(
      exposureWarnings(sysinfo({ inheritEnv: true }), true, { MCP_SYSINFO_SCOPES: 'sensitive' }),
    ).toHaveLength(1);
  });

  it('is quiet when the backend requires a scope of tokens, or has no sensitive scope', () => {
    expect(exposureWarnings(sysinfo({ ...sensitiveEnv, scopes: ['ops'] }), true)).toEqual([]);
    expect(exposureWarnings(sysinfo({ env: { MCP_SYSINFO_SCOPES: 'core' } }), false)).toEqual([]);
    // The gateway's own environment reaches a backend only with inheritEnv.
    expect(exposureWarnings(sysinfo({}), false, { MCP_SYSINFO_SCOPES: 'sensitive' })).toEqual([]);
  });

  it('takes gateway.tokens with scopes, and backend scopes; a short token is refused', () => {
    const config = parseConfig(
      {
        gateway: { tokens: [{ token: 'x'.repeat(16), subject: 'ops', scopes: ['ops'] }] },
        mcpServers: { one: { command: 'x', scopes: ['ops'] } },
      },
      {},
    );
    expect(config.gateway.tokens).toEqual([
      { token: 'x'.repeat(16), subject: 'ops', scopes: ['ops'] },
    ]);
    expect(config.mcpServers.one?.scopes).toEqual(['ops']);
    expect(() =>
      parseConfig({ gateway: { tokens: [{ token: 'short', subject: 's' }] }, mcpServers: {} }, {}),
    ).toThrow('gateway.tokens.0.token: at least 16 characters');
  });
});

describe('personal credentials', () => {
  const signIn = {
    authorization_server: {
      users: [
        {
          username: 'alice',
          password_hash: `scrypt$16384$8$1$${'A'.repeat(22)}$${'B'.repeat(43)}`,
        },
      ],
    },
  };
  const parse = (gateway: object, backend: object) =>
    parseConfig({ gateway, mcpServers: { b: backend } }, {});

  it('fills a header credential’s defaults and marks the backend personal', () => {
    const config = parse(signIn, { url: 'http://127.0.0.1:9/mcp', credential: { type: 'header' } });
    const backend = config.mcpServers.b;
    expect(backend?.credential).toEqual({
      type: 'header',
      header: 'Authorization',
      scheme: 'Bearer',
      label: 'API key',
    });
    expect(backend && isPersonal(backend)).toBe(true);
    expect(isPersonal(parse({}, { command: 'x' }).mcpServers.b as never)).toBe(false);
    expect(
      isPersonal(parse(signIn, { command: 'x', per_identity: true }).mcpServers.b as never),
    ).toBe(true);
  });

  it('refuses a personal backend without sign-in, an env secret without per_identity, a bad header name', () => {
    expect(() =>
      parse({}, { url: 'http://127.0.0.1:9/mcp', credential: { type: 'oauth' } }),
    ).toThrow(/mcpServers.b: .*set gateway.authorization_server/);
    expect(() =>
      parse(signIn, { command: 'x', credential: { type: 'env', variable: 'TOKEN' } }),
    ).toThrow(
      'mcpServers.b.credential: a credential in the environment is per person: set per_identity: true',
    );
    expect(() =>
      parse(signIn, {
        url: 'http://127.0.0.1:9/mcp',
        credential: { type: 'header', header: 'X-Key\r\nInjected: 1' },
      }),
    ).toThrow('mcpServers.b.credential.header: an HTTP header name');
    expect(() =>
      parse(signIn, {
        command: 'x',
        per_identity: true,
        credential: { type: 'env', variable: '1BAD' },
      }),
    ).toThrow('mcpServers.b.credential.variable: an environment variable name');
  });
});

describe('lineOf: where a config error is in the file', () => {
  const text = `{
  "gateway": {
    "rules": [
      { "name": "a", "effect": "deny", "when": "x" },
      {
        "name": "b \\" {[,",
        "effect": "allow",
        "when": "true"
      }
    ],
    "empty": [], "none": {}
  },
  "mcpServers": { "files": { "command": "x", "args": ["a", 1, null] } }
}`;

  it('finds the line of a value at any depth, past strings that hold brackets and quotes', () => {
    expect(lineOf(text, ['gateway', 'rules', 1, 'when'])).toBe(8);
    expect(lineOf(text, ['gateway', 'rules', 0, 'when'])).toBe(4);
    expect(lineOf(text, ['gateway', 'rules', 1])).toBe(5);
    expect(lineOf(text, ['mcpServers', 'files', 'args', 2])).toBe(13);
    expect(lineOf(text, ['gateway', 'none'])).toBe(11);
    expect(lineOf(text, [])).toBe(1);
  });

  it('says nothing of a path the text has not got', () => {
    expect(lineOf(text, ['nope'])).toBeUndefined();
    expect(lineOf(text, ['gateway', 'rules', 5])).toBeUndefined();
  });

  it('is named by parseConfig with the file text', () => {
    const bad = '{\n  "gateway": {\n    "backend_timeout": "soon"\n  },\n  "mcpServers": {}\n}';
    expect(() => parseConfig(JSON.parse(bad), {}, bad)).toThrow(
      /gateway\.backend_timeout \(line 3\): /,
    );
  });
});

describe('parseConfig: virtual servers', () => {
  const rich = { command: 'node', args: ['rich.js'] };
  const message = (servers: unknown, quotas?: unknown) =>
    configError({ gateway: { servers, ...(quotas ? { quotas } : {}) }, mcpServers: { rich } })
      .message;

  it('takes selectors, overrides, resources and default_for', () => {
    const config = parseConfig({
      gateway: {
        servers: {
          ops: {
            tools: [
              'rich/*',
              { tool: 'rich/who', name: 'whoami', annotations: { readOnlyHint: true } },
            ],
            resources: ['rich/fixture://*'],
            default_for: { groups: ['ops'] },
          },
        },
      },
      mcpServers: { rich },
    });
    expect(config.gateway.servers?.ops?.default_for).toEqual({ subjects: [], groups: ['ops'] });
  });

  it('refuses a selector without a backend, a backend the config has not got, a name for a pattern', () => {
    expect(message({ ops: { tools: ['echo'] } })).toContain(
      'gateway.servers.ops.tools.0: <backend>/<name>',
    );
    expect(message({ ops: { tools: ['nope/echo'] } })).toContain(
      "gateway.servers.ops: virtual server 'ops' names backend 'nope', which is not in mcpServers",
    );
    expect(message({ ops: { tools: [{ tool: 'rich/*', name: 'all' }] } })).toContain(
      'gateway.servers.ops.tools.0.name: a pattern selects several tools',
    );
    expect(message({ 'no/slash': { tools: [] } })).toContain('gateway.servers.no/slash');
    expect(message({ ops: { tools: [], extra: 1 } })).toContain('gateway.servers.ops');
  });

  it('refuses a quota on a virtual server the config has not got', () => {
    expect(
      message({ ops: { tools: ['rich/*'] } }, [
        { name: 'q', tools: ['*'], server: 'nope', limit: 1, window_sec: 60 },
      ]),
    ).toContain("gateway.quotas.0.server: quota 'q' names virtual server 'nope'");
  });
});
