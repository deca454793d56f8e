import { describe, expect, it } from 'vitest';
import { type CallFacts, type RuleConfig, RuleError, RuleSet } from './rules.js';

/** The rules every case of the table runs against. */
const RULES: RuleConfig[] = [
  {
    name: 'contractors-no-shell',
    effect: 'deny',
    when: "'contractors' in identity.groups && tool.backend == 'shell'",
  },
  {
    name: 'no-rm-rf',
    effect: 'deny',
    when: "tool.name == 'shell__run' && args.command.contains('rm -rf')",
  },
  {
    name: 'finance-dept-only',
    effect: 'deny',
    when: "tool.backend == 'ledger' && identity.claims.dept != 'finance'",
  },
  {
    name: 'big-exports-admins',
    effect: 'deny',
    when: "tool.name == 'db__export' && args.limit > 1000 && !('gateway:admin' in identity.scopes)",
  },
  {
    name: 'read-only-server',
    effect: 'deny',
    when: "server == 'readonly' && tool.annotations.readOnlyHint != true",
  },
  { name: 'engineers', effect: 'allow', when: "'eng' in identity.groups" },
  { name: 'ops-scope', effect: 'allow', when: "'ops' in identity.scopes" },
  { name: 'public-docs', effect: 'allow', when: "tool.backend == 'docs'" },
  { name: 'small-queries', effect: 'allow', when: "tool.name == 'db__query' && args.limit <= 100" },
];

const person = (
  subject: string,
  groups: string[] = [],
  scopes: string[] = [],
  claims: Record<string, unknown> = {},
) => ({ subject, groups, scopes, claims });
const tool = (name: string, annotations: Record<string, unknown> = {}) => ({
  name,
  backend: name.split('__')[0] as string,
  original: name.split('__')[1] as string,
  annotations,
});

const ann = person('ann', ['eng']);
const carl = person('carl', ['contractors', 'eng']);
const fay = person('fay', [], [], { dept: 'finance' });
const ned = person('ned', [], [], { dept: 'sales' });
const olga = person('olga', [], ['ops']);
const nobody = person('nobody');
const admin = person('root', ['eng'], ['gateway:admin']);

type Case = [
  label: string,
  who: CallFacts['identity'],
  server: string,
  t: CallFacts['tool'],
  args: Record<string, unknown>,
  call: string,
  list: string,
];

// Each case: the call's decision and the list's, as `allow:<rule>` / `deny:<rule>` /
// `allow:default` / `deny:default` (the default here is deny).
const CASES: Case[] = [
  [
    'engineer calls shell',
    ann,
    '',
    tool('shell__run'),
    { command: 'ls' },
    'allow:engineers',
    'allow:engineers',
  ],
  [
    'engineer rm -rf',
    ann,
    '',
    tool('shell__run'),
    { command: 'rm -rf /' },
    'deny:no-rm-rf',
    'allow:engineers',
  ],
  [
    'engineer rm -rf in a longer line',
    ann,
    '',
    tool('shell__run'),
    { command: 'cd /tmp && rm -rf x' },
    'deny:no-rm-rf',
    'allow:engineers',
  ],
  [
    'contractor shell (also eng)',
    carl,
    '',
    tool('shell__run'),
    { command: 'ls' },
    'deny:contractors-no-shell',
    'deny:contractors-no-shell',
  ],
  [
    'contractor docs',
    carl,
    '',
    tool('docs__search'),
    { q: 'x' },
    'allow:engineers',
    'allow:engineers',
  ],
  [
    'nobody shell',
    nobody,
    '',
    tool('shell__run'),
    { command: 'ls' },
    'deny:default',
    'deny:default',
  ],
  ['nobody docs', nobody, '', tool('docs__search'), {}, 'allow:public-docs', 'allow:public-docs'],
  [
    'ops scope shell',
    olga,
    '',
    tool('shell__run'),
    { command: 'uptime' },
    'allow:ops-scope',
    'allow:ops-scope',
  ],
  [
    'ops scope rm -rf',
    olga,
    '',
    tool('shell__run'),
    { command: 'rm -rf /var' },
    'deny:no-rm-rf',
    'allow:ops-scope',
  ],
  [
    'finance ledger (no group)',
    fay,
    '',
    tool('ledger__balance'),
    {},
    'deny:default',
    'deny:default',
  ],
  [
    'sales ledger',
    ned,
    '',
    tool('ledger__balance'),
    {},
    'deny:finance-dept-only',
    'deny:finance-dept-only',
  ],
  [
    'engineer ledger without a dept claim',
    ann,
    '',
    tool('ledger__balance'),
    {},
    'deny:finance-dept-only',
    'deny:finance-dept-only',
  ],
  [
    'nobody ledger without a dept claim',
    nobody,
    '',
    tool('ledger__balance'),
    {},
    'deny:finance-dept-only',
    'deny:finance-dept-only',
  ],
  [
    'admin ledger without a dept claim',
    admin,
    '',
    tool('ledger__balance'),
    {},
    'deny:finance-dept-only',
    'deny:finance-dept-only',
  ],
  [
    'engineer small export',
    ann,
    '',
    tool('db__export'),
    { limit: 10 },
    'allow:engineers',
    'allow:engineers',
  ],
  [
    'engineer big export',
    ann,
    '',
    tool('db__export'),
    { limit: 5000 },
    'deny:big-exports-admins',
    'allow:engineers',
  ],
  [
    'admin big export',
    admin,
    '',
    tool('db__export'),
    { limit: 5000 },
    'allow:engineers',
    'allow:engineers',
  ],
  [
    'engineer export without limit',
    ann,
    '',
    tool('db__export'),
    {},
    'deny:big-exports-admins',
    'allow:engineers',
  ],
  [
    'engineer export with a string limit',
    ann,
    '',
    tool('db__export'),
    { limit: 'lots' },
    'deny:big-exports-admins',
    'allow:engineers',
  ],
  [
    'engineer export limit exactly 1000',
    ann,
    '',
    tool('db__export'),
    { limit: 1000 },
    'allow:engineers',
    'allow:engineers',
  ],
  [
    'engineer export limit 1000.5',
    ann,
    '',
    tool('db__export'),
    { limit: 1000.5 },
    'deny:big-exports-admins',
    'allow:engineers',
  ],
  [
    'nobody small query',
    nobody,
    '',
    tool('db__query'),
    { limit: 50 },
    'allow:small-queries',
    'allow:small-queries',
  ],
  [
    'nobody big query',
    nobody,
    '',
    tool('db__query'),
    { limit: 500 },
    'deny:default',
    'allow:small-queries',
  ],
  [
    'nobody query without limit',
    nobody,
    '',
    tool('db__query'),
    {},
    'deny:default',
    'allow:small-queries',
  ],
  [
    'nobody query limit 100',
    nobody,
    '',
    tool('db__query'),
    { limit: 100 },
    'allow:small-queries',
    'allow:small-queries',
  ],
  [
    'engineer big query',
    ann,
    '',
    tool('db__query'),
    { limit: 500 },
    'allow:engineers',
    'allow:engineers',
  ],
  [
    'read-only server, read-only tool',
    ann,
    'readonly',
    tool('docs__search', { readOnlyHint: true }),
    {},
    'allow:engineers',
    'allow:engineers',
  ],
  [
    'read-only server, writing tool',
    ann,
    'readonly',
    tool('docs__edit', { readOnlyHint: false }),
    {},
    'deny:read-only-server',
    'deny:read-only-server',
  ],
  [
    'read-only server, unannotated tool',
    ann,
    'readonly',
    tool('docs__edit'),
    {},
    'deny:read-only-server',
    'deny:read-only-server',
  ],
  [
    'read-only server, nobody, docs',
    nobody,
    'readonly',
    tool('docs__search', { readOnlyHint: true }),
    {},
    'allow:public-docs',
    'allow:public-docs',
  ],
  [
    'other server, writing tool',
    ann,
    'team',
    tool('docs__edit'),
    {},
    'allow:engineers',
    'allow:engineers',
  ],
  [
    'read-only server, shell',
    olga,
    'readonly',
    tool('shell__run'),
    { command: 'ls' },
    'deny:read-only-server',
    'deny:read-only-server',
  ],
  [
    'contractor on read-only server docs',
    carl,
    'readonly',
    tool('docs__search', { readOnlyHint: true }),
    {},
    'allow:engineers',
    'allow:engineers',
  ],
  [
    'contractor on read-only server shell',
    carl,
    'readonly',
    tool('shell__run', { readOnlyHint: true }),
    {},
    'deny:contractors-no-shell',
    'deny:contractors-no-shell',
  ],
  [
    'finance person docs',
    fay,
    '',
    tool('docs__search'),
    {},
    'allow:public-docs',
    'allow:public-docs',
  ],
  [
    'sales person shell',
    ned,
    '',
    tool('shell__run'),
    { command: 'ls' },
    'deny:default',
    'deny:default',
  ],
  [
    'ops on ledger with finance claim',
    person('oli', [], ['ops'], { dept: 'finance' }),
    '',
    tool('ledger__balance'),
    {},
    'allow:ops-scope',
    'allow:ops-scope',
  ],
  [
    'ops on ledger with sales claim',
    person('oli', [], ['ops'], { dept: 'sales' }),
    '',
    tool('ledger__balance'),
    {},
    'deny:finance-dept-only',
    'deny:finance-dept-only',
  ],
  [
    'engineer shell with a command that is not text',
    ann,
    '',
    tool('shell__run'),
    { command: 42 },
    'deny:no-rm-rf',
    'allow:engineers',
  ],
  [
    'engineer shell without command',
    ann,
    '',
    tool('shell__run'),
    {},
    'deny:no-rm-rf',
    'allow:engineers',
  ],
  [
    '"rm -rf" in another tool',
    ann,
    '',
    tool('docs__search'),
    { command: 'rm -rf /' },
    'allow:engineers',
    'allow:engineers',
  ],
  ['unknown backend, nobody', nobody, '', tool('misc__thing'), {}, 'deny:default', 'deny:default'],
  ['unknown backend, ops', olga, '', tool('misc__thing'), {}, 'allow:ops-scope', 'allow:ops-scope'],
];

const said = (d: { allowed: boolean; rule: string | null }) =>
  `${d.allowed ? 'allow' : 'deny'}:${d.rule ?? 'default'}`;

describe('the rule table', () => {
  const rules = RuleSet.compile(RULES, 'deny');
  it(`has at least 40 cases (${CASES.length})`, () => {
    expect(CASES.length).toBeGreaterThanOrEqual(40);
  });
  it.each(CASES)('%s', (_label, identity, server, t, args, call, list) => {
    expect(said(rules.decide({ identity, server, tool: t, args }))).toBe(call);
    const listed = rules.listable({ identity, server, tool: t });
    expect(said(listed)).toBe(list);
    // A tool that is not listed is never callable, whatever the arguments.
    if (!listed.allowed)
      expect(rules.decide({ identity, server, tool: t, args }).allowed).toBe(false);
  });
});

describe('compiling rules', () => {
  it('refuses a rule that does not parse, or that is not a condition, naming it and saying why', () => {
    const failure = (rules: RuleConfig[]) => {
      try {
        RuleSet.compile(rules);
      } catch (err) {
        return RuleError.is(err) ? `${err.index}: ${err.message}` : String(err);
      }
      return 'compiled';
    };
    expect(
      failure([
        { name: 'ok', effect: 'allow', when: 'true' },
        { name: 'half', effect: 'deny', when: "tool.name == 'x' &&" },
      ]),
    ).toMatch(/^1: rule 'half': Unexpected token: EOF/);
    expect(failure([{ name: 'text', effect: 'deny', when: "'not a condition'" }])).toBe(
      "0: rule 'text': is a string, not a condition (bool)",
    );
    expect(failure([{ name: 'fn', effect: 'deny', when: 'nosuch(1)' }])).toMatch(/^0: rule 'fn': /);
  });

  it("'args' inside a string is not a reference to the arguments", () => {
    const rules = RuleSet.compile([
      { name: 'literal', effect: 'deny', when: "tool.name == 'args'" },
    ]);
    const facts = { identity: person('x'), server: '', tool: tool('a__args') };
    // Decided at list time like any rule that does not read the arguments.
    expect(rules.listable({ ...facts, tool: { ...facts.tool, name: 'args' } }).allowed).toBe(false);
  });
});
