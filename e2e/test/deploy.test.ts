// @module-tag process
/**
 * The deploy examples a user copies: the container's entrypoint script (run here as the image
 * runs it, with the checked-in gateway.example.json and the apps' commands on PATH — this machine
 * has no container engine), the systemd unit (checked with `systemd-analyze` when present) and
 * compose.yaml (read: its image is built from the checkout).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type HttpProcess, runProcess, spawnHttpServer, tempDir } from '@mcpkit/testing';
import { afterAll, describe, expect, it } from 'vitest';
import { REPO } from './helpers.js';

const ENTRYPOINT = join(REPO, 'deploy', 'container', 'entrypoint.sh');
const EXAMPLE = join(REPO, 'apps', 'gateway', 'gateway.example.json');
const UNIT = join(REPO, 'deploy', 'systemd', 'mcp-gateway.service');
const COMPOSE = join(REPO, 'deploy', 'compose.yaml');
const TOKEN = 'entrypoint-test-token-0123456789';

describe('deploy/container/entrypoint.sh', () => {
  const root = tempDir('entrypoint-');
  // What the image's PATH gives: the three commands (the packages' bin shims).
  const bin = join(root, 'bin');
  mkdirSync(bin);
  for (const [app, command] of [
    ['gateway', 'mcp-gateway'],
    ['projects', 'mcp-projects'],
    ['system-info', 'mcp-system-info'],
  ] as const) {
    symlinkSync(join(REPO, 'apps', app, 'bin', `${command}.js`), join(bin, command));
  }
  // The image's ENV, on 127.0.0.1 and a free port instead of 0.0.0.0:3000.
  const env = {
    PATH: `${bin}:${process.env.PATH ?? ''}`,
    HOME: root,
    MCP_TRANSPORT: 'http',
    MCP_HOST: '127.0.0.1',
    MCP_PORT: '0',
    LOG_FORMAT: 'json',
    MCP_GATEWAY_CONFIG: EXAMPLE,
    XDG_STATE_HOME: join(root, 'state'),
    XDG_DATA_HOME: join(root, 'data'),
    DATABASE_URL: join(root, 'data', 'mcpkit', 'projects.db'),
    MCP_GATEWAY_TOKEN: undefined,
    CODEFLUSS_API_KEY: undefined,
  };
  const entrypoint = (args: string[], extra: Record<string, string> = {}) =>
    runProcess('sh', [ENTRYPOINT, ...args], { env: { ...env, ...extra }, timeoutMs: 30_000 });
  let gateway: HttpProcess | undefined;

  afterAll(() => gateway?.kill());

  it('is a POSIX sh script, executable', () => {
    expect(readFileSync(ENTRYPOINT, 'utf8').split('\n')[0]).toBe('#!/bin/sh');
    expect(spawnSync('sh', ['-n', ENTRYPOINT]).status).toBe(0);
  });

  it('passes flags to mcp-gateway and runs any other command as given', async () => {
    const version = await entrypoint(['--version']);
    expect(version.code, version.stderr).toBe(0);
    expect(version.stdout).toMatch(/^\d+\.\d+\.\d+/);
    const other = await entrypoint(['mcp-projects', 'users', 'create', 'ops@example.com']);
    expect(other.code, other.stderr).toBe(0);
    expect(other.stdout).toMatch(/^created user ops@example\.com/);
  });

  it('serves the example config with secrets read from *_FILE, and drains on SIGTERM', async () => {
    const made = await entrypoint(['mcp-projects', 'keys', 'create', '--user', 'ops@example.com']);
    expect(made.code, made.stderr).toBe(0);
    const key = made.stdout.trim();
    const secrets = join(root, 'secrets');
    mkdirSync(secrets);
    writeFileSync(join(secrets, 'token'), `${TOKEN}\n`, { mode: 0o600 });
    writeFileSync(join(secrets, 'key'), `${key}\n`, { mode: 0o600 });

    gateway = await spawnHttpServer('sh', [ENTRYPOINT], {
      env: {
        ...env,
        MCP_GATEWAY_TOKEN_FILE: join(secrets, 'token'),
        CODEFLUSS_API_KEY_FILE: join(secrets, 'key'),
      },
      timeoutMs: 30_000,
    });
    // Only the token from the file opens it.
    const denied = await fetch(`${gateway.url}/mcp`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
    });
    expect(denied.status).toBe(401);
    const client = await gateway.connect({ headers: { Authorization: `Bearer ${TOKEN}` } });
    const names = (await client.listTools()).map((t) => t.name);
    expect(names).toContain('projects__list_projects');
    expect(names.some((n) => n.startsWith('sysinfo__'))).toBe(true);
    // The projects backend acts as the key's user (CODEFLUSS_API_KEY from its file).
    const listed = await client.callTool('projects__list_projects', {});
    expect(listed.isError ?? false).toBe(false);
    // The image's HEALTHCHECK: ready with both backends up (the disabled one does not count).
    const ready = await fetch(`${gateway.url}/readyz`);
    expect(ready.status, await ready.text()).toBe(200);
    // Neither secret is written to the log.
    expect(gateway.stderr()).not.toContain(TOKEN);
    expect(gateway.stderr()).not.toContain(key);

    // exec: the signal reaches the gateway itself, which drains and exits 0.
    const exit = await gateway.stop(15_000);
    expect(exit, gateway.stderr()).toMatchObject({ code: 0 });
    expect(gateway.stderr()).toContain('shutting down');
    gateway = undefined;
  });

  it('refuses a secret given twice or a file it cannot read, with exit 2', async () => {
    const twice = await entrypoint(['--version'], {
      MCP_GATEWAY_TOKEN: TOKEN,
      MCP_GATEWAY_TOKEN_FILE: join(root, 'secrets', 'token'),
    });
    expect(twice.code).toBe(2);
    expect(twice.stderr).toBe(
      'mcpkit-entrypoint: set MCP_GATEWAY_TOKEN or MCP_GATEWAY_TOKEN_FILE, not both\n',
    );
    const missing = await entrypoint(['--version'], {
      CODEFLUSS_API_KEY_FILE: join(root, 'nope'),
    });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toBe(
      `mcpkit-entrypoint: CODEFLUSS_API_KEY_FILE: cannot read ${join(root, 'nope')}\n`,
    );
  });
});

describe('deploy/systemd/mcp-gateway.service', () => {
  const unit = readFileSync(UNIT, 'utf8');

  it('keeps secrets in its EnvironmentFile and runs the checkout with the example config', () => {
    expect(unit).toMatch(/^EnvironmentFile=\/etc\/mcpkit\/gateway\.env$/m);
    expect(unit).not.toMatch(/^Environment=.*(TOKEN|API_KEY)=/m);
    expect(unit).toMatch(
      /^ExecStart=\/usr\/bin\/node \/opt\/mcpkit\/apps\/gateway\/dist\/cli\.js$/m,
    );
    expect(unit).toMatch(/^Environment=MCP_GATEWAY_CONFIG=\/etc\/mcpkit\/gateway\.json$/m);
    expect(unit).toMatch(/^ExecReload=\/bin\/kill -HUP \$MAINPID$/m);
    // The example config's variables are all set (DATABASE_URL here, the key in the env file).
    expect(readFileSync(EXAMPLE, 'utf8')).toContain('{env:DATABASE_URL}');
    expect(unit).toMatch(/^Environment=DATABASE_URL=/m);
    expect(unit).toContain('CODEFLUSS_API_KEY=');
  });

  it('passes systemd-analyze verify, with an exposure level under 2.5', {
    tags: ['systemd'],
  }, () => {
    const verify = spawnSync('systemd-analyze', ['verify', UNIT], { encoding: 'utf8' });
    expect(verify.status, verify.stderr).toBe(0);
    // Only /usr/bin/node may be missing on a machine (a note, not the unit's fault).
    const problems = verify.stderr
      .split('\n')
      .filter((line) => line !== '' && !line.includes('/usr/bin/node'));
    expect(problems).toEqual([]);
    const security = spawnSync('systemd-analyze', ['security', '--offline=yes', UNIT], {
      encoding: 'utf8',
    });
    const level = /Overall exposure level for mcp-gateway\.service: ([\d.]+)/.exec(security.stdout);
    expect(level, security.stdout + security.stderr).not.toBeNull();
    expect(Number(level?.[1])).toBeLessThan(2.5);
  });

  it('the Dockerfile builds from the repository root and uses the entrypoint and the example', () => {
    const dockerfile = readFileSync(join(REPO, 'deploy', 'container', 'Dockerfile'), 'utf8');
    expect(dockerfile).toContain('COPY apps/gateway/gateway.example.json /etc/mcpkit/gateway.json');
    expect(dockerfile).toContain(
      'COPY deploy/container/entrypoint.sh /usr/local/bin/mcpkit-entrypoint',
    );
    expect(dockerfile).toMatch(/^ENTRYPOINT \["mcpkit-entrypoint"\]$/m);
    expect(dockerfile).toMatch(/^USER node$/m);
    for (const copied of ['apps/gateway/gateway.example.json', 'deploy/container/entrypoint.sh']) {
      expect(existsSync(join(REPO, copied)), copied).toBe(true);
    }
  });
});

describe('deploy/compose.yaml', () => {
  const compose = readFileSync(COMPOSE, 'utf8');

  it('builds its image from the checkout with the Dockerfile, never npm install -g of @mcpkit', () => {
    // The app instances' anchor: the image built from the repository root by container/Dockerfile.
    const app = /^x-projects: &projects\n((?: {2}.*\n|\s*\n)+)/m.exec(compose)?.[1] ?? '';
    expect(app).toMatch(
      /^ {2}build:\n {4}context: \.\.\n {4}dockerfile: deploy\/container\/Dockerfile$/m,
    );
    // `context: ..` is the repository root, relative to this file's directory.
    expect(existsSync(join(REPO, 'deploy', 'container', 'Dockerfile'))).toBe(true);
    expect(app).toMatch(/^ {2}image: mcpkit:local$/m);
    const instances = [...compose.matchAll(/^ {2}(projects-\d+): (.*)$/gm)];
    expect(instances.map((m) => m[2])).toEqual(['*projects', '*projects', '*projects']);
    // The packages are not on npm yet (a 404): nothing installs them from the registry — on a
    // command line, in a YAML list or in a folded block (where `-g` and the name may part lines).
    const npmInstalls = compose
      .replace(/[[\]",]/g, ' ')
      .split('\n')
      .filter((l) => /\bnpm\s+(i|install|add)\b/.test(l));
    expect(npmInstalls.filter((l) => /\s(-g|--global)\b|@mcpkit\//.test(l))).toEqual([]);
  });
});
