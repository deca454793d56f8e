// @module-tag process
/**
 * What an operator meets when a backend goes wrong: a mistyped command is one clear line and no
 * retries; a failure's log line carries the stderr lines that explain it; a given-up backend is
 * started again by `restart_backend` or SIGHUP (`systemctl reload`); readiness waits for first
 * starts, not for every backend to be healthy, and lists the ones that are not.
 */
import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { NotReadyError, ReadinessDetail, serveHttp } from '@mcpkit/node';
import { McpClient, StreamableHttpClientTransport } from '@mcpkit/protocol';
import { connectRaw, tempDir, waitFor } from '@mcpkit/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { parseConfig } from '../src/config.js';
import { EventLog } from '../src/events.js';
import { Gateway } from '../src/gateway.js';
import { backendsReadiness } from '../src/status/readiness.js';
import { backend, fixture, spawnHttpGateway, textOf } from './helpers.js';

const stops: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const stop of stops.splice(0).reverse()) await stop();
});

type Logged = [level: string, fields: Record<string, unknown>, message: string | undefined];

async function gatewayWith(mcpServers: Record<string, unknown>, extra: object = {}) {
  const logged: Logged[] = [];
  const log = (level: string) => (o: object, m?: string) =>
    logged.push([level, o as Record<string, unknown>, m]);
  const logger = { error: log('error'), warn: log('warn'), debug: log('debug'), info: log('info') };
  const gateway = new Gateway(parseConfig({ mcpServers, ...extra }), {
    events: EventLog.open(':memory:'),
    logger,
  });
  stops.push(() => gateway.stop());
  await gateway.start();
  return { gateway, logged };
}

/** A shell script at `path` that runs the `flaky` fixture: a program that appears later. */
function installServer(path: string): void {
  writeFileSync(path, `#!/bin/sh\nexec "${process.execPath}" "${fixture('flaky')}" "$@"\n`);
  chmodSync(path, 0o755);
}

describe('a backend whose command is not there', () => {
  it('fails once, in one line naming the command and PATH, without retries', async () => {
    const dir = tempDir('operate-');
    const command = join(dir, 'mcp-server-later');
    const { gateway, logged } = await gatewayWith({ later: { command } });
    const later = gateway.backends.get('later');
    expect(later?.state).toBe('failed');
    expect(later?.lastError).toBe(`command not found: ${command} (PATH=${process.env.PATH})`);
    const failures = logged.filter(([level]) => level === 'warn' || level === 'error');
    expect(failures).toEqual([
      [
        'warn',
        expect.objectContaining({ backend: 'later', error: later?.lastError }),
        `backend 'later' failed: ${later?.lastError}`,
      ],
    ]);
    const events = await gateway.events.query({ event_type: 'backend.failed', limit: 10 });
    expect(events).toHaveLength(1);
    expect(later?.restarts).toBe(0);

    // Installed meanwhile: what SIGHUP does (retryFailed) starts it.
    installServer(command);
    expect(await gateway.retryFailed()).toEqual(['later']);
    expect(later?.state).toBe('running');
    const peer = connectRaw(gateway.server);
    stops.push(() => peer.close());
    await peer.initialize();
    expect(textOf(await peer.request('tools/call', { name: 'later__ok', arguments: {} }))).toBe(
      'ok',
    );
  });
});

describe('a backend that fails', () => {
  it('is logged with the stderr lines that explain it, not only the last one', async () => {
    // What `npx` prints for a package that is not there: the cause is ten lines up.
    const lines = [
      'npm error code E404',
      'npm error 404 Not Found - GET https://registry.npmjs.org/@acme%2fmcp-server - Not found',
      ...Array.from({ length: 9 }, (_, i) => `npm error line ${i}`),
      'npm error A complete log of this run can be found in: /root/.npm/_logs/x-debug-0.log',
    ];
    const script = lines.map((l) => `console.error(${JSON.stringify(l)});`).join('');
    const { gateway, logged } = await gatewayWith({
      npx: {
        command: process.execPath,
        args: ['-e', `${script}process.exit(1)`],
        restart: { maxRestarts: 0 },
      },
    });
    expect(gateway.backends.get('npx')?.state).toBe('failed');
    const warn = logged.find(([level, , m]) => level === 'warn' && m?.includes('failed'));
    expect(warn?.[1].stderr).toEqual(lines);
    const [event] = await gateway.events.query({ event_type: 'backend.failed', limit: 1 });
    expect(JSON.stringify(event)).toContain('npm error 404 Not Found');
  });
});

describe('restart_backend', () => {
  it('restarts a running backend (a new process, its tools listed throughout) and a given-up one', async () => {
    const { gateway } = await gatewayWith({
      flaky: backend('flaky', { restart: { maxRestarts: 0 } }),
    });
    const peer = connectRaw(gateway.server);
    stops.push(() => peer.close());
    await peer.initialize();
    const pidBefore = gateway.backends.get('flaky')?.pid;
    const reply = await peer.request('tools/call', {
      name: 'restart_backend',
      arguments: { backend: 'flaky' },
    });
    expect(reply.result?.structuredContent).toEqual({
      backend: 'flaky',
      state: 'running',
      restarts: 1,
      last_error: null,
    });
    expect(gateway.backends.get('flaky')?.pid).not.toBe(pidBefore);
    // The restart did not change what it offers: clients are not told of a change.
    expect(peer.notifications.filter((n) => n.method.endsWith('list_changed'))).toEqual([]);

    // Given up after a crash (no restarts allowed) …
    await peer.request('tools/call', { name: 'flaky__die', arguments: {} });
    await waitFor('failed', () => gateway.backends.get('flaky')?.state === 'failed' || undefined);
    // … and back.
    const again = await peer.request('tools/call', {
      name: 'restart_backend',
      arguments: { backend: 'flaky' },
    });
    expect(again.result?.structuredContent).toMatchObject({ state: 'running', restarts: 2 });
    expect(textOf(await peer.request('tools/call', { name: 'flaky__ok', arguments: {} }))).toBe(
      'ok',
    );
  });

  it('names the backends there are when asked for one that is not', async () => {
    const { gateway } = await gatewayWith({ flaky: backend('flaky') });
    const peer = connectRaw(gateway.server);
    stops.push(() => peer.close());
    await peer.initialize();
    const reply = await peer.request('tools/call', {
      name: 'restart_backend',
      arguments: { backend: 'nope' },
    });
    expect(reply.error).toMatchObject({
      code: -32602,
      message: "No enabled backend 'nope'",
      data: { backends: ['flaky'] },
    });
  });

  it('is listed and callable only with the gateway:admin scope', async () => {
    const { gateway } = await gatewayWith(
      { flaky: backend('flaky') },
      {
        gateway: {
          tokens: [
            { token: 'admin-token-0123456789', subject: 'ops', scopes: ['gateway:admin'] },
            { token: 'guest-token-0123456789', subject: 'guest', scopes: [] },
          ],
        },
      },
    );
    const served = await serveHttp(gateway.server, {
      auth: { tokens: gateway.config.gateway.tokens ?? [] },
    });
    stops.push(() => served.close());
    const as = async (token: string) => {
      const client = await McpClient.connect(
        new StreamableHttpClientTransport({
          url: served.mcpUrl,
          headers: { Authorization: `Bearer ${token}` },
        }),
      );
      stops.push(() => client.close());
      return client;
    };
    const admin = await as('admin-token-0123456789');
    const guest = await as('guest-token-0123456789');
    expect((await admin.listTools()).map((t) => t.name)).toContain('restart_backend');
    expect((await guest.listTools()).map((t) => t.name)).not.toContain('restart_backend');
    await expect(guest.callTool('restart_backend', { backend: 'flaky' })).rejects.toThrow();
    expect(gateway.backends.get('flaky')?.restarts).toBe(0);
  });
});

describe('readiness', () => {
  it('waits for first starts, then lists failed backends and stays ready; a required one must run', async () => {
    const dir = tempDir('ready-');
    const go = join(dir, 'go');
    const gateway = new Gateway(
      parseConfig({
        mcpServers: {
          slow: backend('slow-start', {}, ['--until-file', go]),
          broken: { command: join(dir, 'missing') },
        },
      }),
      { events: EventLog.open(':memory:') },
    );
    stops.push(() => gateway.stop());
    const started = gateway.start();
    const check = () => backendsReadiness(gateway.backends.values());
    // `broken` failed at once; `slow` is still in its first start.
    await waitFor('broken given up', () => gateway.backends.get('broken')?.settled || undefined);
    expect(check).toThrow(NotReadyError);
    try {
      check();
    } catch (err) {
      expect((err as NotReadyError).detail).toEqual({ starting: ['slow'], failed: ['broken'] });
    }
    writeFileSync(go, '');
    await started;
    const ready = check();
    expect(ready).toBeInstanceOf(ReadinessDetail);
    expect(ready?.detail).toEqual({ failed: ['broken'] });

    // The same backend marked required keeps the instance out of the balancer.
    await gateway.reload(
      parseConfig({
        mcpServers: {
          slow: backend('slow-start', {}, ['--until-file', go]),
          broken: { command: join(dir, 'missing'), required: true },
        },
      }),
    );
    expect(check).toThrow(/required backends not running: broken/);
  });

  it('over HTTP: /readyz is 200 with the failed backend listed, and SIGHUP starts it once it is there', async () => {
    const dir = tempDir('ready-http-');
    const command = join(dir, 'mcp-server-later');
    const gateway = await spawnHttpGateway(
      { mcpServers: { steady: backend('flaky'), later: { command } } },
      { dir },
    );
    stops.push(() => gateway.stop());
    const readyz = async () => {
      const res = await fetch(`${gateway.url}/readyz`);
      return { status: res.status, body: await res.json() };
    };
    const first = await waitFor('settled', async () => {
      const r = await readyz();
      return r.status === 200 ? r : undefined;
    });
    expect(first.body.checks.backends).toMatchObject({ ok: true, detail: { failed: ['later'] } });
    // One warning says why, and it is not repeated (no retries of a program that is not there).
    const warnings = gateway
      .stderr()
      .split('\n')
      .filter((l) => l.includes('"level":40'));
    expect(warnings.filter((l) => l.includes('command not found'))).toHaveLength(1);
    expect(warnings.some((l) => l.includes('"stack"'))).toBe(false);
    // The start-up lines label every URL.
    expect(gateway.stderr()).toContain(`Streamable HTTP: ${gateway.url}/mcp`);
    expect(gateway.stderr()).toContain(`status page:     ${gateway.url}/`);

    installServer(command);
    process.kill(gateway.pid, 'SIGHUP');
    const healed = await waitFor('retried', async () => {
      const r = await readyz();
      return r.body.checks.backends.detail === undefined ? r : undefined;
    });
    expect(healed.status).toBe(200);
    expect(gateway.stderr()).toMatch(/retried failed backends: later/);
  });
});

describe('gateway.tokens on reload', () => {
  it('stops accepting a token removed from the config, and accepts one added, without a restart', async () => {
    const dir = tempDir('tokens-');
    const A = 'token-a-0123456789abcdef';
    const B = 'token-b-0123456789abcdef';
    const C = 'token-c-0123456789abcdef';
    const config = (tokens: string[]) => ({
      gateway: { tokens: tokens.map((token, i) => ({ token, subject: `t${i}`, scopes: [] })) },
      mcpServers: { steady: backend('flaky') },
    });
    const gateway = await spawnHttpGateway(config([A, B]), { dir });
    stops.push(() => gateway.stop());
    const ping = async (token: string) =>
      (
        await fetch(`${gateway.url}/messages/`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
          body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
        })
      ).status;
    expect(await ping(A)).toBe(200);
    expect(await ping(C)).toBe(401);
    writeFileSync(join(dir, 'gateway.json'), JSON.stringify(config([B, C])));
    process.kill(gateway.pid, 'SIGHUP');
    await waitFor(
      'the tokens reloaded',
      () => gateway.stderr().includes('gateway.tokens reloaded') || undefined,
    );
    expect(await ping(A)).toBe(401);
    expect(await ping(B)).toBe(200);
    expect(await ping(C)).toBe(200);
    // Not reported as a change it ignored.
    expect(gateway.stderr()).not.toContain('the gateway section is read at start only');
  });
});
