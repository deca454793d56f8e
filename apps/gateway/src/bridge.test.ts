import { InputRequiredError, type McpContext } from '@mcpkit/protocol';
import { describe, expect, it, vi } from 'vitest';
import type { Backend } from './backends/backend.js';
import { callThrough, InputBridge, type InputSink } from './bridge.js';

/** Whether `promise` is still pending after a few ms (an ask that nothing will ever answer). */
const pendingAfter = (promise: Promise<unknown>, ms = 20): Promise<unknown> =>
  Promise.race([promise, new Promise((resolve) => setTimeout(() => resolve('pending'), ms))]);

/**
 * The context of a modern client's round, as far as the bridge uses it: its cancellation, and
 * asks that stay open until the test ends them (an `input_required` for the client).
 */
function roundContext() {
  let cancel: ((reason: unknown) => void) | undefined;
  let endAsk: (() => void) | undefined;
  let markAsked!: () => void;
  const asked = new Promise<void>((resolve) => {
    markAsked = resolve;
  });
  const ask = () => {
    markAsked();
    // Not an RpcError: the ask stays open for the client's retry.
    return new Promise((_resolve, reject) => {
      endAsk = () => reject(new Error('input required'));
    });
  };
  const ctx = {
    onCancel: (listener: (reason: unknown) => void) => {
      cancel = listener;
    },
    elicit: ask,
    sample: ask,
  } as unknown as McpContext;
  return {
    ctx,
    asked,
    cancel: (reason: unknown) => cancel?.(reason),
    endAsk: () => endAsk?.(),
  };
}

describe('a parked call of a modern client', () => {
  it('fails an ask made after it was given up at once, with the reason', async () => {
    const park = new InputBridge({ ttlMs: 60_000, maxParked: 10 }).open();
    const reason = new Error('cancelled by the client');
    park.cancel(reason);
    await expect(pendingAfter(park.ask('elicitation/create', { message: '?' }))).rejects.toBe(
      reason,
    );
    await expect(pendingAfter(park.ask('roots/list', {}))).rejects.toBe(reason);
  });

  it('is not parked when the client cancels its request while the asks are put', async () => {
    const bridge = new InputBridge({ ttlMs: 60_000, maxParked: 10 });
    const park = bridge.open();
    const { ctx, asked, cancel, endAsk } = roundContext();
    const backendAsk = park.ask('elicitation/create', { message: 'Which one?' });
    const round = bridge.round(park, ctx);
    await asked;
    const reason = new Error('cancelled by the client');
    cancel(reason);
    endAsk();
    await expect(round).rejects.toBe(reason);
    await expect(backendAsk).rejects.toBe(reason);
    expect(bridge.parked).toBe(0);
  });
});

describe("the bridge's slots", () => {
  /** A call of `owner` whose backend asks once; resolves when its round has parked it (or not). */
  async function parkOne(bridge: InputBridge, owner: string) {
    const park = bridge.open(owner);
    const { ctx, asked, endAsk } = roundContext();
    const backendAsk = park.ask('elicitation/create', { message: 'Which one?' });
    // A backend refused its ask ends its call with that error (what a real one does).
    backendAsk.catch((error: unknown) => park.settle({ ok: false, error }));
    const round = bridge.round(park, ctx).catch((err: unknown) => err);
    // Refused rounds never ask the client: wait for whichever comes first.
    await Promise.race([asked, backendAsk.catch(() => undefined)]);
    endAsk();
    return { round: await round, backendAsk };
  }

  it("gives each caller its share: one caller's full share leaves the others a slot", async () => {
    const bridge = new InputBridge({ ttlMs: 60_000, maxParked: 10, maxParkedPerCaller: 2 });
    await parkOne(bridge, 'a');
    await parkOne(bridge, 'a');
    expect(bridge.parked).toBe(2);
    const third = await parkOne(bridge, 'a');
    await expect(third.backendAsk).rejects.toThrow(/Too many of your calls are waiting/);
    expect(bridge.parked).toBe(2);
    await parkOne(bridge, 'b');
    expect(bridge.parked).toBe(3);
  });
});

describe('callThrough: a backend call through input rounds', () => {
  /** A modern backend that asks once (`input_required`), then answers the retry. */
  function askingBackend() {
    const retry = vi.fn(async (_responses: Record<string, unknown>) => ({ content: [] }));
    const result = {
      resultType: 'input_required',
      inputRequests: { who: { method: 'elicitation/create', params: { message: 'Who?' } } },
    };
    const backend = {
      call: vi.fn(async () => {
        throw new InputRequiredError('tools/call', result, undefined, retry);
      }),
    } as unknown as Backend;
    return { backend, retry };
  }

  it('sends no retry when its cancelledBy source is cancelled while the client is asked', async () => {
    const { backend, retry } = askingBackend();
    const park = new InputBridge({ ttlMs: 60_000, maxParked: 10 }).open();
    const reason = new Error('cancelled by the client');
    // The client answers, but only after the call was given up meanwhile.
    const sink: InputSink = {
      ask: async () => {
        park.cancel(reason);
        return { action: 'accept', content: { name: 'Ada' } };
      },
    };
    await expect(callThrough(backend, 'tools/call', {}, sink, { cancelledBy: park })).rejects.toBe(
      reason,
    );
    expect(retry).not.toHaveBeenCalled();
  });

  it('retries with the answers when nothing cancelled it, and leaves no listener behind', async () => {
    const { backend, retry } = askingBackend();
    const park = new InputBridge({ ttlMs: 60_000, maxParked: 10 }).open();
    const sink: InputSink = { ask: async () => ({ action: 'accept' }) };
    await expect(
      callThrough(backend, 'tools/call', {}, sink, { cancelledBy: park }),
    ).resolves.toEqual({ content: [] });
    expect(retry).toHaveBeenCalledWith({ who: { action: 'accept' } });
    expect(park.listening).toBe(0);
  });
});

describe('Park as a cancel source', () => {
  it("forgets a listener through onCancel's disposer; a given-up park tells at once", () => {
    const park = new InputBridge({ ttlMs: 60_000, maxParked: 10 }).open();
    const forgotten = vi.fn();
    const kept = vi.fn();
    const off = park.onCancel(forgotten);
    park.onCancel(kept);
    expect(park.listening).toBe(2);
    off?.();
    off?.();
    expect(park.listening).toBe(1);
    park.cancel('gone');
    expect(forgotten).not.toHaveBeenCalled();
    expect(kept).toHaveBeenCalledWith('gone');
    const late = vi.fn();
    expect(park.onCancel(late)).toBeUndefined();
    expect(late).toHaveBeenCalledWith('gone');
  });
});
