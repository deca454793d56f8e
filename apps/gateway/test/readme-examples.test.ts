/**
 * The README's governance and team examples, as copied: each JSON block of "Virtual servers",
 * "Rules", "Quotas", "Hooks" and "Each person's own credentials" is a config the gateway takes,
 * the Hooks example module is a hook that refuses as it says, the
 * Virtual servers example lists what its prose says over this repository's apps, and the Rules
 * example decides as its prose says.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { killSpawned, removeTempDirs, tempDir } from '@mcpkit/testing';
import { afterAll, describe, expect, it } from 'vitest';
import { isRegistry, parseConfig } from '../src/config.js';
import { defaultRawConfig } from '../src/config-file.js';
import { loadHooks } from '../src/governance/hooks.js';
import { RuleSet } from '../src/governance/rules.js';
import { GATEWAY_DIR, startInProcess } from './helpers.js';

afterAll(() => {
  killSpawned();
  removeTempDirs();
});

const README = readFileSync(`${GATEWAY_DIR}/README.md`, 'utf8');

/** The JSON blocks of the section headed `heading` (up to the next heading of its level or above). */
function blocksOf(heading: string): unknown[] {
  const start = README.indexOf(`${heading}\n`);
  expect(start, heading).toBeGreaterThanOrEqual(0);
  const level = heading.split(' ')[0] as string;
  const rest = README.slice(start + heading.length);
  const end = rest.search(new RegExp(`\\n#{1,${level.length}} `));
  const section = end === -1 ? rest : rest.slice(0, end);
  return [...section.matchAll(/```json\n([\s\S]*?)```/g)].map((m) => JSON.parse(m[1] as string));
}

const ENV = { TICKETS_LISTING_KEY: 'x', LINEAR_LISTING_TOKEN: 'y' };
// A user list the examples elide with "…": one real entry in its place.
const USER = {
  username: 'alice',
  password_hash: `scrypt$16384$8$1$${'A'.repeat(22)}$${'B'.repeat(43)}`,
};
const withUsers = (config: unknown) =>
  JSON.parse(
    JSON.stringify(config).replaceAll('"users":["…"]', `"users":[${JSON.stringify(USER)}]`),
  );

describe('README examples', () => {
  it('Rules: the config is taken, and decides as the text says', () => {
    const [example] = blocksOf('## Rules');
    const config = parseConfig(example, ENV);
    const rules = RuleSet.compile(config.gateway.rules ?? [], config.gateway.rules_default);
    const who = (groups: string[], claims: Record<string, unknown> = {}) => ({
      subject: 's',
      scopes: [],
      groups,
      claims,
    });
    const tool = (name: string) => ({
      name,
      backend: name.split('__')[0] as string,
      original: name.split('__')[1] as string,
      annotations: {},
    });
    const decide = (identity: ReturnType<typeof who>, name: string, args = {}) =>
      rules.decide({ identity, server: '', tool: tool(name), args });
    expect(decide(who(['eng']), 'shell__run', { command: 'rm -rf /' })).toEqual({
      allowed: false,
      rule: 'no-rm-rf',
    });
    expect(decide(who(['eng']), 'shell__run', { command: 'ls' }).allowed).toBe(true);
    expect(decide(who(['eng']), 'ledger__balance')).toEqual({
      allowed: false,
      rule: 'finance-only',
    });
    expect(decide(who(['eng'], { dept: 'finance' }), 'ledger__balance').allowed).toBe(true);
    expect(decide(who([]), 'docs__search')).toEqual({ allowed: true, rule: 'docs-for-all' });
    expect(decide(who([]), 'shell__run', { command: 'ls' })).toEqual({
      allowed: false,
      rule: null,
    });
    // A call the rule cannot read (no command) fails closed.
    expect(decide(who(['eng']), 'shell__run')).toEqual({ allowed: false, rule: 'no-rm-rf' });
  });

  it("Virtual servers: the example lists what its prose says, over this repository's apps", async () => {
    const [example] = blocksOf('## Virtual servers') as [
      { gateway: { servers: unknown }; mcpServers: Record<string, { namespace?: string }> },
    ];
    parseConfig(example);
    // The example's backends are the apps the gateway starts by default: run those.
    const apps = defaultRawConfig({
      ...process.env,
      DATABASE_URL: join(tempDir('gw-readme-'), 'projects.db'),
    }) as { mcpServers: Record<string, { namespace?: string }> };
    expect(Object.keys(apps.mcpServers).sort()).toEqual(Object.keys(example.mcpServers).sort());
    expect(apps.mcpServers['system-info']?.namespace).toBe(
      example.mcpServers['system-info']?.namespace,
    );
    const gw = await startInProcess({ gateway: example.gateway, mcpServers: apps.mcpServers });
    try {
      const design = gw.gateway.virtual.get('design');
      expect([...(design?.tools.keys() ?? [])].sort()).toEqual([
        'cpu',
        'projects__get_design_system',
        'projects__list_assets',
        'projects__list_blocks',
        'projects__list_design_token_versions',
        'projects__list_projects',
      ]);
      expect(design?.tools.get('cpu')?.entry).toMatchObject({
        description: 'The processor of this machine: model, cores, speed',
        annotations: { readOnlyHint: true },
      });
      const ops = [...(gw.gateway.virtual.get('ops')?.tools.keys() ?? [])];
      expect(ops.length).toBeGreaterThan(5);
      expect(ops.every((name) => name.startsWith('sysinfo__'))).toBe(true);
    } finally {
      await gw.stop();
    }
  }, 60_000);

  it('Hooks: the config is taken, and the example module is a hook that refuses as it says', async () => {
    const [example] = blocksOf('## Hooks');
    expect(parseConfig(example).gateway.hooks?.map((h) => ('use' in h ? h.use : h.module))).toEqual(
      ['redact', 'size_caps', './hooks/no-prod.mjs'],
    );
    const module = /```js\n([\s\S]*?)```/.exec(README.slice(README.indexOf('## Hooks\n')))?.[1];
    const dir = tempDir('gw-readme-hook-');
    mkdirSync(join(dir, 'hooks'));
    writeFileSync(join(dir, 'hooks', 'no-prod.mjs'), module ?? '');
    const [, , own] = await loadHooks(parseConfig(example).gateway.hooks ?? [], dir);
    const call = (args: Record<string, unknown>) => ({
      tool: 'shell__run',
      backend: 'shell',
      original: 'run',
      server: '',
      subject: 'alice',
      args,
    });
    expect(own?.tools).toEqual(['shell__*']);
    expect(() => own?.hook.before?.(call({ command: 'deploy prod' }))).toThrow('not on prod');
    expect(own?.hook.before?.(call({ command: 'ls' }))).toBeUndefined();
  });

  it('Quotas: the config is taken', () => {
    const [example] = blocksOf('## Quotas');
    expect(parseConfig(example, ENV).gateway.quotas?.map((q) => q.name)).toEqual([
      'search-budget',
      'github-all',
    ]);
  });

  it('Backends from an MCP Registry and the gateway as a registry: the configs are taken', () => {
    const [install] = blocksOf('## Backends from an MCP Registry');
    const env = { ...ENV, WEATHER_API_KEY: 'k', TEAM_GATEWAY_TOKEN: 't' };
    const backends = parseConfig(install, env).mcpServers;
    expect(Object.values(backends).map((b) => isRegistry(b))).toEqual([true, true, true]);
    const [serve] = blocksOf('## The gateway as a registry');
    expect(parseConfig(serve, ENV).gateway.registry?.namespace).toBe('io.github.acme');
  });

  it("Each person's own credentials: the config is taken, every backend personal", () => {
    const [example] = blocksOf("### Each person's own credentials to a backend");
    const config = parseConfig(withUsers(example), ENV);
    expect(Object.values(config.mcpServers).map((b) => b.credential?.type)).toEqual([
      'header',
      'oauth',
      'env',
    ]);
  });
});
