import { afterEach, describe, expect, it } from 'vitest';
import { EventLog, type GatewayEvent } from '../events.js';
import { eventFeed } from './feed.js';

let log: EventLog | undefined;
afterEach(async () => {
  await log?.close();
  log = undefined;
});

describe('eventFeed', () => {
  it('hands every new event to its listeners, and queries as get_events does', async () => {
    log = EventLog.open(':memory:');
    const feed = eventFeed(log);
    const seen: GatewayEvent[] = [];
    const stop = feed.subscribe((e) => seen.push(e));
    log.record({ event_type: 'backend.failed', status: 'failure', source: 'x', backend: 'x' });
    expect(seen.map((e) => e.event_type)).toEqual(['backend.failed']);
    stop();
    log.record({ event_type: 'backend.started', status: 'success', source: 'x', backend: 'x' });
    expect(seen).toHaveLength(1);
    const stored = await feed.query({ event_type: 'backend.started' });
    expect(stored.map((e) => e.event_type)).toEqual(['backend.started']);
    await expect(
      Promise.resolve().then(() => feed.query({ since: 'last tuesday' })),
    ).rejects.toThrow(/since must be/);
  });

  it('keeps recording when a listener throws', () => {
    log = EventLog.open(':memory:');
    const feed = eventFeed(log);
    const after: string[] = [];
    feed.subscribe(() => {
      throw new Error('a closed stream');
    });
    feed.subscribe((e) => after.push(e.event_type));
    expect(() =>
      log?.record({ event_type: 'gateway.tool_call', status: 'success', source: 'g' }),
    ).not.toThrow();
    expect(after).toEqual(['gateway.tool_call']);
  });
});
