/**
 * A backend that crashes keeps its tools listed while the gateway restarts it: a call in that
 * window gets -32000 "restarting, retry in ~N s" naming the backend — not "tool not found" —
 * and works again once it is back. One that has given up (crash loop) is withdrawn.
 */
import { connectRaw, waitFor } from '@mcpkit/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { parseConfig } from '../src/config.js';
import { EventLog } from '../src/events.js';
import { Gateway } from '../src/gateway.js';
import { backend, textOf } from './helpers.js';

const stops: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const stop of stops.splice(0)) await stop();
});

/** What the gateway logged: level, fields, message. */
type Logged = [level: string, fields: Record<string, unknown>, message: string | undefined];

async function gatewayWith(restart: Record<string, unknown>, logged: Logged[] = []) {
  const logger = {
    error: (o: object, m?: string) => logged.push(['error', o as Record<string, unknown>, m]),
    warn: (o: object, m?: string) => logged.push(['warn', o as Record<string, unknown>, m]),
    debug: (o: object, m?: string) => logged.push(['debug', o as Record<string, unknown>, m]),
  };
  const gateway = new Gateway(
    parseConfig({ mcpServers: { flaky: backend('flaky', { restart }) } }),
    { events: EventLog.open(':memory:'), logger },
  );
  await gateway.start();
  const peer = connectRaw(gateway.server);
  await peer.initialize();
  stops.push(async () => {
    await peer.close();
    await gateway.stop();
  });
  const tools = async () =>
    (await peer.result<{ tools: { name: string }[] }>('tools/list')).tools.map((t) => t.name);
  return { gateway, peer, tools };
}

describe('a backend that crashes', () => {
  it('keeps its tools listed while it restarts; a call then gets -32000 naming it and when to retry', async () => {
    const { gateway, peer, tools } = await gatewayWith({
      initialDelayMs: 1500,
      maxDelayMs: 1500,
    });
    expect(await tools()).toContain('flaky__ok');
    const before = peer.notifications.length;
    await peer.request('tools/call', { name: 'flaky__die', arguments: {} });
    await waitFor(
      'in backoff',
      () => gateway.backends.get('flaky')?.state === 'backoff' || undefined,
    );
    expect(await tools()).toContain('flaky__ok');
    const reply = await peer.request('tools/call', { name: 'flaky__ok', arguments: {} });
    expect(reply.error?.code).toBe(-32000);
    expect(reply.error?.message).toMatch(/^Backend 'flaky' is restarting, retry in ~\d+ s$/);
    expect(reply.error?.data).toMatchObject({ backend: 'flaky', state: 'backoff' });
    await waitFor(
      'running again',
      () => gateway.backends.get('flaky')?.state === 'running' || undefined,
    );
    expect(textOf(await peer.request('tools/call', { name: 'flaky__ok', arguments: {} }))).toBe(
      'ok',
    );
    // Nothing changed for the client: no list_changed for a restart that kept its tools.
    expect(
      peer.notifications.slice(before).filter((n) => n.method.endsWith('list_changed')),
    ).toEqual([]);
  });

  it('is withdrawn once it gives up (no restarts left): the client hears list_changed', async () => {
    const { gateway, peer, tools } = await gatewayWith({ maxRestarts: 0 });
    await peer.request('tools/call', { name: 'flaky__die', arguments: {} });
    await waitFor('failed', () => gateway.backends.get('flaky')?.state === 'failed' || undefined);
    await waitFor('withdrawn', async () =>
      (await tools()).includes('flaky__ok') ? undefined : true,
    );
    await waitFor(
      'list_changed',
      () =>
        peer.notifications.some((n) => n.method === 'notifications/tools/list_changed') ||
        undefined,
    );
  });

  it('is logged: the failure at warn with its exit code and last stderr line, giving up at error, each call at debug', async () => {
    const logged: Logged[] = [];
    const { gateway, peer } = await gatewayWith({ maxRestarts: 0 }, logged);
    await peer.request('tools/call', { name: 'flaky__ok', arguments: {} });
    await peer.request('tools/call', { name: 'flaky__die', arguments: {} });
    await waitFor('failed', () => gateway.backends.get('flaky')?.state === 'failed' || undefined);
    const warn = logged.find(([level, , m]) => level === 'warn' && m?.includes('failed'));
    expect(warn?.[2]).toBe("backend 'flaky' failed: exited with code 1");
    expect(warn?.[1]).toMatchObject({ backend: 'flaky', error: 'exited with code 1' });
    const error = logged.find(([level]) => level === 'error');
    expect(error?.[2]).toBe("backend 'flaky' keeps crashing: given up after 0 restarts");
    expect(
      logged.filter(([level, , m]) => level === 'debug' && m === 'call').map(([, f]) => f),
    ).toEqual([
      expect.objectContaining({ tool: 'flaky__ok', backend: 'flaky', outcome: 'success' }),
      expect.objectContaining({ tool: 'flaky__die', backend: 'flaky', outcome: 'failure' }),
    ]);
  });
});
