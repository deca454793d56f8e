// @module-tag process
/**
 * Cold start through the CLI: its stdio backends are spawned before the gateway loads
 * (prestart.ts) and each is spawned once — the early child is the backend the gateway then runs
 * — while a command line that starts nothing (--help) spawns nothing, and a config that turns
 * out invalid stops what was spawned early before the exit.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { isAlive, removeTempDirs, runProcess, sleep, tempDir, waitFor } from '@mcpkit/testing';
import { afterAll, describe, expect, it } from 'vitest';
import {
  CLI,
  fixture,
  handshake,
  killAllGateways,
  startGateway,
  textOf,
  UNBUNDLED_CLI,
} from './helpers.js';

afterAll(async () => {
  await killAllGateways();
  removeTempDirs();
});

/** A stdio backend (the rich fixture) that appends its pid to `log` each time it is started. */
const recorded = (log: string) => ({
  command: '/bin/sh',
  args: ['-c', 'echo $$ >> "$0"; exec "$1" "$2"', log, process.execPath, fixture('rich')],
});

const startsIn = (log: string) =>
  existsSync(log) ? readFileSync(log, 'utf8').split('\n').filter(Boolean).map(Number) : [];

/** The backend recording into `log` was spawned once, early, and is stopped now. */
async function expectSpawnedOnceAndStopped(log: string): Promise<void> {
  const starts = await waitFor('the early backend recorded its start', () => {
    const pids = startsIn(log);
    return pids.length > 0 ? pids : undefined;
  });
  expect(starts).toHaveLength(1);
  await waitFor('the early backend stopped', () => !starts.some(isAlive) || undefined, 30_000);
}

describe('the gateway CLI at cold start', () => {
  // The bundle (the bin's) and the unbundled CLI alike: the early child is handed over only if
  // the early spawn and the gateway share one prestart module (one chunk in the bundle).
  it.each([
    ['the bundled CLI (the bin)', CLI],
    ['the unbundled CLI', UNBUNDLED_CLI],
  ])(
    '%s spawns each stdio backend once, and serves calls through that very process',
    async (_, cli) => {
      const log = join(tempDir('gw-cold-'), 'starts');
      const gw = startGateway({ mcpServers: { rich: recorded(log) } }, { cli });
      await handshake(gw);
      const who = await gw.request('tools/call', { name: 'rich__who', arguments: {} }, 15_000);
      const pid = Number(textOf(who));
      expect(startsIn(log)).toStrictEqual([pid]);
      expect((await gw.status()).backends.rich?.pid).toBe(pid);
      expect(await gw.end()).toStrictEqual({ code: 0, signal: null });
      expect(startsIn(log)).toStrictEqual([pid]);
    },
    30_000,
  );

  it('spawns nothing for --help', async () => {
    const dir = tempDir('gw-cold-');
    const log = join(dir, 'starts');
    const config = join(dir, 'gateway.json');
    writeFileSync(config, JSON.stringify({ mcpServers: { rich: recorded(log) } }));
    const run = await runProcess(process.execPath, [CLI, '--config', config, '--help']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('--config');
    await sleep(200);
    expect(existsSync(log)).toBe(false);
  }, 30_000);

  it('stops what it spawned early when the config turns out invalid, and exits 2', async () => {
    const dir = tempDir('gw-cold-');
    const log = join(dir, 'starts');
    const config = join(dir, 'gateway.json');
    // The backend is well-formed, so it is spawned early; the gateway section is not.
    writeFileSync(
      config,
      JSON.stringify({ gateway: { bogus: true }, mcpServers: { rich: recorded(log) } }),
    );
    const run = await runProcess(process.execPath, [
      CLI,
      '--config',
      config,
      '--events',
      join(dir, 'events.db'),
    ]);
    expect(run.code, run.stderr).toBe(2);
    expect(run.stderr).toContain('invalid gateway config');
    await expectSpawnedOnceAndStopped(log);
  }, 30_000);

  it('stops what it spawned early when the event log cannot be opened, and exits 2', async () => {
    const dir = tempDir('gw-cold-');
    const log = join(dir, 'starts');
    const config = join(dir, 'gateway.json');
    writeFileSync(config, JSON.stringify({ mcpServers: { rich: recorded(log) } }));
    // A directory is no event log: refused after the backends were spawned early.
    const run = await runProcess(process.execPath, [CLI, '--config', config, '--events', dir]);
    expect(run.code, run.stderr).toBe(2);
    await expectSpawnedOnceAndStopped(log);
  }, 30_000);
});
