/**
 * `requestState` is good for one retry, and stays so while it is valid: the record of a spent
 * state outlives the state (bounded by its expiry, not by how many others were spent since), and
 * one caller flooding the records is refused rather than allowed to push others' out.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { RpcError } from '../jsonrpc/errors.js';
import { connectRaw } from '../testing/index.js';
import { META } from './era.js';
import { RequestStateCodec, type SharedClaim } from './input-rounds.js';
import { McpServer } from './server.js';
import { defineTool } from './tool.js';

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

describe('requestState across the instances of a fleet (a shared claim)', () => {
  /** Two instances with one key, as a fleet runs them; `claim` is what they share. */
  function fleet(claim: SharedClaim) {
    let runs = 0;
    const instance = () =>
      new McpServer({
        name: 'fleet',
        version: '1',
        requestState: { key: 'f'.repeat(32), claim },
      }).addTool(
        defineTool({
          name: 'ask',
          description: 'Samples, then counts the run',
          handler: async (_args, ctx) => {
            const { model } = await ctx.sample({ messages: [], maxTokens: 1 });
            runs++;
            return model;
          },
        }),
      );
    return { a: connectRaw(instance()), b: connectRaw(instance()), runs: () => runs };
  }
  const call = (extra: Record<string, unknown> = {}) => ({
    name: 'ask',
    ...extra,
    _meta: {
      [META.protocolVersion]: '2026-07-28',
      [META.clientCapabilities]: { sampling: {} },
      [META.clientInfo]: { name: 'c', version: '1' },
    },
  });
  const answer = { role: 'assistant', content: { type: 'text', text: 'x' }, model: 'm-7' };

  it('refuses on every instance a state spent on one: the handler runs once', async () => {
    const claimed = new Map<string, number>();
    const { a, b, runs } = fleet(async (key, ttlMs) => {
      if ((claimed.get(key) ?? 0) > Date.now()) return false;
      claimed.set(key, Date.now() + ttlMs);
      return true;
    });
    const first = await a.result<{ requestState: string }>('tools/call', call());
    const retry = call({
      inputResponses: { 'sampling-1': answer },
      requestState: first.requestState,
    });
    await expect(b.result('tools/call', retry)).resolves.toMatchObject({
      content: [{ type: 'text', text: 'm-7' }],
    });
    // A never saw the state spent: only the shared claim stops the replay there.
    const replay = await a.request('tools/call', retry);
    expect(replay.error).toMatchObject({
      code: -32602,
      message: expect.stringMatching(/requestState/),
    });
    expect(runs()).toBe(1);
    await a.close();
    await b.close();
  });

  it('refuses a retry it cannot check (the store is down) with -32603, and runs nothing', async () => {
    const { a, runs } = fleet(async () => {
      throw new Error('connection refused');
    });
    const first = await a.result<{ requestState: string }>('tools/call', call());
    const retry = await a.request(
      'tools/call',
      call({ inputResponses: { 'sampling-1': answer }, requestState: first.requestState }),
    );
    expect(retry.error).toMatchObject({ code: -32603, message: expect.stringMatching(/retry/) });
    expect(runs()).toBe(0);
    await a.close();
  });
});
