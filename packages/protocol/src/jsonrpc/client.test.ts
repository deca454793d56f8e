import { spawnSync } from 'node:child_process';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { type CancelListener, CancellationRegistry } from './cancellation.js';
import {
  type ClientOptions,
  ConnectionClosedError,
  JsonRpcClient,
  RequestTimeoutError,
} from './client.js';
import { RpcError } from './errors.js';

/** A client whose `send` records every frame. Deadlines are off unless asked for. */
function makeClient(options: Partial<ClientOptions> = {}) {
  const frames: string[] = [];
  const onAbandon = vi.fn<NonNullable<ClientOptions['onAbandon']>>();
  const client = new JsonRpcClient({
    send: (frame) => {
      frames.push(frame);
    },
    timeoutMs: 0,
    onAbandon,
    ...options,
  });
  const sent = () => frames.map((f) => JSON.parse(f) as Record<string, unknown>);
  return { client, frames, sent, onAbandon };
}

/** Mark a promise as handled: the test inspects it some other way (or closes the client). */
function ignore(promise: Promise<unknown>): void {
  promise.catch(() => {});
}

afterEach(() => {
  vi.useRealTimers();
});

describe('requests', () => {
  it('numbers requests with increasing ids starting at 1', () => {
    const { client, sent } = makeClient();
    ignore(client.request('a'));
    ignore(client.request('b'));
    ignore(client.request('c'));
    expect(sent().map((m) => m.id)).toEqual([1, 2, 3]);
    expect(client.pendingCount).toBe(3);
    client.close();
  });

  it('sends a request frame with params when given', () => {
    const { client, frames } = makeClient();
    ignore(client.request('subtract', [42, 23]));
    ignore(client.request('named', { a: 1 }));
    expect(JSON.parse(frames[0] as string)).toEqual({
      jsonrpc: '2.0',
      id: 1,
      method: 'subtract',
      params: [42, 23],
    });
    expect(JSON.parse(frames[1] as string)).toEqual({
      jsonrpc: '2.0',
      id: 2,
      method: 'named',
      params: { a: 1 },
    });
    client.close();
  });

  it('omits params from the frame when they are undefined', () => {
    const { client, frames } = makeClient();
    ignore(client.request('ping'));
    expect(frames).toHaveLength(1);
    const frame = JSON.parse(frames[0] as string) as Record<string, unknown>;
    expect(frame).toEqual({ jsonrpc: '2.0', id: 1, method: 'ping' });
    expect(Object.hasOwn(frame, 'params')).toBe(false);
    expect(frames[0]).not.toContain('params');
    client.close();
  });

  it('resolves with the result of the matching response', async () => {
    const { client } = makeClient();
    const first = client.request<number>('a');
    const second = client.request<{ ok: boolean }>('b');
    expect(client.handleResponse({ jsonrpc: '2.0', id: 2, result: { ok: true } })).toBe(true);
    expect(client.handleResponse({ jsonrpc: '2.0', id: 1, result: 19 })).toBe(true);
    await expect(first).resolves.toBe(19);
    await expect(second).resolves.toEqual({ ok: true });
    expect(client.pendingCount).toBe(0);
  });

  it('resolves with a null result', async () => {
    const { client } = makeClient();
    const p = client.request('a');
    client.handleResponse({ jsonrpc: '2.0', id: 1, result: null });
    await expect(p).resolves.toBeNull();
  });

  it('rejects with an RpcError carrying code, message and data', async () => {
    const { client } = makeClient();
    const p = client.request('a');
    expect(
      client.handleResponse({
        jsonrpc: '2.0',
        id: 1,
        error: { code: -32001, message: 'Resource locked', data: { retryAfter: 5 } },
      }),
    ).toBe(true);
    const err = await p.catch((e: unknown) => e);
    expect(RpcError.is(err)).toBe(true);
    if (!RpcError.is(err)) return;
    expect(err.code).toBe(-32001);
    expect(err.message).toBe('Resource locked');
    expect(err.data).toEqual({ retryAfter: 5 });
    expect(client.pendingCount).toBe(0);
  });

  it('rejects with an RpcError without data when the error has none', async () => {
    const { client } = makeClient();
    const p = client.request('a');
    client.handleResponse({ jsonrpc: '2.0', id: 1, error: { code: -32601, message: 'nope' } });
    const err = await p.catch((e: unknown) => e);
    expect(RpcError.is(err)).toBe(true);
    if (RpcError.is(err)) {
      expect(err.code).toBe(-32601);
      expect(err.data).toBeUndefined();
    }
  });

  it('returns false for a response to an unknown id', () => {
    const { client } = makeClient();
    ignore(client.request('a'));
    expect(client.handleResponse({ jsonrpc: '2.0', id: 99, result: 1 })).toBe(false);
    expect(client.handleResponse({ jsonrpc: '2.0', id: null, result: 1 })).toBe(false);
    expect(client.pendingCount).toBe(1);
    client.close();
  });

  it('does not match the string id "1" to the numeric id 1', async () => {
    const { client } = makeClient();
    const p = client.request('a');
    expect(client.handleResponse({ jsonrpc: '2.0', id: '1', result: 'wrong' })).toBe(false);
    expect(client.pendingCount).toBe(1);
    expect(client.handleResponse({ jsonrpc: '2.0', id: 1, result: 'right' })).toBe(true);
    await expect(p).resolves.toBe('right');
  });

  it('settles a request only once', async () => {
    const { client } = makeClient();
    const p = client.request('a');
    expect(client.handleResponse({ jsonrpc: '2.0', id: 1, result: 'first' })).toBe(true);
    expect(client.handleResponse({ jsonrpc: '2.0', id: 1, result: 'second' })).toBe(false);
    await expect(p).resolves.toBe('first');
  });

  it('accepts a response delivered synchronously from inside send', async () => {
    const client: JsonRpcClient = new JsonRpcClient({
      timeoutMs: 0,
      send: (frame) => {
        const { id } = JSON.parse(frame) as { id: number };
        expect(client.handleResponse({ jsonrpc: '2.0', id, result: 'loopback' })).toBe(true);
      },
    });
    await expect(client.request('echo')).resolves.toBe('loopback');
    expect(client.pendingCount).toBe(0);
  });
});

describe('timeouts', () => {
  it('rejects with RequestTimeoutError and calls onAbandon with the reason timeout', async () => {
    vi.useFakeTimers();
    const { client, onAbandon } = makeClient({ timeoutMs: 1000 });
    const p = client.request('slow.method');
    const settled = p.catch((e: unknown) => e);
    vi.advanceTimersByTime(999);
    expect(client.pendingCount).toBe(1);
    expect(onAbandon).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    const err = await settled;
    expect(err).toBeInstanceOf(RequestTimeoutError);
    expect((err as RequestTimeoutError).method).toBe('slow.method');
    expect((err as RequestTimeoutError).timeoutMs).toBe(1000);
    expect(onAbandon).toHaveBeenCalledTimes(1);
    expect(onAbandon).toHaveBeenCalledWith(1, 'slow.method', 'timeout');
    expect(client.pendingCount).toBe(0);
  });

  it('uses a per-request timeout over the default', async () => {
    vi.useFakeTimers();
    const { client, onAbandon } = makeClient({ timeoutMs: 60_000 });
    const p = client.request('quick', undefined, { timeoutMs: 10 });
    const settled = p.catch((e: unknown) => e);
    vi.advanceTimersByTime(10);
    expect(await settled).toBeInstanceOf(RequestTimeoutError);
    expect(onAbandon).toHaveBeenCalledWith(1, 'quick', 'timeout');
  });

  it('times out with a short real timeout', async () => {
    const { client, onAbandon } = makeClient({ timeoutMs: 20 });
    await expect(client.request('real')).rejects.toBeInstanceOf(RequestTimeoutError);
    expect(onAbandon).toHaveBeenCalledWith(1, 'real', 'timeout');
  });

  it('never times out with timeoutMs 0', async () => {
    vi.useFakeTimers();
    const { client, onAbandon } = makeClient({ timeoutMs: 1000 });
    const p = client.request('forever', undefined, { timeoutMs: 0 });
    vi.advanceTimersByTime(24 * 60 * 60 * 1000);
    expect(client.pendingCount).toBe(1);
    expect(onAbandon).not.toHaveBeenCalled();
    client.handleResponse({ jsonrpc: '2.0', id: 1, result: 'finally' });
    await expect(p).resolves.toBe('finally');
  });

  it('never times out when the client default is 0', () => {
    vi.useFakeTimers();
    const { client, onAbandon } = makeClient({ timeoutMs: 0 });
    ignore(client.request('forever'));
    expect(vi.getTimerCount()).toBe(0);
    vi.advanceTimersByTime(10 * 60 * 1000);
    expect(client.pendingCount).toBe(1);
    expect(onAbandon).not.toHaveBeenCalled();
    client.close();
  });

  it('defaults to a 60 s deadline', async () => {
    vi.useFakeTimers();
    const client = new JsonRpcClient({ send: () => {} });
    const settled = client.request('x').catch((e: unknown) => e);
    vi.advanceTimersByTime(59_999);
    expect(client.pendingCount).toBe(1);
    vi.advanceTimersByTime(1);
    expect(await settled).toBeInstanceOf(RequestTimeoutError);
  });

  it('keeps one timer across answered requests instead of re-arming one per request', async () => {
    vi.useFakeTimers();
    const { client, onAbandon } = makeClient({ timeoutMs: 100 });
    const p = client.request('a');
    expect(vi.getTimerCount()).toBe(1);
    client.handleResponse({ jsonrpc: '2.0', id: 1, result: 'ok' });
    const q = client.request('b');
    expect(vi.getTimerCount()).toBe(1);
    client.handleResponse({ jsonrpc: '2.0', id: 2, result: 'ok too' });
    vi.advanceTimersByTime(1000);
    await expect(p).resolves.toBe('ok');
    await expect(q).resolves.toBe('ok too');
    expect(onAbandon).not.toHaveBeenCalled();
    // The spent timer found nothing alive and is gone.
    expect(vi.getTimerCount()).toBe(0);
  });

  it('lets the process exit once every request is answered, whatever the deadline', {
    tags: ['process'],
    timeout: 90_000,
  }, () => {
    const client = new URL('../../dist/jsonrpc/client.js', import.meta.url).href;
    // What holds the process is counted, not timed: Node lists a timer that keeps it alive (a
    // ref'd one) among its active resources.
    const script = `import { JsonRpcClient } from ${JSON.stringify(client)};
      const timers = () => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;
      const c = new JsonRpcClient({ send() {}, timeoutMs: 120000 });
      const p = c.request('a');
      const waiting = timers();
      c.handleResponse({ jsonrpc: '2.0', id: 1, result: 1 });
      await p;
      console.log(JSON.stringify({ waiting, answered: timers() }));`;
    // A hang guard, half the deadline: a process held by the timer is killed by it (status null).
    const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
      timeout: 60_000,
      encoding: 'utf8',
    });
    // The deadline held the process while the request waited, and no longer once answered.
    expect(child.stdout, child.stderr).toBe('{"waiting":1,"answered":0}\n');
    expect(child.status, child.stderr).toBe(0);
  });

  it('shares one timer among the requests with the same deadline, and times out each in order', async () => {
    vi.useFakeTimers();
    const { client, onAbandon } = makeClient({ timeoutMs: 100 });
    const early = Array.from({ length: 1000 }, () => client.request('a'));
    vi.advanceTimersByTime(50);
    const late = client.request('b');
    const other = client.request('c', undefined, { timeoutMs: 500 });
    expect(vi.getTimerCount()).toBe(2);
    client.handleResponse({ jsonrpc: '2.0', id: 3, result: 'answered in time' });
    vi.advanceTimersByTime(50);
    for (const [i, p] of early.entries()) {
      if (i === 2) await expect(p).resolves.toBe('answered in time');
      else await expect(p).rejects.toBeInstanceOf(RequestTimeoutError);
    }
    expect(onAbandon).toHaveBeenCalledTimes(999);
    vi.advanceTimersByTime(49);
    expect(client.pendingCount).toBe(2);
    vi.advanceTimersByTime(1);
    await expect(late).rejects.toBeInstanceOf(RequestTimeoutError);
    vi.advanceTimersByTime(400);
    await expect(other).rejects.toThrow("request 'c' timed out after 500 ms");
    expect(vi.getTimerCount()).toBe(0);
  });

  it('ignores a late response after a timeout', async () => {
    vi.useFakeTimers();
    const { client } = makeClient({ timeoutMs: 50 });
    const settled = client.request('a').catch((e: unknown) => e);
    vi.advanceTimersByTime(50);
    expect(await settled).toBeInstanceOf(RequestTimeoutError);
    expect(client.handleResponse({ jsonrpc: '2.0', id: 1, result: 'late' })).toBe(false);
    expect(
      client.handleResponse({ jsonrpc: '2.0', id: 1, error: { code: 1, message: 'late' } }),
    ).toBe(false);
    expect(client.pendingCount).toBe(0);
  });
});

describe('abort signals', () => {
  it('rejects with the abort reason and calls onAbandon with the reason abort', async () => {
    const { client, onAbandon, frames } = makeClient();
    const controller = new AbortController();
    const p = client.request('long', [1], { signal: controller.signal });
    expect(frames).toHaveLength(1);
    const reason = new Error('user cancelled');
    controller.abort(reason);
    await expect(p).rejects.toBe(reason);
    expect(onAbandon).toHaveBeenCalledTimes(1);
    expect(onAbandon).toHaveBeenCalledWith(1, 'long', 'abort');
    expect(client.pendingCount).toBe(0);
    expect(client.handleResponse({ jsonrpc: '2.0', id: 1, result: 'late' })).toBe(false);
  });

  it('rejects with an AbortError when aborted without a reason', async () => {
    const { client } = makeClient();
    const controller = new AbortController();
    const p = client.request('long', undefined, { signal: controller.signal });
    controller.abort();
    const err = await p.catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Error);
    expect((err as Error).name).toBe('AbortError');
  });

  it('rejects an already-aborted signal without sending', async () => {
    const { client, frames, onAbandon } = makeClient();
    const reason = new Error('too late');
    await expect(
      client.request('never', undefined, { signal: AbortSignal.abort(reason) }),
    ).rejects.toBe(reason);
    expect(frames).toHaveLength(0);
    expect(client.pendingCount).toBe(0);
    expect(onAbandon).not.toHaveBeenCalled();
  });

  it('ignores an abort after the response arrived', async () => {
    const { client, onAbandon } = makeClient();
    const controller = new AbortController();
    const p = client.request('a', undefined, { signal: controller.signal });
    client.handleResponse({ jsonrpc: '2.0', id: 1, result: 'done' });
    controller.abort(new Error('too late'));
    await expect(p).resolves.toBe('done');
    expect(onAbandon).not.toHaveBeenCalled();
  });

  it('does not report a timeout for a request that was aborted', async () => {
    vi.useFakeTimers();
    const { client, onAbandon } = makeClient({ timeoutMs: 100 });
    const controller = new AbortController();
    const settled = client.request('a', undefined, { signal: controller.signal }).catch((e) => e);
    controller.abort(new Error('stop'));
    vi.advanceTimersByTime(1000);
    expect(((await settled) as Error).message).toBe('stop');
    expect(onAbandon).toHaveBeenCalledTimes(1);
    expect(onAbandon).toHaveBeenCalledWith(1, 'a', 'abort');
  });
});

describe('cancelledBy: a cancel source instead of a signal', () => {
  it('rejects with the reason and tells the peer (onAbandon) when the registry cancels the call', async () => {
    const { client, onAbandon, frames } = makeClient();
    const registry = new CancellationRegistry();
    const source = { onCancel: (l: CancelListener) => registry.onCancel('in-1', l) };
    const p = client.request('long', [1], { cancelledBy: source });
    expect(frames).toHaveLength(1);
    const reason = new Error('client cancelled');
    expect(registry.cancel('in-1', reason)).toBe(true);
    await expect(p).rejects.toBe(reason);
    expect(onAbandon).toHaveBeenCalledWith(1, 'long', 'abort');
    expect(client.pendingCount).toBe(0);
  });

  it('a source cancelled before the request: sent, then abandoned at once', async () => {
    const { client, onAbandon, frames } = makeClient();
    const registry = new CancellationRegistry();
    registry.started('in-2');
    registry.cancel('in-2');
    const err = await client
      .request('late', undefined, {
        cancelledBy: { onCancel: (l) => registry.onCancel('in-2', l) },
      })
      .catch((e: unknown) => e);
    expect((err as Error).name).toBe('AbortError');
    expect(frames).toHaveLength(1);
    expect(onAbandon).toHaveBeenCalledWith(1, 'late', 'abort');
  });

  it('ignores a cancellation after the response arrived', async () => {
    const { client, onAbandon } = makeClient();
    const registry = new CancellationRegistry();
    const p = client.request('a', undefined, {
      cancelledBy: { onCancel: (l) => registry.onCancel('in-3', l) },
    });
    client.handleResponse({ jsonrpc: '2.0', id: 1, result: 'done' });
    registry.cancel('in-3', new Error('too late'));
    await expect(p).resolves.toBe('done');
    expect(onAbandon).not.toHaveBeenCalled();
  });

  it('registers nothing when the send throws', async () => {
    const onCancel = vi.fn();
    const client = new JsonRpcClient({
      send: () => {
        throw new Error('closed pipe');
      },
    });
    await expect(client.request('a', undefined, { cancelledBy: { onCancel } })).rejects.toThrow(
      'closed pipe',
    );
    expect(onCancel).not.toHaveBeenCalled();
  });
});

/** A source that outlives its requests (an app-wide shutdown token): listeners it holds, by count. */
function longLivedSource() {
  const listeners = new Set<CancelListener>();
  return {
    listeners,
    onCancel(listener: CancelListener) {
      listeners.add(listener);
      return () => {
        listeners.delete(listener);
      };
    },
    cancel(reason: unknown) {
      for (const l of [...listeners]) l(reason);
    },
  };
}

describe('cancelledBy: the source forgets a request that ended', () => {
  it('a long-lived source holds no listener once its requests settled, however they ended', async () => {
    vi.useFakeTimers();
    const { client, onAbandon } = makeClient();
    const source = longLivedSource();
    const settled: Promise<unknown>[] = [];
    for (let i = 0; i < 100; i++) {
      settled.push(client.request('answered', [i], { cancelledBy: source }));
    }
    expect(source.listeners.size).toBe(100);
    for (let id = 1; id <= 100; id++) client.handleResponse({ jsonrpc: '2.0', id, result: id });
    expect(source.listeners.size).toBe(0);
    const failed = client.request('failed', undefined, { cancelledBy: source });
    client.handleResponse({ jsonrpc: '2.0', id: 101, error: { code: -32000, message: 'no' } });
    const lost = client.request('lost', undefined, { cancelledBy: source });
    client.fail(102, new Error('transport lost it'));
    const late = client.request('late', undefined, { cancelledBy: source, timeoutMs: 10 });
    const controller = new AbortController();
    const aborted = client.request('aborted', undefined, {
      cancelledBy: source,
      signal: controller.signal,
    });
    const closed = client.request('closed', undefined, { cancelledBy: source });
    for (const p of [failed, lost, late, aborted, closed]) ignore(p);
    expect(source.listeners.size).toBe(3);
    controller.abort(new Error('user left'));
    await vi.advanceTimersByTimeAsync(20);
    client.close();
    await Promise.all(settled);
    await expect(failed).rejects.toThrow('no');
    await expect(lost).rejects.toThrow('transport lost it');
    await expect(late).rejects.toBeInstanceOf(RequestTimeoutError);
    await expect(aborted).rejects.toThrow('user left');
    await expect(closed).rejects.toBeInstanceOf(ConnectionClosedError);
    expect(source.listeners.size).toBe(0);
    onAbandon.mockClear();
    // Cancelled after all of them settled: nothing is abandoned, nothing is told.
    source.cancel(new Error('shutdown'));
    expect(onAbandon).not.toHaveBeenCalled();
  });

  it("a registry's listener for a call that outlives its forwarded requests is forgotten with each", async () => {
    const { client, onAbandon } = makeClient();
    const registry = new CancellationRegistry();
    const source = { onCancel: (l: CancelListener) => registry.onCancel('in-9', l) };
    for (let id = 1; id <= 50; id++) {
      const p = client.request('forwarded', [id], { cancelledBy: source });
      client.handleResponse({ jsonrpc: '2.0', id, result: id });
      await expect(p).resolves.toBe(id);
    }
    // The incoming call 'in-9' has not settled, yet holds no listener of a finished request.
    expect(registry.active).toBe(0);
    expect(registry.cancel('in-9')).toBe(false);
    expect(onAbandon).not.toHaveBeenCalled();
  });

  it('a source that tells at once and still returns a disposer is released at once', async () => {
    const { client } = makeClient();
    const source = longLivedSource();
    const reason = new Error('shut down already');
    const cancelled = {
      onCancel(listener: CancelListener) {
        const dispose = source.onCancel(listener);
        listener(reason);
        return dispose;
      },
    };
    await expect(client.request('a', undefined, { cancelledBy: cancelled })).rejects.toBe(reason);
    expect(source.listeners.size).toBe(0);
  });

  it('a disposer that throws does not keep the request from settling', async () => {
    const { client } = makeClient();
    const source = {
      onCancel: () => () => {
        throw new Error('bad disposer');
      },
    };
    const p = client.request('a', undefined, { cancelledBy: source });
    expect(client.handleResponse({ jsonrpc: '2.0', id: 1, result: 'ok' })).toBe(true);
    await expect(p).resolves.toBe('ok');
    expect(client.pendingCount).toBe(0);
  });
});

describe('send failures and serialization', () => {
  it('rejects the request when send throws, leaving nothing pending', async () => {
    const boom = new Error('transport closed');
    const client = new JsonRpcClient({
      timeoutMs: 1000,
      send: () => {
        throw boom;
      },
    });
    await expect(client.request('a', [1])).rejects.toBe(boom);
    expect(client.pendingCount).toBe(0);
  });

  it('rejects unserializable params without sending', async () => {
    const { client, frames } = makeClient();
    const circular: Record<string, unknown> = { n: 1n };
    circular.self = circular;
    await expect(client.request('loop', circular)).rejects.toBeInstanceOf(TypeError);
    expect(frames).toHaveLength(0);
    expect(client.pendingCount).toBe(0);
  });
});

describe('close', () => {
  it('rejects every pending request with ConnectionClosedError', async () => {
    const { client, onAbandon } = makeClient();
    const a = client.request('a');
    const b = client.request('b');
    client.close();
    await expect(a).rejects.toBeInstanceOf(ConnectionClosedError);
    await expect(b).rejects.toBeInstanceOf(ConnectionClosedError);
    expect(client.pendingCount).toBe(0);
    expect(onAbandon).not.toHaveBeenCalled();
  });

  it('rejects later requests without sending', async () => {
    const { client, frames } = makeClient();
    client.close();
    await expect(client.request('after')).rejects.toBeInstanceOf(ConnectionClosedError);
    expect(frames).toHaveLength(0);
    expect(client.pendingCount).toBe(0);
  });

  it('uses a custom reason, and a second close keeps the first', async () => {
    const { client } = makeClient();
    const p = client.request('a');
    const reason = new Error('peer went away');
    client.close(reason);
    client.close(new Error('other'));
    await expect(p).rejects.toBe(reason);
    await expect(client.request('b')).rejects.toBe(reason);
  });

  it('clears deadlines so closed requests never time out', async () => {
    vi.useFakeTimers();
    const { client, onAbandon } = makeClient({ timeoutMs: 100 });
    const settled = client.request('a').catch((e: unknown) => e);
    client.close();
    expect(vi.getTimerCount()).toBe(0);
    vi.advanceTimersByTime(1000);
    expect(await settled).toBeInstanceOf(ConnectionClosedError);
    expect(onAbandon).not.toHaveBeenCalled();
  });

  it('ignores responses after close', async () => {
    const { client } = makeClient();
    const settled = client.request('a').catch((e: unknown) => e);
    client.close();
    expect(client.handleResponse({ jsonrpc: '2.0', id: 1, result: 'late' })).toBe(false);
    expect(await settled).toBeInstanceOf(ConnectionClosedError);
  });
});

describe('notifications', () => {
  it('sends a notification frame without an id', () => {
    const { client, frames } = makeClient();
    client.notify('notifications/initialized');
    client.notify('progress', { done: 3 });
    client.notify('update', [1, 2]);
    expect(frames.map((f) => JSON.parse(f))).toEqual([
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { jsonrpc: '2.0', method: 'progress', params: { done: 3 } },
      { jsonrpc: '2.0', method: 'update', params: [1, 2] },
    ]);
    expect(frames[0]).not.toContain('"id"');
    expect(frames[0]).not.toContain('params');
    expect(client.pendingCount).toBe(0);
  });

  it("sends back a peer's integer beyond 2^53 (decoded as a bigint) digit for digit", () => {
    const { client, frames } = makeClient();
    client.notify('notifications/progress', { progressToken: 9007199254741003n, progress: 1 });
    ignore(client.request('notifications/cancelled', { requestId: -18014398509481987n }));
    expect(frames).toEqual([
      '{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":9007199254741003,"progress":1}}',
      '{"jsonrpc":"2.0","id":1,"method":"notifications/cancelled","params":{"requestId":-18014398509481987}}',
    ]);
    client.close();
  });

  it('does not consume request ids', () => {
    const { client, sent } = makeClient();
    client.notify('n');
    ignore(client.request('r'));
    expect(sent()[1]?.id).toBe(1);
    client.close();
  });

  it('throws after close without sending', () => {
    const { client, frames } = makeClient();
    client.close();
    expect(() => client.notify('late')).toThrow(ConnectionClosedError);
    expect(frames).toHaveLength(0);
  });

  it('throws when params cannot be serialized', () => {
    const { client, frames } = makeClient();
    const circular: unknown[] = [1n];
    circular.push(circular);
    expect(() => client.notify('loop', circular)).toThrow(TypeError);
    expect(frames).toHaveLength(0);
  });
});

describe('JsonRpcClient deadlines beyond the timer range', () => {
  it('treats Infinity and delays above 2^31-1 ms as no deadline', async () => {
    // Node would fire such a timer after 1 ms: none is armed at all (counted, not waited for).
    vi.useFakeTimers();
    const frames: string[] = [];
    const client = new JsonRpcClient({
      send: (f) => frames.push(f),
      timeoutMs: Number.POSITIVE_INFINITY,
    });
    const a = client.request('a');
    const b = client.request('b', undefined, { timeoutMs: 2 ** 31 });
    expect(vi.getTimerCount()).toBe(0);
    vi.advanceTimersByTime(2 ** 31);
    expect(client.pendingCount).toBe(2);
    expect(client.handleResponse({ jsonrpc: '2.0', id: 1, result: 'A' })).toBe(true);
    expect(client.handleResponse({ jsonrpc: '2.0', id: 2, result: 'B' })).toBe(true);
    await expect(Promise.all([a, b])).resolves.toEqual(['A', 'B']);
  });

  it('settles a request whose error response carries a non-integer code', async () => {
    const client = new JsonRpcClient({ send: () => {} });
    const pending = client.request('x');
    expect(
      client.handleResponse({ jsonrpc: '2.0', id: 1, error: { code: 1.5, message: 'odd' } }),
    ).toBe(true);
    await expect(pending).rejects.toMatchObject({ code: -32603, message: 'odd' });
  });
});

describe('errors recognised by brand, not by class identity', () => {
  it('knows its own timeout and closed errors, and those of another copy of the package', () => {
    expect(RequestTimeoutError.is(new RequestTimeoutError('m', 1))).toBe(true);
    expect(ConnectionClosedError.is(new ConnectionClosedError())).toBe(true);
    // What a second copy's instances look like: the same Symbol.for brand, another class.
    const foreignTimeout = Object.assign(new Error('t'), {
      [Symbol.for('mcpkit.RequestTimeoutError')]: true,
    });
    expect(RequestTimeoutError.is(foreignTimeout)).toBe(true);
    expect(foreignTimeout instanceof RequestTimeoutError).toBe(false);
    expect(RequestTimeoutError.is(new ConnectionClosedError())).toBe(false);
    expect(ConnectionClosedError.is(new Error('connection closed'))).toBe(false);
    expect(ConnectionClosedError.is(null)).toBe(false);
  });
});
