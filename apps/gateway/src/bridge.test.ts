import type { McpContext } from '@mcpkit/protocol';
import { describe, expect, it } from 'vitest';
import { InputBridge } from './bridge.js';

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
