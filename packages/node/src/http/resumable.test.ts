import type { ServerResponse } from 'node:http';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { MAX_REPLAY_EVENTS, parseEventId, StreamLog } from './resumable.js';
import { SseStream } from './sse.js';

/** An SseStream over a fake response that records what was written. */
function sink() {
  const out = new PassThrough();
  let text = '';
  out.on('data', (c: Buffer) => {
    text += c.toString();
  });
  const res = Object.assign(out, {
    writeHead: () => res,
    flushHeaders: () => undefined,
  }) as unknown as ServerResponse;
  return {
    stream: new SseStream(res),
    ids: () => [...text.matchAll(/^id: (\S+)$/gm)].map((m) => m[1]),
  };
}

describe('StreamLog', () => {
  it('replays what followed the last event id, then ends a finished stream', () => {
    const first = sink();
    const log = new StreamLog('s', first.stream);
    log.prime(500);
    log.send('{"a":1}');
    log.detach();
    log.send('{"b":2}');
    log.send('{"c":3}');
    log.finish();
    const resumed = sink();
    log.resume(resumed.stream, 1);
    expect(first.ids()).toEqual(['s-0', 's-1']);
    expect(resumed.ids()).toEqual(['s-2', 's-3']);
  });

  it('keeps at most MAX_REPLAY_EVENTS messages, and replays the newest with their own ids', () => {
    const log = new StreamLog('t', sink().stream);
    log.detach();
    const total = MAX_REPLAY_EVENTS * 3 + 7;
    for (let i = 1; i <= total; i++) log.send(`{"n":${i}}`);
    log.finish();
    const resumed = sink();
    log.resume(resumed.stream, 0);
    const ids = resumed.ids();
    expect(ids.length).toBeLessThanOrEqual(MAX_REPLAY_EVENTS);
    expect(ids.at(-1)).toBe(`t-${total}`);
    // Contiguous up to the last one.
    const ns = ids.map((id) => Number(id?.split('-')[1]));
    expect(ns).toEqual(ns.map((_, i) => (ns[0] as number) + i));
  });

  it('parses only the ids it issues', () => {
    expect(parseEventId('abc-12')).toEqual({ stream: 'abc', n: 12 });
    for (const bad of [
      undefined,
      '',
      'abc',
      'a-b',
      '-1',
      `${'x'.repeat(40)}-1`,
      'abc-1234567890',
    ]) {
      expect(parseEventId(bad)).toBeUndefined();
    }
  });
});
