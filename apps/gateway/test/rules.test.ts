/**
 * The gateway's rules (CEL, `gateway.rules`) over the wire: each caller's `tools/list` shows the
 * backend tools some call of theirs could be allowed, and every call is decided by the same
 * rules — on identity, tool and arguments — in both eras over HTTP and over stdio, a refusal
 * naming the rule (-32600) and recorded as `policy.denied`, an allowed call's event naming the
 * rule that allowed it. An invalid rule stops the start
 * naming the rule and why.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type McpClient, RpcError } from '@mcpkit/protocol';
import {
  type HttpProcess,
  killSpawned,
  postModernCall,
  removeTempDirs,
  runProcess,
  tempDir,
} from '@mcpkit/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backend, CLI, handshake, spawnHttpGateway, startGateway } from './helpers.js';

const ALICE = 'alice-token-for-the-rules-test';
const BOB = 'bob-token-for-the-rules-test-0';
const CONFIG = {
  gateway: {
    tokens: [
      { token: ALICE, subject: 'alice', scopes: ['eng'] },
      { token: BOB, subject: 'bob', scopes: [] },
    ],
    rules: [
      {
        name: 'no-shouting',
        effect: 'deny',
        when: "tool.original == 'echo' && args.text.contains('!')",
      },
      {
        name: 'bob-no-fails',
        effect: 'deny',
        when: "tool.original == 'fails' && identity.subject == 'bob'",
      },
      { name: 'engineers', effect: 'allow', when: "'eng' in identity.scopes" },
      {
        name: 'echo-for-all',
        effect: 'allow',
        when: "tool.original == 'echo' || tool.original == 'fails'",
      },
    ],
    rules_default: 'deny',
  },
  mcpServers: { rich: backend('rich') },
};
const RICH_TOOLS = [
  'rich__big',
  'rich__echo',
  'rich__fails',
  'rich__legacy_code',
  'rich__log_twice',
  'rich__needs_url',
  'rich__rich_result',
  'rich__sleep',
  'rich__slow_progress',
  'rich__who',
];

let gw: HttpProcess;
beforeAll(async () => {
  gw = await spawnHttpGateway(CONFIG);
});
afterAll(async () => {
  await gw?.stop();
  killSpawned();
  removeTempDirs();
});

const connect = (token: string, protocol: 'legacy' | 'auto') =>
  gw.connect({ headers: { Authorization: `Bearer ${token}` }, protocol });
const backendTools = async (client: McpClient) =>
  (await client.listTools())
    .map((t) => t.name)
    .filter((n) => n.startsWith('rich__'))
    .sort();
const outcome = (client: McpClient, name: string, args: Record<string, unknown> = {}) =>
  client.callTool(name, args).then(
    (r) => (r.isError ? 'tool-error' : 'ok'),
    (err: unknown) => (RpcError.is(err) ? `${err.code} ${err.message}` : String(err)),
  );

describe.each(['legacy', 'auto'] as const)('rules over HTTP (%s)', (protocol) => {
  it('lists to each caller what some call of theirs could be allowed, and calls agree', async () => {
    const alice = await connect(ALICE, protocol);
    const bob = await connect(BOB, protocol);
    try {
      expect(protocol === 'auto' ? bob.era : 'legacy').toBe(
        protocol === 'auto' ? 'modern' : 'legacy',
      );
      expect(await backendTools(alice)).toEqual(RICH_TOOLS);
      // bob: echo (allowed unless it shouts), fails (allowed to all but him… he is bob: hidden).
      expect(await backendTools(bob)).toEqual(['rich__echo']);
      expect(await outcome(bob, 'rich__echo', { text: 'hello' })).toBe('ok');
      expect(await outcome(bob, 'rich__echo', { text: 'hello!' })).toBe(
        "-32600 Tool 'rich__echo' refused by rule 'no-shouting'",
      );
      expect(await outcome(bob, 'rich__fails')).toBe(
        "-32600 Tool 'rich__fails' refused by rule 'bob-no-fails'",
      );
      expect(await outcome(bob, 'rich__who')).toBe(
        "-32600 Tool 'rich__who' refused: no rule allows it",
      );
      expect(await outcome(alice, 'rich__who')).toBe('ok');
      expect(await outcome(alice, 'rich__fails')).toBe('tool-error');
      expect(await outcome(alice, 'rich__echo', { text: 'loud!' })).toBe(
        "-32600 Tool 'rich__echo' refused by rule 'no-shouting'",
      );
      // Every tool listed to bob is one he can call with some arguments; none other.
      for (const name of RICH_TOOLS) {
        const listed = (await backendTools(bob)).includes(name);
        const callable = (await outcome(bob, name, { text: 'x' })) === 'ok';
        expect(callable || !listed, name).toBe(true);
        if (!listed) expect(await outcome(bob, name)).toMatch(/^-32600 /);
      }
    } finally {
      await alice.close();
      await bob.close();
    }
  });
});

describe('rules elsewhere', () => {
  it('a stateless 2026-07-28 POST is refused the same way, and the event log names the rule', async () => {
    const refused = await postModernCall<{ error?: { code: number; message: string } }>(
      `${gw.url}/mcp`,
      'rich__echo',
      { text: 'again!' },
      { token: BOB },
    );
    expect(refused.body?.error).toMatchObject({ code: -32600 });
    const alice = await connect(ALICE, 'legacy');
    try {
      await expect
        .poll(async () => {
          const r = await alice.callTool('get_events', { event_type: 'policy.denied' });
          return (r.content as { text: string }[])[0]?.text ?? '';
        })
        .toContain('"rule":"no-shouting"');
      // An allowed call's event names the rule that let it through.
      await alice.callTool('rich__who', {});
      await expect
        .poll(async () => {
          const r = await alice.callTool('get_events', {
            event_type: 'gateway.tool_call',
            limit: 5,
          });
          return (r.content as { text: string }[])[0]?.text ?? '';
        })
        .toMatch(
          /"tool":"rich__who"[^}]*"data":\{"rule":"engineers"\}|"data":\{"rule":"engineers"\}[^}]*"tool":"rich__who"/,
        );
      // Each rule's decisions are counted too.
      const status = (await alice.callTool('gateway_status', {})).structuredContent as {
        rules: { rule: string; effect: string; calls: number }[];
      };
      expect(status.rules).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ rule: 'engineers', effect: 'allow' }),
          expect.objectContaining({ rule: 'no-shouting', effect: 'deny' }),
        ]),
      );
    } finally {
      await alice.close();
    }
  });

  it('over stdio (no identity) the default decides what is listed and callable', async () => {
    const child = startGateway(CONFIG);
    try {
      await handshake(child);
      const list = await child.request('tools/list', {});
      const names = ((list.result as { tools: { name: string }[] }).tools ?? [])
        .map((t) => t.name)
        .filter((n) => n.startsWith('rich__'))
        .sort();
      expect(names).toEqual(['rich__echo', 'rich__fails']);
      const who = await child.request('tools/call', { name: 'rich__who', arguments: {} });
      expect(who.error?.code).toBe(-32600);
    } finally {
      await child.end();
    }
  });

  it('an invalid rule stops the start, naming the rule, its line and why', async () => {
    const dir = tempDir('gw-bad-rule-');
    const file = join(dir, 'gateway.json');
    writeFileSync(
      file,
      JSON.stringify(
        {
          gateway: { rules: [{ name: 'half', effect: 'deny', when: "tool.name == 'x' &&" }] },
          mcpServers: {},
        },
        null,
        2,
      ),
    );
    const run = await runProcess(process.execPath, [CLI, '--config', file]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(
      "gateway.rules.0.when (line 7): rule 'half': Unexpected token: EOF",
    );
  });
});
