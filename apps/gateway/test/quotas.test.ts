/**
 * Quotas (`gateway.quotas`) on one gateway: N calls per identity per window of the tools a quota
 * names, the rest refused before the backend with `retryAfter`; each identity its own count;
 * what is left shown by gateway_status, refusals counted in /metrics and the event log. (Exact
 * across a fleet: e2e/test/gateway-team-fleet.test.ts.)
 */
import { RpcError } from '@mcpkit/protocol';
import { type HttpProcess, killSpawned, removeTempDirs } from '@mcpkit/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backend, spawnHttpGateway } from './helpers.js';

const ALICE = 'alice-token-for-the-quota-test';
const BOB = 'bob-token-for-the-quota-test-0';
let gw: HttpProcess;

beforeAll(async () => {
  gw = await spawnHttpGateway({
    gateway: {
      tokens: [
        { token: ALICE, subject: 'alice' },
        { token: BOB, subject: 'bob' },
      ],
      quotas: [
        { name: 'echo-budget', tools: ['rich__echo'], limit: 5, window_sec: 600 },
        { name: 'rich-all', tools: ['rich__*'], limit: 1000, window_sec: 600 },
      ],
    },
    mcpServers: { rich: backend('rich') },
  });
});
afterAll(async () => {
  await gw?.stop();
  killSpawned();
  removeTempDirs();
});

const connect = (token: string) => gw.connect({ headers: { Authorization: `Bearer ${token}` } });

describe('quotas', () => {
  it('lets N calls per identity through, refuses the rest with retryAfter, counts each person apart', async () => {
    const alice = await connect(ALICE);
    const bob = await connect(BOB);
    try {
      const outcomes = await Promise.all(
        Array.from({ length: 8 }, (_, i) =>
          alice.callTool('rich__echo', { text: `hi ${i}` }).then(
            () => 'ok',
            (err: unknown) => err,
          ),
        ),
      );
      expect(outcomes.filter((o) => o === 'ok')).toHaveLength(5);
      const refused = outcomes.filter((o) => o !== 'ok') as RpcError[];
      expect(refused).toHaveLength(3);
      for (const err of refused) {
        expect(RpcError.is(err) && err.code).toBe(-32000);
        expect(err.message).toMatch(
          /^Quota 'echo-budget' exceeded: 5 calls per 600 s; retry in \d+ s$/,
        );
        expect((err.data as { retryAfter: number }).retryAfter).toBeGreaterThan(500);
      }
      // Another tool of the backend is under the other quota only.
      expect((await alice.callTool('rich__who', {})).isError ?? false).toBe(false);
      // Bob has his own five.
      for (let i = 0; i < 5; i++) await bob.callTool('rich__echo', { text: 'b' });
      const status = (await alice.callTool('gateway_status', {})).structuredContent as {
        quotas: { name: string; remaining_for_you: number; refused_since_start: number }[];
      };
      expect(status.quotas.find((q) => q.name === 'echo-budget')).toMatchObject({
        remaining_for_you: 0,
        refused_since_start: 3,
      });
      // Alice's 5 echo calls and 1 who under rich-all (a call refused by a quota is not counted
      // by the quotas after it).
      expect(status.quotas.find((q) => q.name === 'rich-all')?.remaining_for_you).toBe(1000 - 6);
      const metrics = await (
        await fetch(`${gw.url}/metrics`, { headers: { Authorization: `Bearer ${ALICE}` } })
      ).text();
      expect(metrics).toMatch(/mcp_gateway_quota_refusals_total\{quota="echo-budget"\} 3/);
      const events = await alice.callTool('get_events', { event_type: 'quota.exceeded' });
      expect((events.content as { text: string }[])[0]?.text).toContain('"quota":"echo-budget"');
    } finally {
      await alice.close();
      await bob.close();
    }
  });
});
