/**
 * Hot reload, on the real CLI: the config file is watched and SIGHUP reloads it. Added backends
 * start, removed ones stop, changed ones restart, clients hear list_changed, a call in flight on
 * an untouched backend completes; an invalid config is refused with its reason (log and event)
 * and the running config stays.
 */
import { renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { waitFor } from '@mcpkit/testing';
import { afterAll, describe, expect, it } from 'vitest';
import {
  backend,
  type GatewayChild,
  handshake,
  killAllGateways,
  startGateway,
  textOf,
} from './helpers.js';

afterAll(killAllGateways);

/** Replace the config the way editors and deploy tools do: write a new file, rename it over. */
function rewrite(gateway: GatewayChild, config: unknown | string): void {
  const next = join(gateway.dir, 'config.json.new');
  writeFileSync(next, typeof config === 'string' ? config : JSON.stringify(config));
  renameSync(next, gateway.configPath);
}

async function toolNames(gateway: GatewayChild): Promise<string[]> {
  const reply = await gateway.request('tools/list');
  return ((reply.result as { tools: { name: string }[] }).tools ?? []).map((t) => t.name);
}

describe('hot reload of the config', () => {
  it('adds, removes and changes backends while a call on another runs on; clients hear list_changed', async () => {
    const initial = {
      mcpServers: {
        steady: backend('rich'),
        leaving: backend('list-changed'),
        changing: backend('chora'),
      },
    };
    const gateway = startGateway(initial);
    await handshake(gateway);
    await waitFor(
      'three backends',
      async () => (await toolNames(gateway)).some((n) => n.startsWith('changing__')) || undefined,
    );
    const before = await gateway.status();
    const changingPid = before.backends.changing?.pid;

    // A call in flight on the backend that stays …
    const inFlight = gateway.call('steady__sleep', { ms: 1500 }, 20_000);
    rewrite(gateway, {
      mcpServers: {
        steady: backend('rich'),
        changing: backend('chora', { timeoutMs: 7000 }),
        joining: backend('list-changed'),
      },
    });
    await waitFor(
      'the new set of tools',
      async () => {
        const names = await toolNames(gateway);
        return (
          (names.some((n) => n.startsWith('joining__')) &&
            !names.some((n) => n.startsWith('leaving__')) &&
            names.some((n) => n.startsWith('changing__'))) ||
          undefined
        );
      },
      30_000,
    );
    // … completes, untouched.
    expect(textOf(await inFlight)).toBe('slept 1500');
    const after = await gateway.status();
    expect(Object.keys(after.backends).sort()).toEqual(['changing', 'joining', 'steady']);
    expect(after.backends.steady?.pid).toBe(before.backends.steady?.pid);
    expect(after.backends.changing?.pid).not.toBe(changingPid);
    expect(
      gateway.lines.some((l) => l.includes('"method":"notifications/tools/list_changed"')),
    ).toBe(true);
    const reloaded = await gateway.call('get_events', { event_type: 'gateway.reloaded' });
    expect(textOf(reloaded)).toContain('joining');
  });

  it('refuses an invalid config with its reason and keeps serving the running one; SIGHUP applies a fixed file', async () => {
    const gateway = startGateway({ mcpServers: { steady: backend('rich') } }, { logLevel: 'info' });
    await waitFor(
      'the backend',
      async () => (await toolNames(gateway)).includes('steady__echo') || undefined,
    );
    rewrite(gateway, { mcpServers: { broken: { command: '' } } });
    await gateway.waitForStderr(
      /config not reloaded: invalid gateway config:.*mcpServers\.broken\.command/s,
    );
    const failed = await gateway.call('get_events', { event_type: 'gateway.reload_failed' });
    expect(textOf(failed)).toContain('mcpServers.broken.command');
    expect(await toolNames(gateway)).toContain('steady__echo');

    rewrite(gateway, '{ not json');
    await gateway.waitForStderr(/config not reloaded: config .* is not JSON/);
    expect(textOf(await gateway.call('steady__echo', { text: 'still here' }))).toBe('still here');

    // A valid file applied by SIGHUP (as `systemctl reload` sends it), not only by the watcher.
    writeFileSync(
      gateway.configPath,
      JSON.stringify({ mcpServers: { steady: backend('rich'), more: backend('list-changed') } }),
    );
    process.kill(gateway.pid, 'SIGHUP');
    await waitFor(
      'the added backend',
      async () => (await toolNames(gateway)).some((n) => n.startsWith('more__')) || undefined,
    );
    expect(gateway.child.exitCode).toBeNull();
  });
});
