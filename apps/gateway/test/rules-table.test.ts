/**
 * The rules' decision table (issue #30's acceptance): identities × virtual servers × tools ×
 * argument predicates, allow and deny rules that overlap, a rule on a claim some people lack —
 * each case's expected outcome, over both eras, over HTTP (people signed in with their
 * organisation's tokens: groups and claims) and over stdio (nobody). For every case the list
 * agrees with the call: a tool is listed exactly when some call of it would be allowed.
 */

import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type McpClient, RpcError } from '@mcpkit/protocol';
import {
  type HttpProcess,
  killSpawned,
  removeTempDirs,
  type SpawnedServer,
  spawnServer,
  startAuthorizationServer,
  type TestAuthorizationServer,
  tempDir,
} from '@mcpkit/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backend, CLI, spawnHttpGateway } from './helpers.js';

const RULES = [
  {
    name: 'no-shouting',
    effect: 'deny',
    when: "tool.original == 'echo' && args.text.contains('!')",
  },
  {
    name: 'big-only-finance',
    effect: 'deny',
    when: "tool.original == 'big' && identity.claims.dept != 'finance'",
  },
  {
    name: 'ops-no-long-sleep',
    effect: 'deny',
    when: "server == 'ops' && tool.original == 'sleep' && args.ms > 100",
  },
  {
    name: 'bob-off-design',
    effect: 'deny',
    when: "server == 'design' && identity.subject == 'bob'",
  },
  { name: 'engineers', effect: 'allow', when: "'eng' in identity.groups" },
  { name: 'echo-for-all', effect: 'allow', when: "tool.original == 'echo'" },
  { name: 'design-who', effect: 'allow', when: "server == 'design' && tool.original == 'who'" },
  {
    name: 'finance-big',
    effect: 'allow',
    when: "tool.original == 'big' && identity.claims.dept == 'finance'",
  },
];
const CONFIG = {
  gateway: {
    rules: RULES,
    rules_default: 'deny',
    servers: { ops: { tools: ['*/*'] }, design: { tools: ['rich/*'] } },
  },
  mcpServers: { rich: backend('rich'), other: backend('rich', {}, ['--name', 'other']) },
};

/** The people of the organisation's identity provider: their groups and claims. */
const PEOPLE = {
  alice: { groups: ['eng'], dept: 'finance' },
  bob: { groups: [] },
  carol: { groups: ['eng'] },
  dave: { groups: [], dept: 'finance' },
} as const;
type Who = keyof typeof PEOPLE | 'nobody';
type Server = '' | 'ops' | 'design';

/** `ok`, a rule's name (refused by it), `default` (no rule allows), `unknown` (not on that server). */
type Expected = 'ok' | 'default' | 'unknown' | (typeof RULES)[number]['name'];
type Case = [Who, Server, string, Record<string, unknown>, Expected];

const hi = { text: 'hi' };
const shout = { text: 'hi!' };
const CASES: Case[] = [
  ['alice', '', 'rich__echo', hi, 'ok'],
  ['alice', '', 'rich__echo', shout, 'no-shouting'],
  ['alice', '', 'rich__big', { mb: 0 }, 'ok'],
  ['alice', '', 'rich__sleep', { ms: 1 }, 'ok'],
  ['alice', 'ops', 'rich__sleep', { ms: 500 }, 'ops-no-long-sleep'],
  ['alice', 'ops', 'rich__sleep', { ms: 50 }, 'ok'],
  ['alice', 'design', 'rich__who', {}, 'ok'],
  ['alice', 'design', 'rich__echo', { text: 'x!' }, 'no-shouting'],
  ['alice', '', 'rich__who', {}, 'ok'],
  ['alice', 'ops', 'rich__big', { mb: 0 }, 'ok'],
  ['alice', 'ops', 'other__echo', hi, 'ok'],
  ['alice', 'design', 'rich__big', { mb: 0 }, 'ok'],
  ['bob', '', 'rich__echo', hi, 'ok'],
  ['bob', '', 'rich__echo', { text: 'yo!' }, 'no-shouting'],
  ['bob', '', 'rich__who', {}, 'default'],
  ['bob', '', 'rich__big', { mb: 0 }, 'big-only-finance'],
  ['bob', '', 'rich__sleep', { ms: 1 }, 'default'],
  ['bob', 'design', 'rich__echo', hi, 'bob-off-design'],
  ['bob', 'design', 'rich__who', {}, 'bob-off-design'],
  ['bob', 'design', 'rich__sleep', { ms: 1 }, 'bob-off-design'],
  ['bob', 'ops', 'rich__echo', hi, 'ok'],
  ['bob', 'ops', 'rich__sleep', { ms: 500 }, 'ops-no-long-sleep'],
  ['bob', 'ops', 'rich__who', {}, 'default'],
  ['bob', 'ops', 'other__echo', { text: 'hey!' }, 'no-shouting'],
  ['bob', '', 'other__echo', hi, 'ok'],
  ['carol', '', 'rich__big', { mb: 0 }, 'big-only-finance'],
  ['carol', '', 'rich__who', {}, 'ok'],
  ['carol', 'design', 'rich__who', {}, 'ok'],
  ['carol', 'design', 'rich__big', { mb: 0 }, 'big-only-finance'],
  ['carol', 'ops', 'rich__sleep', { ms: 101 }, 'ops-no-long-sleep'],
  ['carol', 'ops', 'rich__sleep', { ms: 100 }, 'ok'],
  ['carol', '', 'rich__echo', { text: 'fine' }, 'ok'],
  ['carol', 'design', 'rich__sleep', { ms: 1 }, 'ok'],
  ['carol', 'design', 'other__echo', hi, 'unknown'],
  ['dave', '', 'rich__big', { mb: 0 }, 'ok'],
  ['dave', '', 'rich__who', {}, 'default'],
  ['dave', 'design', 'rich__who', {}, 'ok'],
  ['dave', 'design', 'rich__big', { mb: 0 }, 'ok'],
  ['dave', 'ops', 'rich__big', { mb: 0 }, 'ok'],
  ['dave', 'ops', 'rich__echo', { text: 'a!' }, 'no-shouting'],
  ['dave', '', 'rich__sleep', { ms: 1 }, 'default'],
  ['dave', 'design', 'rich__echo', { text: 'quiet' }, 'ok'],
  ['dave', '', 'other__echo', { text: '!' }, 'no-shouting'],
  ['dave', 'ops', 'rich__who', {}, 'default'],
  // Nobody: over stdio (no identity — no groups, no claims).
  ['nobody', '', 'rich__echo', hi, 'ok'],
  ['nobody', '', 'rich__echo', shout, 'no-shouting'],
  ['nobody', '', 'rich__who', {}, 'default'],
  ['nobody', '', 'rich__big', { mb: 0 }, 'big-only-finance'],
  ['nobody', 'design', 'rich__who', {}, 'ok'],
  ['nobody', 'design', 'rich__echo', hi, 'ok'],
  ['nobody', 'ops', 'rich__sleep', { ms: 500 }, 'ops-no-long-sleep'],
  ['nobody', 'ops', 'rich__sleep', { ms: 5 }, 'default'],
];

/** Arguments every rule on arguments lets through: what a tool "could be called with". */
const BENIGN: Record<string, Record<string, unknown>> = {
  echo: hi,
  sleep: { ms: 1 },
  big: { mb: 0 },
  who: {},
};

const ERAS = ['legacy', 'auto'] as const;
const pathOf = (server: Server) => (server === '' ? '/mcp' : `/servers/${server}/mcp`);

let as: TestAuthorizationServer;
let gw: HttpProcess;
beforeAll(async () => {
  as = await startAuthorizationServer();
  gw = await spawnHttpGateway({
    ...CONFIG,
    gateway: { ...CONFIG.gateway, oauth: { issuer: as.issuer } },
  });
});
afterAll(async () => {
  await gw?.stop();
  await as?.close();
  killSpawned();
  removeTempDirs();
});

const outcome = (client: McpClient, name: string, args: Record<string, unknown>) =>
  client.callTool(name, args).then(
    (r) => (r.isError ? 'tool-error' : 'ok'),
    (err: unknown) => {
      if (!RpcError.is(err)) return String(err);
      const rule = /refused by rule '([^']+)'/.exec(err.message)?.[1];
      if (rule) return rule;
      if (/refused: no rule allows it/.test(err.message)) return 'default';
      if (/Unknown tool|Tool not found/.test(err.message)) return 'unknown';
      return `${err.code} ${err.message}`;
    },
  );

/** Check one client against the cases of its identity and server. */
async function checkCases(client: McpClient, cases: Case[]): Promise<void> {
  const listed = new Set((await client.listTools()).map((t) => t.name));
  for (const [who, server, tool, args, expected] of cases) {
    const label = `${who} @ ${server || '/mcp'}: ${tool} ${JSON.stringify(args)}`;
    expect(await outcome(client, tool, args), label).toBe(expected);
    // The list agrees: listed exactly when some call (the benign one) is allowed.
    const original = tool.split('__')[1] as string;
    const benign = await outcome(client, tool, BENIGN[original] ?? {});
    expect(listed.has(tool), `${label}: listed`).toBe(benign === 'ok');
  }
}

describe.each(ERAS)('the rules table over HTTP (%s)', (protocol) => {
  const people = Object.keys(PEOPLE) as (keyof typeof PEOPLE)[];
  it.each(people)('decides every case of %s as expected, lists agreeing', async (who) => {
    for (const server of ['', 'ops', 'design'] as const) {
      const cases = CASES.filter(([w, s]) => w === who && s === server);
      if (cases.length === 0) continue;
      const token = await as.sign({
        sub: who,
        aud: `${gw.url}${pathOf(server)}`,
        scope: '',
        ...PEOPLE[who],
      });
      const client = await gw.connect({
        protocol,
        path: pathOf(server),
        headers: { Authorization: `Bearer ${token}` },
      });
      try {
        await checkCases(client, cases);
      } finally {
        await client.close();
      }
    }
  });
});

describe.each(ERAS)('the rules table over stdio (%s)', (protocol) => {
  let dir: string;
  beforeAll(() => {
    dir = tempDir('gw-rules-table-');
    writeFileSync(join(dir, 'gateway.json'), JSON.stringify(CONFIG));
  });
  it.each(['', 'ops', 'design'] as const)(
    "decides nobody's cases at '%s' as expected",
    async (server) => {
      const cases = CASES.filter(([w, s]) => w === 'nobody' && s === server);
      let spawned: SpawnedServer | undefined;
      try {
        spawned = await spawnServer(
          process.execPath,
          [
            CLI,
            '--config',
            join(dir, 'gateway.json'),
            '--events',
            join(dir, `events-${server || 'all'}-${protocol}.db`),
            ...(server ? ['--server', server] : []),
          ],
          { client: { protocol } },
        );
        await checkCases(spawned.client, cases);
      } finally {
        await spawned?.close();
      }
    },
  );
});

it('has at least 40 cases, covering every rule and the default, allow and deny', () => {
  expect(CASES.length).toBeGreaterThanOrEqual(40);
  const decided = new Set(CASES.map((c) => c[4]));
  for (const rule of RULES.filter((r) => r.effect === 'deny')) expect(decided).toContain(rule.name);
  expect(decided).toContain('default');
  expect(decided).toContain('ok');
});
