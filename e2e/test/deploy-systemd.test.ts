// @module-tag nspawn
// @module-tag process
/**
 * The shipped systemd unit under real systemd: a Debian 12 container booted with systemd-nspawn
 * (e2e/test/nspawn.ts) runs deploy/README.md's install block as written — but the clone and the
 * build, since the checkout is mounted at /opt/mcpkit — and the gateway then serves a tool of
 * each backend under every hardening setting of the unit (seccomp, a dynamic user, a read-only
 * system). Then what an operator does next: enable the example's `npx` backend, reload, fix a
 * backend that could not start and reload again, stop — and no process is left.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { McpClient, StreamableHttpClientTransport } from '@mcpkit/protocol';
import { waitFor } from '@mcpkit/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, REPO } from './helpers.js';
import { bootContainer, type Container } from './nspawn.js';

/** deploy/README.md's install block for systemd, as a shell script an operator would paste. */
function readmeInstallBlock(): string {
  const readme = readFileSync(join(REPO, 'deploy', 'README.md'), 'utf8');
  const from = readme.indexOf('**systemd**');
  const start = readme.indexOf('```sh\n', from) + '```sh\n'.length;
  const block = readme.slice(start, readme.indexOf('```', start));
  expect(block).toContain('systemctl enable --now mcp-gateway');
  return block;
}

/**
 * The CA bundle this machine's Node is told to trust: where TLS to the npm registry is inspected,
 * the container's service needs it as an operator's would (a drop-in; backends inherit
 * NODE_EXTRA_CA_CERTS from the gateway).
 */
const EXTRA_CA = process.env.NODE_EXTRA_CA_CERTS;

/** A tool result's text. */
const textOf = (result: { content?: { type: string; text?: string }[] }) =>
  (result.content ?? []).map((c) => c.text ?? '').join('');

describe('deploy/systemd/mcp-gateway.service under systemd 252 (nspawn)', () => {
  let box: Container | undefined;
  let port = 0;
  let token = '';
  let client: McpClient | undefined;
  const journal = async () =>
    (await box?.exec(['journalctl', '-u', 'mcp-gateway', '--no-pager', '-o', 'cat']))?.stdout ?? '';
  const sh = async (script: string, timeoutMs = 120_000) => {
    if (!box) throw new Error('the container did not boot');
    const run = await box.exec(['bash', '-euo', 'pipefail', '-c', script], { timeoutMs });
    expect(run.code, `${script}\n${run.stdout}\n${run.stderr}\n${await journal()}`).toBe(0);
    return run.stdout;
  };
  const readyz = async () => {
    const res = await fetch(`http://127.0.0.1:${port}/readyz`);
    const body = (await res.json()) as {
      checks: { backends: { ok: boolean; detail?: Record<string, string[]> } };
    };
    return { status: res.status, body };
  };
  const status = async () => {
    const result = await client?.callTool('gateway_status', {});
    return (result?.structuredContent ?? JSON.parse(textOf(result ?? {}))) as {
      backends: Record<string, { status: string; pid: number | null; last_error: string | null }>;
    };
  };

  beforeAll(async () => {
    box = await bootContainer('mcpkit-deploy', [
      `${REPO}:/opt/mcpkit`,
      '/usr/bin/node',
      '/usr/lib/node_modules/npm',
      // The CAs this machine trusts: a network that inspects TLS has its own (see below).
      ...(EXTRA_CA ? [EXTRA_CA] : []),
    ]);
    port = await freePort();
    // npm's commands as the Debian/NodeSource packages lay them out; the port this run may use
    // (an operator's drop-in: the unit itself says 3000).
    await sh(`
      ln -s /usr/lib/node_modules/npm/bin/npm-cli.js /usr/bin/npm
      ln -s /usr/lib/node_modules/npm/bin/npx-cli.js /usr/bin/npx
      mkdir -p /etc/systemd/system/mcp-gateway.service.d
      printf '[Service]\\nEnvironment=MCP_PORT=${port}\\n' > /etc/systemd/system/mcp-gateway.service.d/port.conf
      ${EXTRA_CA ? `printf '[Service]\\nEnvironment=NODE_EXTRA_CA_CERTS=${EXTRA_CA}\\n' > /etc/systemd/system/mcp-gateway.service.d/ca.conf` : ''}
    `);
    // The README's block as pasted by root: sudo is a no-op, the clone and build are the mount.
    const block = readmeInstallBlock()
      .split('\n')
      .filter((line) => !/^sudo (git clone|npx -y pnpm)/.test(line))
      .join('\n');
    await sh(`sudo() { env "$@"; }\ncd /opt/mcpkit\n${block}`);
    token = (await sh('. /etc/mcpkit/gateway.env && printf %s "$MCP_GATEWAY_TOKEN"')).trim();
  }, 240_000);

  afterAll(async () => {
    await client?.close().catch(() => undefined);
    await box?.poweroff();
  }, 60_000);

  it('starts from the README and serves a tool of each backend through the hardened unit', async () => {
    const ready = await waitFor(
      'the gateway ready',
      async () => {
        const r = await readyz().catch(() => undefined);
        return r?.status === 200 ? r : undefined;
      },
      120_000,
      250,
    );
    expect(ready.body.checks.backends).toEqual(expect.objectContaining({ ok: true }));
    expect(token).toMatch(/^[0-9a-f]{48}$/);
    client = await McpClient.connect(
      new StreamableHttpClientTransport({
        url: `http://127.0.0.1:${port}/mcp`,
        headers: { Authorization: `Bearer ${token}` },
      }),
    );
    const tools = (await client.listTools()).map((t) => t.name);
    const cpu = tools.find((n) => n.startsWith('sysinfo__'));
    expect(cpu, tools.join(' ')).toBeDefined();
    const sysinfo = await client.callTool(cpu as string, {});
    expect(sysinfo.isError ?? false, textOf(sysinfo)).toBe(false);
    // projects acts as the key the README's block made (CODEFLUSS_API_KEY in gateway.env).
    const projects = await client.callTool('projects__list_projects', {});
    expect(projects.isError ?? false, textOf(projects)).toBe(false);
    // Both backends run (through setpriv, whose capset the unit allows), none was restarted.
    const { backends } = await status();
    expect(backends['system-info']).toMatchObject({ status: 'running' });
    expect(backends.projects).toMatchObject({ status: 'running' });
    const log = await journal();
    expect(log).not.toContain('activate capabilities');
    expect(log).not.toContain(token);
    // The service runs as its dynamic user, with no capabilities, under its seccomp filter.
    const main = (await sh('systemctl show -p MainPID --value mcp-gateway')).trim();
    const proc = await sh(`grep -E '^(Uid|CapEff|NoNewPrivs|Seccomp):' /proc/${main}/status`);
    expect(proc).toMatch(/^Uid:\s+([1-9]\d*)\s/m);
    expect(proc).toMatch(/^CapEff:\s+0+$/m);
    expect(proc).toMatch(/^NoNewPrivs:\s+1$/m);
    expect(proc).toMatch(/^Seccomp:\s+2$/m);
  }, 180_000);

  it('starts an npx backend, lists a failed one in /readyz, and retries it on systemctl reload', async () => {
    // The example's `files` server enabled (npx, from the registry into HOME's npm cache), and a
    // backend whose program is not installed yet.
    await sh(`
      mkdir -p /srv/shared && echo hello > /srv/shared/readme.txt
      node -e '
        const fs = require("node:fs");
        const path = "/etc/mcpkit/gateway.json";
        const config = JSON.parse(fs.readFileSync(path, "utf8"));
        config.mcpServers.files.enabled = true;
        config.mcpServers.later = { command: "/usr/local/bin/mcp-later", namespace: "later" };
        fs.writeFileSync(path, JSON.stringify(config, null, 2));
      '
      systemctl reload mcp-gateway
    `);
    const started = await waitFor(
      'files running, later given up',
      async () => {
        const { backends } = await status();
        return backends.files?.status === 'running' && backends.later?.status === 'failed'
          ? backends
          : undefined;
      },
      240_000,
      500,
    );
    expect(started.later?.last_error).toMatch(/^command not found: \/usr\/local\/bin\/mcp-later/);
    const listed = await client?.callTool('files__list_directory', { path: '/srv/shared' });
    expect(textOf(listed ?? {})).toContain('readme.txt');
    // Ready, and saying which backend is down.
    const ready = await readyz();
    expect(ready.status).toBe(200);
    expect(ready.body.checks.backends.detail).toEqual({ failed: ['later'] });

    // Installed, then `systemctl reload`: the given-up backend is started again.
    await sh(`
      printf '#!/bin/sh\\nexec mcp-system-info "$@"\\n' > /usr/local/bin/mcp-later
      chmod 755 /usr/local/bin/mcp-later
      systemctl reload mcp-gateway
    `);
    await waitFor(
      'later running',
      async () => ((await status()).backends.later?.status === 'running' ? true : undefined),
      60_000,
      250,
    );
    expect((await readyz()).body.checks.backends.detail).toBeUndefined();
    expect(await journal()).toContain('retried failed backends: later');
  }, 360_000);

  it('stops with systemctl stop: drained, and no process of it is left', async () => {
    const cgroup = (await sh('systemctl show -p ControlGroup --value mcp-gateway')).trim();
    const before = (await sh(`cat /sys/fs/cgroup${cgroup}/cgroup.procs`)).trim().split('\n');
    // The gateway and its four backends (npx's own process among the files server's).
    expect(before.length).toBeGreaterThanOrEqual(5);
    await client?.close();
    client = undefined;
    await sh('systemctl stop mcp-gateway');
    expect((await box?.exec(['systemctl', 'is-active', 'mcp-gateway']))?.stdout.trim()).toBe(
      'inactive',
    );
    // Stopped by its own drain (SIGTERM), not killed at TimeoutStopSec.
    expect((await sh('systemctl show -p Result --value mcp-gateway')).trim()).toBe('success');
    expect(await journal()).toContain('shutting down: draining');
    // None of those processes is alive anywhere in the container.
    const alive = await sh(
      `for p in ${before.join(' ')}; do [ -d /proc/$p ] && cat /proc/$p/cmdline | tr '\\0' ' ' && echo; done; true`,
    );
    expect(alive.trim()).toBe('');
  }, 120_000);
});
