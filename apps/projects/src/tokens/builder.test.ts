/**
 * The build worker's queue (the worker runs from dist/: `pnpm build` first): callers take turns,
 * each caller's waiting builds are bounded, a failed build is an answer and not kept, a closed
 * builder refuses.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { defaultTokens } from '../dtcg.js';
import { TokenBuildError } from './build.js';
import { MAX_QUEUED_PER_CALLER, TokenBuilder } from './builder.js';

let builder: TokenBuilder;
afterEach(async () => {
  await builder?.close();
});

/** A document of `n` colour tokens: a build that takes a while. */
function big(n: number): Record<string, unknown> {
  const color: Record<string, unknown> = { $type: 'color' };
  for (let i = 0; i < n; i++) {
    color[`c${i}`] = { $value: { colorSpace: 'srgb', components: [i % 2, 0, 0] } };
  }
  return { color };
}

describe('TokenBuilder', () => {
  it('serves callers in turn: a second caller waits for one build, not for the first caller’s queue', async () => {
    builder = new TokenBuilder();
    const finished: string[] = [];
    const run = (key: string, caller: string) =>
      builder.build(key, big(2_000), 'css', {}, caller).then(() => finished.push(key));
    const all = [run('a1', 'alice'), run('a2', 'alice'), run('a3', 'alice'), run('b1', 'bob')];
    expect(builder.pending).toBe(4);
    await Promise.all(all);
    // a1 was running; bob's turn comes next, before alice's second and third.
    expect(finished).toEqual(['a1', 'b1', 'a2', 'a3']);
    expect(builder.pending).toBe(0);
  });

  it(`refuses a caller’s build past ${MAX_QUEUED_PER_CALLER} waiting, while others are served`, async () => {
    builder = new TokenBuilder();
    const mine = Array.from({ length: MAX_QUEUED_PER_CALLER }, (_, i) =>
      builder.build(`m${i}`, big(500), 'json', {}, 'greedy'),
    );
    const refused = await builder.build('m-more', big(500), 'json', {}, 'greedy').catch((e) => e);
    expect(TokenBuildError.is(refused)).toBe(true);
    expect((refused as Error).message).toMatch(/4 of your token builds are waiting/);
    const other = await builder.build('o1', defaultTokens(), 'json', {}, 'patient');
    expect(other[0]?.name).toBe('tokens.json');
    await Promise.all(mine);
    // Done, so the caller may build again.
    await expect(builder.build('m-again', big(10), 'json', {}, 'greedy')).resolves.toHaveLength(1);
  });

  it('keeps a build by key; a failed build is an answer, not kept', async () => {
    builder = new TokenBuilder();
    const first = builder.build('k', defaultTokens(), 'css');
    expect(builder.build('k', defaultTokens(), 'css')).toBe(first);
    await first;
    const bad = { a: { $type: 'number', 'b-c': { $value: 1 }, b_c: { $value: 2 } } };
    const failed = builder.build('bad', bad, 'css');
    await expect(failed).rejects.toThrow(/same name/);
    expect(builder.build('bad', bad, 'css')).not.toBe(failed);
    await builder.build('bad', bad, 'css').catch(() => undefined);
  });

  it('refuses builds once closed, and fails the ones waiting', async () => {
    builder = new TokenBuilder();
    const waiting = builder.build('w', big(2_000), 'css', {}, 'x');
    const queued = builder.build('q', big(10), 'css', {}, 'y');
    await builder.close();
    await expect(waiting).rejects.toThrow(/closed/);
    await expect(queued).rejects.toThrow(/closed/);
    await expect(builder.build('late', big(10), 'css')).rejects.toThrow(/closed/);
    expect(builder.pending).toBe(0);
  });
});
