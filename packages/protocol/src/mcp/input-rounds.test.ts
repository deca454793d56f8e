/**
 * `requestState` is good for one retry, and stays so while it is valid: the record of a spent
 * state outlives the state (bounded by its expiry, not by how many others were spent since), and
 * one caller flooding the records is refused rather than allowed to push others' out.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { RpcError } from '../jsonrpc/errors.js';
import { RequestStateCodec } from './input-rounds.js';

afterEach(() => {
  vi.useRealTimers();
});

const state = (codec: RequestStateCodec, caller: string) =>
  codec.mint({ m: 'tools/call', d: 'digest', p: caller, a: {}, q: [] });

describe('RequestStateCodec', () => {
  it('refuses a spent state until it expires, however many others are spent meanwhile', () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const codec = new RequestStateCodec('k'.repeat(32), 60_000, { perCaller: 50, total: 200 });
    const first = state(codec, 'a');
    const payload = codec.verify(first);
    if (!payload) throw new Error('a fresh state must verify');
    codec.spend(payload);
    // Others spend far more states than the records may hold (the attack: push the first out).
    let refused = 0;
    for (let i = 0; i < 900; i++) {
      const other = codec.verify(state(codec, `caller-${i % 30}`));
      try {
        if (other) codec.spend(other);
      } catch {
        refused++;
      }
    }
    expect(refused).toBeGreaterThan(0);
    expect(codec.verify(first)).toBeUndefined();
  });

  it("refuses a caller's states beyond its share, not another caller's, and forgets records once they expire", () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const codec = new RequestStateCodec('k'.repeat(32), 60_000, { perCaller: 3, total: 100 });
    const spend = (caller: string) => {
      const payload = codec.verify(state(codec, caller));
      if (!payload) throw new Error('a fresh state must verify');
      codec.spend(payload);
    };
    for (let i = 0; i < 3; i++) spend('flooder');
    let refused: unknown;
    try {
      spend('flooder');
    } catch (err) {
      refused = err;
    }
    expect(refused).toBeInstanceOf(RpcError);
    expect((refused as RpcError).code).toBe(-32602);
    // Someone else is served.
    expect(() => spend('other')).not.toThrow();
    // Once the states expire (and their records with them), the flooder is served again.
    vi.advanceTimersByTime(60_001);
    expect(() => spend('flooder')).not.toThrow();
  });

  it('refuses beyond the total as the backstop', () => {
    const codec = new RequestStateCodec('k'.repeat(32), 60_000, { perCaller: 10, total: 4 });
    for (let i = 0; i < 4; i++) {
      const payload = codec.verify(state(codec, `c${i}`));
      if (payload) codec.spend(payload);
    }
    const fifth = codec.verify(state(codec, 'c5'));
    expect(fifth).toBeDefined();
    expect(() => codec.spend(fifth as NonNullable<typeof fifth>)).toThrow(RpcError);
  });
});
