import { describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { McpServer } from '../mcp/server.js';
import { defineTool } from '../mcp/tool.js';
import { connectRaw } from '../testing/raw.js';
import { CancellationRegistry } from './cancellation.js';

describe('CancellationRegistry listeners', () => {
  it("onCancel's disposer forgets that listener only, and a late one spares the id's next call", () => {
    const registry = new CancellationRegistry();
    const first = vi.fn();
    const second = vi.fn();
    const third = vi.fn();
    const offFirst = registry.onCancel(1, first);
    const offSecond = registry.onCancel(1, second);
    registry.onCancel(1, third);
    offFirst?.();
    offSecond?.();
    offSecond?.(); // twice: nothing more goes
    expect(registry.active).toBe(1);
    registry.cancel(1, 'stop');
    expect(first).not.toHaveBeenCalled();
    expect(second).not.toHaveBeenCalled();
    expect(third).toHaveBeenCalledWith('stop');
    registry.settled(1);
    const only = vi.fn();
    const offOnly = registry.onCancel(2, only);
    offOnly?.();
    expect(registry.active).toBe(0); // the last listener gone: the call holds nothing
    // A disposer called after its call settled and the id came back: the new listener stays.
    const stale = registry.onCancel(3, vi.fn());
    registry.settled(3);
    const next = vi.fn();
    registry.onCancel(3, next);
    stale?.();
    registry.cancel(3, 'again');
    expect(next).toHaveBeenCalledWith('again');
    // Told at once (cancelled already), or a notification: nothing to dispose of.
    expect(registry.onCancel(3, vi.fn())).toBeUndefined();
    expect(registry.onCancel(undefined, vi.fn())).toBeUndefined();
  });

  it('tells ids apart as JSON-RPC does: "5" is not 5, whatever kind of id each call has', () => {
    const registry = new CancellationRegistry();
    const ids = [5, '5', 's5', 'n5', -5, 1.5, null, 2n ** 60n, 0] as const;
    const heard = ids.map(() => vi.fn());
    ids.forEach((id, i) => {
      registry.started(id);
      registry.onCancel(id, heard[i] as () => void);
    });
    expect(registry.active).toBe(ids.length);
    // A bigint id is the number it equals (ids beyond 2^53 are decoded as bigints).
    expect(registry.cancel(5n, 'five')).toBe(true);
    expect(registry.cancel('5', 'string five')).toBe(true);
    expect(registry.cancel(2n ** 60n, 'big')).toBe(true);
    expect(heard.map((f) => f.mock.calls[0]?.[0])).toEqual([
      'five',
      'string five',
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
      'big',
      undefined,
    ]);
    // Each settles on its own; a cancelled one is withheld only by a withholding registry.
    for (const id of ids) registry.settled(id);
    expect(registry.active).toBe(0);
    expect(registry.cancel(0, 'late')).toBe(false);
  });

  it('keeps thousands of calls in flight, in any order, and forgets each as it settles', () => {
    const registry = new CancellationRegistry();
    const told: number[] = [];
    for (let id = 1; id <= 5000; id++) {
      registry.started(id);
      registry.onCancel(id, () => told.push(id));
    }
    // Every third settles, newest first; then every call left is cancelled.
    for (let id = 4998; id >= 1; id -= 3) registry.settled(id);
    expect(registry.active).toBe(5000 - 1666);
    for (let id = 1; id <= 5000; id++) registry.cancel(id, 'stop');
    expect(told.length).toBe(5000 - 1666);
    expect(told.includes(4998) || told.includes(3)).toBe(false);
    expect(told.includes(1) && told.includes(2) && told.includes(5000)).toBe(true);
  });

  it('active counts calls: one holding a signal and a listener counts once', () => {
    const registry = new CancellationRegistry();
    registry.signalFor(1);
    registry.onCancel(1, vi.fn());
    expect(registry.active).toBe(1);
    registry.onCancel(2, vi.fn());
    registry.signalFor(3);
    registry.signalFor(4);
    registry.onCancel(4, vi.fn());
    expect(registry.active).toBe(4);
    registry.settled(1);
    expect(registry.active).toBe(3);
    registry.cancel(4);
    expect(registry.active).toBe(2);
  });

  it('tells every listener of a call once, with the reason; other calls hear nothing', () => {
    const registry = new CancellationRegistry();
    const first = vi.fn();
    const second = vi.fn();
    const other = vi.fn();
    registry.onCancel(1, first);
    registry.onCancel(1, second);
    registry.onCancel('1', other); // a string id is another call than the number 1
    expect(registry.active).toBe(2);
    const reason = new Error('stop');
    expect(registry.cancel(1, reason)).toBe(true);
    registry.cancel(1, reason);
    expect(first).toHaveBeenCalledTimes(1);
    expect(first).toHaveBeenCalledWith(reason);
    expect(second).toHaveBeenCalledWith(reason);
    expect(other).not.toHaveBeenCalled();
    expect(registry.active).toBe(1);
  });

  it('gives an AbortError when cancelled without a reason, as AbortController.abort() does', () => {
    const registry = new CancellationRegistry();
    const listener = vi.fn();
    registry.onCancel(7, listener);
    registry.cancel(7);
    const reason = listener.mock.calls[0]?.[0] as DOMException;
    expect(reason.name).toBe('AbortError');
  });

  it('tells a listener registered after the cancellation at once, until the call settles', () => {
    const registry = new CancellationRegistry();
    registry.started(3);
    expect(registry.cancel(3)).toBe(false); // nobody listened yet
    expect(registry.cancelledWithoutSignal(3)).toBe(true);
    const late = vi.fn();
    registry.onCancel(3, late);
    expect(late).toHaveBeenCalledTimes(1);
    registry.settled(3);
    const next = vi.fn();
    registry.onCancel(3, next); // a new call reusing the id
    expect(next).not.toHaveBeenCalled();
  });

  it('forgets the listeners of a settled call', () => {
    const registry = new CancellationRegistry();
    const listener = vi.fn();
    registry.onCancel(4, listener);
    registry.settled(4);
    expect(registry.active).toBe(0);
    expect(registry.cancel(4)).toBe(false);
    expect(listener).not.toHaveBeenCalled();
  });

  it('remembers a cancellation of a call holding a signal as well (the result is withheld)', () => {
    const registry = new CancellationRegistry();
    const signal = registry.signalFor(5);
    const listener = vi.fn();
    registry.onCancel(5, listener);
    expect(registry.cancel(5, 'gone')).toBe(true);
    expect(signal.aborted).toBe(true);
    expect(listener).toHaveBeenCalledWith('gone');
    expect(registry.cancelledWithoutSignal(5)).toBe(true);
  });

  it('abortAll tells every listener and builds the reason once', () => {
    const registry = new CancellationRegistry();
    const a = vi.fn();
    const b = vi.fn();
    registry.onCancel(1, a);
    registry.onCancel(2, b);
    const reason = vi.fn(() => new Error('client went away'));
    registry.abortAll(reason);
    expect(reason).toHaveBeenCalledTimes(1);
    expect(a.mock.calls[0]?.[0]).toBe(b.mock.calls[0]?.[0]);
    expect(registry.active).toBe(0);
    const idle = vi.fn();
    new CancellationRegistry().abortAll(idle);
    expect(idle).not.toHaveBeenCalled();
  });

  it('a listener that throws does not crash the canceller nor silence the others', () => {
    const registry = new CancellationRegistry();
    const after = vi.fn();
    registry.onCancel(9, () => {
      throw new Error('bad listener');
    });
    registry.onCancel(9, after);
    expect(() => registry.cancel(9)).not.toThrow();
    expect(after).toHaveBeenCalledTimes(1);
  });

  it('tells a late listener the reason the call was cancelled for, and one that throws is ignored', () => {
    const registry = new CancellationRegistry();
    const reason = new Error('user pressed stop');
    registry.started(10);
    registry.cancel(10, reason);
    const late = vi.fn();
    registry.onCancel(10, late);
    expect(late).toHaveBeenCalledWith(reason);
    expect(() =>
      registry.onCancel(10, () => {
        throw new Error('bad listener');
      }),
    ).not.toThrow();
  });

  it('gives a signal asked for after the cancellation already aborted, with the reason', () => {
    const registry = new CancellationRegistry();
    const reason = new Error('stop');
    registry.onCancel(11, vi.fn()); // the handler listened first, then reads its signal
    registry.cancel(11, reason);
    const signal = registry.signalFor(11);
    expect(signal.aborted).toBe(true);
    expect(signal.reason).toBe(reason);
    expect(registry.active).toBe(0);
    registry.started(12);
    registry.cancel(12); // nobody held anything: the AbortError of abort()
    expect((registry.signalFor(12).reason as DOMException).name).toBe('AbortError');
    registry.settled(11);
    expect(registry.signalFor(11).aborted).toBe(false); // a new call reusing the id
  });

  it('ignores a cancellation of a call not in flight: a later call taking the id is answered', () => {
    const registry = new CancellationRegistry({ withholdReplies: true });
    // Never started (a stray id), and already settled (the cancellation crossed the response).
    expect(registry.cancel(20, 'stray')).toBe(false);
    registry.started(21);
    expect(registry.settled(21)).toBe(false);
    expect(registry.cancel(21, 'too late')).toBe(false);
    for (const id of [20, 21]) {
      registry.started(id);
      expect(registry.cancelledWithoutSignal(id)).toBe(false);
      expect(registry.signalFor(id).aborted).toBe(false);
      expect(registry.settled(id)).toBe(false);
    }
  });

  it('remembers at most 1024 cancellations, forgetting the oldest first', () => {
    const registry = new CancellationRegistry();
    // Calls cancelled that never settle (a handler that ignores its cancellation and hangs).
    for (let i = 0; i < 1024; i++) {
      registry.started(`stale-${i}`);
      registry.cancel(`stale-${i}`);
    }
    expect(registry.cancelledWithoutSignal('stale-0')).toBe(true);
    registry.started(1);
    registry.cancel(1);
    expect(registry.cancelledWithoutSignal(1)).toBe(true);
    const late = vi.fn();
    registry.onCancel(1, late);
    expect(late).toHaveBeenCalledTimes(1);
    expect(registry.cancelledWithoutSignal('stale-0')).toBe(false);
    expect(registry.cancelledWithoutSignal('stale-1')).toBe(true);
    expect(registry.cancelledWithoutSignal('stale-1023')).toBe(true);
  });

  it('says on settling that a cancelled call gets no reply, when it withholds replies (MCP)', () => {
    const plain = new CancellationRegistry();
    plain.started(1);
    plain.cancel(1);
    expect(plain.settled(1)).toBe(false);
    const mcp = new CancellationRegistry({ withholdReplies: true });
    mcp.started(1);
    mcp.cancel(1);
    expect(mcp.settled(2)).toBe(false);
    expect(mcp.settled(1)).toBe(true);
    expect(mcp.settled(1)).toBe(false); // forgotten with the call
    // abortAll cancels calls holding a signal as well as those listening.
    mcp.signalFor(3);
    mcp.onCancel(4, vi.fn());
    mcp.abortAll(() => new Error('session closed'));
    expect(mcp.settled(3)).toBe(true);
    expect(mcp.settled(4)).toBe(true);
  });

  it('ignores listeners of notifications (no id): they cannot be cancelled', () => {
    const registry = new CancellationRegistry();
    registry.onCancel(undefined, () => {
      throw new Error('never');
    });
    expect(registry.active).toBe(0);
  });
});

describe('a cancellation naming an id beyond 2^53 (an McpServer over raw frames)', () => {
  /** A server whose `hold` tool answers once released, telling when each call has started. */
  function holding() {
    const started: string[] = [];
    let release!: () => void;
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    const server = new McpServer({ name: 'exact', version: '1' }).addTool(
      defineTool({
        name: 'hold',
        description: 'Answers once the test releases it',
        inputSchema: z.object({ call: z.string() }),
        handler: async ({ call }, ctx) => {
          started.push(call);
          await Promise.race([released, new Promise((resolve) => ctx.onCancel(resolve))]);
          return call;
        },
      }),
    );
    return { peer: connectRaw(server), started, release };
  }
  const call = (id: string, name: string) =>
    `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"hold","arguments":{"call":"${name}"}}}`;
  const cancel = (requestId: string) =>
    `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":${requestId}}}`;

  it('does not cancel the call in flight whose id it rounds to: that call is answered', async () => {
    const { peer, started, release } = holding();
    await peer.initialize();
    const answered = peer.send(call('9007199254741000', 'a'));
    await peer.settle();
    expect(started).toEqual(['a']);
    // JSON.parse makes 9007199254741000 of it: an id never sent.
    await peer.send(cancel('9007199254741001'));
    release();
    await peer.settle();
    const reply = peer.received.find((text) => text.includes('"id":9007199254741000,'));
    expect(reply).toMatch(/^\{"jsonrpc":"2\.0","id":9007199254741000,"result":/);
    expect(JSON.parse(reply as string).result.content).toEqual([{ type: 'text', text: 'a' }]);
    await expect(answered).resolves.toBe(reply);
    await peer.close();
  });

  it('still cancels the call it names exactly: no answer', async () => {
    const { peer, started, release } = holding();
    await peer.initialize();
    void peer.send(call('9007199254741000', 'b'));
    await peer.settle();
    expect(started).toEqual(['b']);
    await peer.send(cancel('9007199254741000'));
    release();
    await peer.settle();
    expect(peer.received.filter((text) => text.includes('9007199254741000'))).toEqual([]);
    await peer.close();
  });
});
