// @module-tag process
/**
 * Misbehaving backends, as real child processes, behind a gateway started in-process (one per
 * group). Each group proves one fault is contained: the client gets a clear answer at once, the
 * supervisor recovers what it can, the other backends keep serving.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { removeTempDirs, sleep, tempDir, waitFor } from '@mcpkit/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, parseConfig } from '../src/config.js';
import {
  backend,
  fixture,
  type InProcessGateway,
  isAlive,
  startGateway,
  startInProcess,
  textOf,
  track,
} from './helpers.js';

const GENERATORS_TEXT =
  '{"generators": [{"id": "python_script", "name": "Python Script", "category": "code"}]}';

interface EventRow {
  timestamp: string;
  trace_id: string;
  event_type: string;
  status: string;
  source: string;
  backend: string | null;
  data: Record<string, unknown> | null;
}

async function eventsOf(g: InProcessGateway, event_type: string): Promise<EventRow[]> {
  const reply = await g.client.call('get_events', { event_type, limit: 100 });
  return JSON.parse(textOf(reply)) as EventRow[];
}

/** Polls gateway_status until the backend is running (a 30 s hang guard); returns its entry. */
async function running(g: InProcessGateway, name: string) {
  return waitFor(
    `backend ${name} running`,
    async () => {
      const b = (await g.status()).backends[name];
      return b?.status === 'running' ? b : undefined;
    },
    30_000,
  );
}

afterAll(() => removeTempDirs());

describe('a backend that crashes on initialize (fail open)', () => {
  let g: InProcessGateway;
  beforeAll(async () => {
    g = await startInProcess({
      gateway: { name: 'faults' },
      mcpServers: {
        'chora-composer': backend('chora', { namespace: 'chora' }),
        broken: backend('crash-on-initialize', { restart: { policy: 'never' } }),
        retrying: backend('crash-on-initialize', {
          restart: { initialDelayMs: 5000, maxDelayMs: 5000 },
        }),
      },
    });
  });
  afterAll(async () => {
    await g?.stop();
  });

  it('is failed (policy never) or in backoff, with the reason and its stderr', async () => {
    const status = await g.status();
    const broken = status.backends.broken;
    const retrying = status.backends.retrying;
    expect(broken?.status).toBe('failed');
    expect(broken?.last_error).toMatch(/initialize failed|exited with code 3/);
    expect(broken?.tool_count).toBe(0);
    expect(broken?.pid).toBeNull();
    expect(retrying?.status).toBe('backoff');
    expect(retrying?.last_error).toMatch(/initialize failed|exited with code 3/);
    const tail = await waitFor('the crash line in stderr_tail', async () => {
      const t = (await g.status()).backends.broken?.stderr_tail ?? [];
      return t.some((l) => l.includes('got initialize, exiting with code 3')) ? t : undefined;
    });
    expect(tail.length).toBeGreaterThan(0);
  });

  it('records backend.failed events for it', async () => {
    const failed = await eventsOf(g, 'backend.failed');
    expect(failed.some((e) => e.source === 'broken' && e.status === 'failure')).toBe(true);
  });

  it('the healthy backend still serves', async () => {
    expect((await g.status()).backends['chora-composer']?.status).toBe('running');
    const reply = await g.client.call('chora__list_generators');
    expect(reply.error).toBeUndefined();
    expect(textOf(reply)).toBe(GENERATORS_TEXT);
    const names = await g.toolNames();
    expect(names).toContain('chora__generate_content');
    expect(names.some((n) => n.startsWith('broken__') || n.startsWith('retrying__'))).toBe(false);
  });

  it('a call to the broken backend is a clean unknown-tool error', async () => {
    const reply = await g.client.call('broken__anything');
    expect(reply.error).toEqual({ code: -32601, message: 'Tool not found: broken__anything' });
  });
});

describe('a backend that crashes mid-call', () => {
  let g: InProcessGateway;
  beforeAll(async () => {
    g = await startInProcess({
      mcpServers: {
        crashy: backend('crash-mid-call', {
          restart: { initialDelayMs: 50, maxDelayMs: 100, maxRestarts: 20 },
        }),
      },
    });
    await running(g, 'crashy');
  });
  afterAll(async () => {
    await g?.stop();
  });

  it('fails the call at once with -32000 naming the backend, then restarts it', async () => {
    const before = await running(g, 'crashy');
    const oldPid = before.pid as number;
    const old = track(oldPid);
    expect(old).toBeDefined();
    expect((await g.client.call('crashy__ok')).result).toMatchObject({
      content: [{ type: 'text', text: 'ok' }],
    });

    const reply = await g.client.call('crashy__crash');
    expect(reply.result).toBeUndefined();
    // The failure is the exit's, not the call's timeout (30 s) running out: the error says which
    // ("did not answer within …" is the timeout's), however long the machine took.
    expect(reply.error).toEqual({
      code: -32000,
      message: "Backend 'crashy' exited during the call",
      data: expect.objectContaining({ backend: 'crashy' }),
    });

    // The call fails as stdout closes; the exit, the backoff and the restart follow.
    const after = await waitFor('crashy restarted', async () => {
      const b = (await g.status()).backends.crashy;
      return b?.status === 'running' && b.pid !== oldPid ? b : undefined;
    });
    expect(after.restarts).toBeGreaterThanOrEqual(1);
    expect(isAlive(old as NonNullable<typeof old>)).toBe(false);
    const ok = await g.client.call('crashy__ok');
    expect(textOf(ok)).toBe('ok');

    // … and records the failure, the crash and the restart as events (in this test: each test
    // of this file runs alone too, e.g. with -t).
    const calls = await eventsOf(g, 'gateway.tool_call');
    expect(calls.some((e) => e.backend === 'crashy' && e.status === 'failure')).toBe(true);
    const failed = await eventsOf(g, 'backend.failed');
    expect(failed.some((e) => e.source === 'crashy' && /code 7/.test(String(e.data?.error)))).toBe(
      true,
    );
    expect((await eventsOf(g, 'backend.restarted')).some((e) => e.source === 'crashy')).toBe(true);
  });
});

describe('a backend that hangs', () => {
  const HANG_TIMEOUT_MS = 3000;
  let g: InProcessGateway;
  beforeAll(async () => {
    g = await startInProcess({
      mcpServers: {
        // The deadline of every call, `ok` and the handshake too: long enough for those on a
        // loaded machine, short enough for the hang calls that run it out.
        hang: backend('hang', {
          timeoutMs: HANG_TIMEOUT_MS,
          restart: { initialDelayMs: 50, maxDelayMs: 200, maxRestarts: 100 },
        }),
      },
    });
    await running(g, 'hang');
  });
  afterAll(async () => {
    await g?.stop();
  });

  it('times the call out with -32000 "did not answer within <timeoutMs> ms"', async () => {
    const pid = (await running(g, 'hang')).pid;
    const reply = await g.client.call('hang__hang');
    // The deadline the gateway set is the one it reports (the deadline's own timing is the JSON-RPC
    // client's, tested on fake timers in @mcpkit/protocol): no clock here.
    expect(reply.error).toEqual({
      code: -32000,
      message: `Backend 'hang' did not answer within ${HANG_TIMEOUT_MS} ms`,
      data: { backend: 'hang', timeoutMs: HANG_TIMEOUT_MS },
    });
    // The backend was not killed for it: the same process answers the next call.
    expect(textOf(await g.client.call('hang__ok'))).toBe('ok');
    const status = (await g.status()).backends.hang;
    expect(status?.status).toBe('running');
    expect(status?.pid).toBe(pid);
  });

  it('told the backend: the cancelled call no longer holds it (EOF exits without the 10 s drain)', async () => {
    const hang = g.gateway.backends.get('hang');
    const cancellations = () =>
      hang?.stderr.tail(100).filter((l) => l.includes('hang: cancelled')).length ?? 0;
    const before = cancellations();
    // A second hang call, timed out and cancelled upstream: the backend says its call settled
    // (the event itself, where timing stop() only guessed at it).
    expect((await g.client.call('hang__hang')).error?.code).toBe(-32000);
    await waitFor('the backend told of the cancellation', () => cancellations() === before + 1);
    expect(textOf(await g.client.call('hang__ok'))).toBe('ok');
    const pid = (await g.status()).backends.hang?.pid as number;
    const proc = track(pid);
    expect(proc).toBeDefined();
    // No call runs in it any more, so on EOF it exits at once (without the cancellation it would
    // wait out its 10 s drain, and stop() would need its 1.5 s grace and a SIGTERM).
    await g.stop();
    expect(isAlive(proc as NonNullable<typeof proc>)).toBe(false);
  });
});

describe('a backend that writes noise on stdout', () => {
  let g: InProcessGateway;
  beforeAll(async () => {
    g = await startInProcess({ mcpServers: { noisy: backend('noisy') } });
    await running(g, 'noisy');
  });
  afterAll(async () => {
    await g?.stop();
  });

  it('still answers calls between the noise', async () => {
    const noise = () => g.gateway.backends.get('noisy')?.noise ?? 0;
    for (let i = 0; i < 3; i++) {
      expect(textOf(await g.client.call('noisy__ok'))).toBe('ok');
      // More noise before the next call (it ticks every 100 ms): waited for, not slept on.
      const seen = noise();
      await waitFor('more noise', () => noise() > seen);
    }
  });

  it('counts the noise lines in gateway_status and reports them as events', async () => {
    const noisy = await waitFor('noise counted', async () => {
      const b = (await g.status()).backends.noisy;
      return b && b.stdout_noise_lines >= 2 ? b : undefined;
    });
    expect(noisy.status).toBe('running');
    expect(noisy.stdout_noise_lines).toBeGreaterThan(0);
    const events = await eventsOf(g, 'backend.stdout_noise');
    expect(events.length).toBeGreaterThan(0);
    expect(events.every((e) => e.source === 'noisy' && e.status === 'failure')).toBe(true);
    const lines = events.map((e) => String(e.data?.line));
    expect(lines).toContain('Starting noisy server v1 ... (not JSON)');
    expect(lines.some((l) => /^tick \d+$/.test(l))).toBe(true);
  });
});

describe('a well-behaved rich backend and one whose list changes', () => {
  let g: InProcessGateway;
  beforeAll(async () => {
    g = await startInProcess({
      mcpServers: { rich: backend('rich'), 'list-changed': backend('list-changed') },
    });
    await running(g, 'rich');
    await running(g, 'list-changed');
  });
  afterAll(async () => {
    await g?.stop();
  });

  it('forwards a 10 MiB result intact', async () => {
    const reply = await g.client.call('rich__big', { mb: 10 });
    expect(reply.error).toBeUndefined();
    const text = textOf(reply);
    expect(text.length).toBe(10 * 1024 * 1024);
    expect(/^x+$/.test(text)).toBe(true);
  }, 30_000);

  it('forwards rich results untouched: image, structuredContent, _meta, isError', async () => {
    const reply = await g.client.call('rich__rich_result');
    expect(reply.error).toBeUndefined();
    expect(reply.result).toStrictEqual({
      content: [
        { type: 'text', text: '{"a":1}' },
        {
          type: 'image',
          data: 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==',
          mimeType: 'image/png',
        },
      ],
      structuredContent: { a: 1 },
      _meta: { trace: 'x' },
      isError: false,
    });
    const fails = await g.client.call('rich__fails');
    expect(fails.error).toBeUndefined();
    expect(fails.result).toStrictEqual({
      content: [{ type: 'text', text: 'this tool always fails' }],
      isError: true,
    });
  });

  it('relays progress with the client token, in order, before the result', async () => {
    const client = await g.openSession();
    const reply = await client.call(
      'rich__slow_progress',
      { steps: 5, delay_ms: 20 },
      { progressToken: 'client-token-7' },
    );
    expect(textOf(reply)).toBe('done');
    const progress = client.notifications.filter((n) => n.method === 'notifications/progress');
    expect(progress.map((n) => n.params)).toStrictEqual(
      [1, 2, 3, 4, 5].map((i) => ({
        progressToken: 'client-token-7',
        progress: i,
        total: 5,
        message: `step ${i}`,
      })),
    );
    const order = client.timeline.map((t) => t.kind);
    const result = order.lastIndexOf('response');
    const lastProgress = client.timeline.findLastIndex(
      (t) => t.method === 'notifications/progress',
    );
    expect(lastProgress).toBeGreaterThanOrEqual(0);
    expect(lastProgress).toBeLessThan(result);
  });

  it('relays progress to a client token beyond 2^53 digit for digit (JSON.parse would round it)', async () => {
    const client = await g.openSession();
    const big = '9007199254740993';
    const reply = await client.send(
      `{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"rich__slow_progress","arguments":{"steps":3,"delay_ms":5},"_meta":{"progressToken":${big}}}}`,
    );
    expect(reply).toContain('"text":"done"');
    const tokens = client.received
      .filter((text) => text.includes('"notifications/progress"'))
      .map((text) => /"progressToken":(-?\d+)/.exec(text)?.[1]);
    expect(tokens).toEqual([big, big, big]);
  });

  it('keeps two clients that use the same progressToken apart', async () => {
    const a = await g.openSession();
    const b = await g.openSession();
    const [ra, rb] = await Promise.all([
      a.call('rich__slow_progress', { steps: 3, delay_ms: 20 }, { progressToken: 1 }),
      b.call('rich__slow_progress', { steps: 4, delay_ms: 15 }, { progressToken: 1 }),
    ]);
    expect(textOf(ra)).toBe('done');
    expect(textOf(rb)).toBe('done');
    const of = (s: typeof a) =>
      s.notifications
        .filter((n) => n.method === 'notifications/progress')
        .map((n) => [n.params?.progressToken, n.params?.progress, n.params?.total]);
    expect(of(a)).toStrictEqual([
      [1, 1, 3],
      [1, 2, 3],
      [1, 3, 3],
    ]);
    expect(of(b)).toStrictEqual([
      [1, 1, 4],
      [1, 2, 4],
      [1, 3, 4],
      [1, 4, 4],
    ]);
  });

  it("relays backend log messages, honouring each client's log level", async () => {
    const loud = await g.openSession();
    const quiet = await g.openSession();
    expect((await quiet.request('logging/setLevel', { level: 'error' })).error).toBeUndefined();
    expect(textOf(await loud.call('rich__log_twice'))).toBe('logged twice');
    const logs = (s: typeof loud) =>
      s.notifications.filter((n) => n.method === 'notifications/message').map((n) => n.params);
    await waitFor('two log messages', () => logs(loud).length >= 2);
    expect(logs(loud)).toStrictEqual([
      { level: 'info', logger: 'rich', data: 'first log' },
      { level: 'info', logger: 'rich', data: 'second log' },
    ]);
    expect(logs(quiet)).toStrictEqual([]);
  });

  it('relays list_changed: new tools appear, the client is told, and they work', async () => {
    const client = await g.openSession();
    const told = () =>
      client.notifications.filter((n) => n.method === 'notifications/tools/list_changed').length;
    const before = told();
    expect(await g.toolNames()).not.toContain('list-changed__late_tool');
    const added = await g.client.call('list-changed__add_tool', { name: 'late_tool' });
    expect(textOf(added)).toBe('added late_tool');
    await waitFor('late_tool listed', async () =>
      (await g.toolNames()).includes('list-changed__late_tool'),
    );
    await waitFor('list_changed sent to the client', () => told() > before);
    expect(textOf(await client.call('list-changed__late_tool', { text: 'hi' }))).toBe('hi');

    const removed = await g.client.call('list-changed__remove_tool', { name: 'late_tool' });
    expect(textOf(removed)).toBe('removed late_tool');
    await waitFor('late_tool gone', async () =>
      (await g.toolNames()).includes('list-changed__late_tool') ? undefined : true,
    );
    const gone = await client.call('list-changed__late_tool', { text: 'hi' });
    expect(gone.error).toEqual({
      code: -32601,
      message: 'Tool not found: list-changed__late_tool',
    });
  });
});

describe('two backends advertising the same tool names in one namespace', () => {
  let g: InProcessGateway;
  beforeAll(async () => {
    g = await startInProcess({
      mcpServers: {
        'rich-a': backend('rich', { namespace: 'rich' }, ['--name', 'rich-a']),
        'rich-b': backend('rich', { namespace: 'rich' }, ['--name', 'rich-b']),
      },
    });
    await running(g, 'rich-a');
    await running(g, 'rich-b');
    // Both joined: the registry is rebuilt when the later one starts.
    await waitFor('both registered', async () => (await g.toolNames()).length >= 3 + 16);
  });
  afterAll(async () => {
    await g?.stop();
  });

  it('keeps both reachable, one under a hash-suffixed name', async () => {
    const names = await g.toolNames();
    expect(names).toContain('rich__who');
    const suffixed = names.filter((n) => /^rich__who_[0-9a-f]{6}$/.test(n));
    expect(suffixed).toHaveLength(1);
    const status = await g.status();
    const pids = [status.backends['rich-a']?.pid, status.backends['rich-b']?.pid];
    const plain = Number(textOf(await g.client.call('rich__who')));
    const other = Number(textOf(await g.client.call(suffixed[0] as string)));
    expect(plain).not.toBe(other);
    expect(pids.sort()).toStrictEqual([plain, other].sort());
    expect(status.backends['rich-a']?.tool_count).toBe(10);
    expect(status.backends['rich-b']?.tool_count).toBe(10);
  });

  it('routes the colon form to the same backend as the advertised name', async () => {
    expect(textOf(await g.client.call('rich:who'))).toBe(textOf(await g.client.call('rich__who')));
  });

  it('records each collision once, not on every rebuild', async () => {
    const events = await g.events.query({ event_type: 'registry.collision', limit: 1000 });
    const details = events.map((e) => JSON.stringify(e.data));
    expect(new Set(details).size).toBe(details.length);
  });

  it('shows the collisions in gateway_status', async () => {
    const status = await g.status();
    const collisions = status.gateway.collisions;
    expect(collisions.length).toBeGreaterThanOrEqual(10);
    expect(
      collisions.some((c) =>
        /^rich__who \((rich-a|rich-b)\) advertised as rich__who_[0-9a-f]{6}$/.test(c),
      ),
    ).toBe(true);
  });
});

describe('a backend in a crash loop', () => {
  let g: InProcessGateway;
  beforeAll(async () => {
    g = await startInProcess({
      mcpServers: {
        loop: backend(
          'flaky',
          { restart: { maxRestarts: 2, initialDelayMs: 50, maxDelayMs: 100 } },
          ['--exit-after-ms', '100'],
        ),
        'chora-composer': backend('chora', { namespace: 'chora' }),
      },
    });
  });
  afterAll(async () => {
    await g?.stop();
  });

  it('is left failed after maxRestarts, with a backend.crash_loop event', async () => {
    const loop = await waitFor('loop failed', async () => {
      const b = (await g.status()).backends.loop;
      return b?.status === 'failed' ? b : undefined;
    });
    expect(loop.restarts).toBe(2);
    expect(loop.pid).toBeNull();
    expect(loop.last_error).toMatch(/code 1|initialize failed/);
    const events = await eventsOf(g, 'backend.crash_loop');
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ source: 'loop', status: 'failure' });
    expect(events[0]?.data).toMatchObject({ restarts: 2 });
    // It stays failed: no more restarts are scheduled. An order, not a bet on the clock: Node runs
    // timers in the order they fall due, and a restart would have been due at most maxDelayMs
    // (100 ms) after the failure — before this timer, set after the failure was seen, for longer.
    await sleep(400);
    const later = (await g.status()).backends.loop;
    expect(later?.status).toBe('failed');
    expect(later?.restarts).toBe(2);
  });

  it('leaves the other backend serving', async () => {
    await waitFor('loop failed', async () =>
      (await g.status()).backends.loop?.status === 'failed' ? true : undefined,
    );
    expect(textOf(await g.client.call('chora__list_generators'))).toBe(GENERATORS_TEXT);
    const reply = await g.client.call('loop__ok');
    expect(reply.error?.code).toBe(-32601);
  });
});

describe('tool allow and deny filters', () => {
  let g: InProcessGateway;
  beforeAll(async () => {
    g = await startInProcess({
      mcpServers: {
        filtered: backend('chora', {
          tools: {
            allow: ['list_generators', 'generate_content', 'validate_content'],
            deny: ['generate_content'],
          },
        }),
      },
    });
    await running(g, 'filtered');
  });
  afterAll(async () => {
    await g?.stop();
  });

  it('advertises only allowed, not denied tools', async () => {
    const names = (await g.toolNames()).filter((n) => n.startsWith('filtered__'));
    expect(names.sort()).toStrictEqual(['filtered__list_generators', 'filtered__validate_content']);
    expect((await g.status()).backends.filtered?.tool_count).toBe(2);
  });

  it('refuses calls to filtered tools, by either name form', async () => {
    for (const name of [
      'filtered__generate_content',
      'filtered__list_templates',
      'filtered:generate_content',
    ]) {
      const reply = await g.client.call(name, { generator_id: 'x' });
      expect(reply.error).toEqual({ code: -32601, message: `Tool not found: ${name}` });
    }
    expect(textOf(await g.client.call('filtered__list_generators'))).toBe(GENERATORS_TEXT);
    const valid = await g.client.call('filtered__validate_content', { content: 'abc' });
    expect(JSON.parse(textOf(valid))).toEqual({ valid: true, length: 3 });
  });
});

describe('a backend that exits and comes back', () => {
  let g: InProcessGateway;
  let stateFile: string;
  beforeAll(async () => {
    stateFile = join(tempDir(), 'flaky.state');
    g = await startInProcess({
      mcpServers: {
        flaky: backend('flaky', { restart: { initialDelayMs: 50, maxDelayMs: 100 } }, [
          '--state',
          stateFile,
        ]),
      },
    });
    await running(g, 'flaky');
  });
  afterAll(async () => {
    await g?.stop();
  });

  it('is restarted and serves again; starts are counted', async () => {
    const pid1 = Number(textOf(await g.client.call('flaky__pid')));
    expect((await g.status()).backends.flaky?.pid).toBe(pid1);
    const died = await g.client.call('flaky__die');
    expect(died.error?.code).toBe(-32000);
    expect(died.error?.message).toContain("'flaky'");

    const back = await waitFor('flaky back with a new pid', async () => {
      const b = (await g.status()).backends.flaky;
      return b?.status === 'running' && b.pid !== pid1 ? b : undefined;
    });
    expect(back.restarts).toBe(1);
    const pid2 = Number(textOf(await g.client.call('flaky__pid')));
    expect(pid2).toBe(back.pid);
    expect(textOf(await g.client.call('flaky__ok'))).toBe('ok');
    const starts = readFileSync(stateFile, 'utf8').trim().split('\n');
    expect(starts).toStrictEqual([`start ${pid1}`, `start ${pid2}`]);
  });
});

describe('a disabled backend', () => {
  let g: InProcessGateway;
  let stateFile: string;
  beforeAll(async () => {
    stateFile = join(tempDir(), 'off.state');
    g = await startInProcess({
      mcpServers: {
        off: backend('flaky', { enabled: false }, ['--state', stateFile]),
        'chora-composer': backend('chora', { namespace: 'chora' }),
      },
    });
  });
  afterAll(async () => {
    await g?.stop();
  });

  it('is never started nor its tools listed; gateway_status shows it as disabled', async () => {
    await running(g, 'chora-composer');
    // No wait needed: the gateway's start awaited every backend it started, and the fixture
    // writes its state file before it answers anything.
    expect(existsSync(stateFile)).toBe(false);
    expect(g.gateway.backends.has('off')).toBe(false);
    const { backends } = await g.status();
    expect(Object.keys(backends).sort()).toStrictEqual(['chora-composer', 'off']);
    expect(backends.off).toEqual({ status: 'disabled', namespace: 'off', tool_count: 0 });
    expect((await g.toolNames()).some((n) => n.startsWith('off__'))).toBe(false);
    expect((await g.client.call('off__ok')).error?.code).toBe(-32601);
  });
});

/** `${env:NAME}`, the config's reference to an environment variable. */
const envRef = (name: string) => `\${env:${name}}`;

describe('env:VAR interpolation in the config', () => {
  const raw = {
    gateway: { name: envRef('GW_E2E_NAME') },
    mcpServers: {
      chora: { command: process.execPath, args: [envRef('GW_E2E_CHORA')], namespace: 'chora' },
    },
  };

  it('fills every string from the environment', async () => {
    const env = { GW_E2E_NAME: 'from-env', GW_E2E_CHORA: fixture('chora') };
    const g = await startInProcess(raw, env);
    try {
      const status = await g.status();
      expect(status.gateway.name).toBe('from-env');
      expect(status.backends.chora?.status).toBe('running');
      expect(textOf(await g.client.call('chora__list_generators'))).toBe(GENERATORS_TEXT);
    } finally {
      await g.stop();
    }
  });

  it('a missing variable is a ConfigError naming the field', () => {
    let error: unknown;
    try {
      parseConfig(raw, { GW_E2E_NAME: 'x' });
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toContain('mcpServers.chora.args[0]');
    expect((error as Error).message).toContain('GW_E2E_CHORA');
  });

  it('the CLI refuses such a config with exit code 2 and the field on stderr', async () => {
    const gw = startGateway(raw, { env: { GW_E2E_NAME: 'x' } });
    const exit = await Promise.race([gw.exited, sleep(30_000).then(() => undefined)]);
    if (!exit) gw.kill();
    expect(exit).toEqual({ code: 2, signal: null });
    expect(gw.stderr()).toContain('mcpServers.chora.args[0]');
    expect(gw.stderr()).toContain('GW_E2E_CHORA is not set');
    expect(gw.lines.filter((l) => l.trim() !== '')).toStrictEqual([]);
  });
});

describe('restart policy on-failure', () => {
  let g: InProcessGateway;
  beforeAll(async () => {
    g = await startInProcess({
      mcpServers: {
        // Exits 0 when its stdin closes; `die` exits 1.
        polite: backend('flaky', {
          restart: { policy: 'on-failure', initialDelayMs: 50, maxDelayMs: 100 },
        }),
      },
    });
    await running(g, 'polite');
  });
  afterAll(async () => {
    await g?.stop();
  });

  it('restarts a backend that crashed (non-zero exit)', async () => {
    const before = g.gateway.backends.get('polite')?.pid;
    await g.client.call('polite__die');
    await waitFor('restarted', async () => {
      const b = g.gateway.backends.get('polite');
      return b?.state === 'running' && b.pid !== before && b.restarts === 1;
    });
  });
});
