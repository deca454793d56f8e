/**
 * The READMEs' commands and client configs work as copied (#18 items 16–18): the packages are not
 * on npm yet, so every "Run it" and Claude Desktop / Cursor block leads with the checkout's
 * `node …/dist/cli.js` (absolute in client configs: a client starts servers from a directory of
 * its own; the gateway's configs start its bin, which runs the bundled CLI over stdio), npx is "once published", pnpm runs through `npx -y pnpm@10.34.8` as in the Quick
 * start, and the root README never registers the gateway beside the servers it already brings.
 * The Quick start's `start` says on stderr that it is building before a cold build (#37 item 8).
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { TOKEN_LIMITS } from '@mcpkit/projects';
import { describe, expect, it } from 'vitest';
import { REPO } from './helpers.js';

const READMES = [
  'README.md',
  'apps/gateway/README.md',
  'apps/projects/README.md',
  'apps/system-info/README.md',
  'packages/protocol/README.md',
  'packages/node/README.md',
  'packages/fleet/README.md',
  'packages/observability/README.md',
  'packages/testing/README.md',
  'examples/README.md',
  'e2e/README.md',
  'deploy/README.md',
];
const APPS = ['apps/gateway/README.md', 'apps/projects/README.md', 'apps/system-info/README.md'];

/** Fenced code blocks: their language and lines. */
function blocks(text: string): { lang: string; lines: string[] }[] {
  return [...text.matchAll(/^```(\w*)\n([\s\S]*?)^```$/gm)].map((m) => ({
    lang: m[1] ?? '',
    lines: (m[2] ?? '').split('\n'),
  }));
}

const read = (file: string) => readFileSync(join(REPO, file), 'utf8');

/**
 * pnpm named, not given to run: what the Publishing table's scripts run, and the root README's
 * note that with pnpm installed `pnpm build` … is the same.
 */
const DESCRIBED = [
  '`pnpm publish`',
  '`pnpm -r publish --dry-run --no-git-checks`',
  '`pnpm pack`',
  '`pnpm build`',
  '`pnpm test`',
];

describe.each(READMES)('%s', (file) => {
  const text = read(file);

  it('runs pnpm the way the Quick start does', () => {
    const shLines = blocks(text)
      .filter((b) => b.lang === 'sh')
      .flatMap((b) => b.lines);
    // `pnpm …` as a command (after env assignments or `&&`), never `npx -y pnpm@…`.
    expect(shLines.filter((l) => /(^|&&\s*|^(\w+=\S*\s+)+)pnpm\s/.test(l.trim()))).toEqual([]);
    const spans = [...text.matchAll(/`pnpm [^`]*`/g)].map((m) => m[0]);
    expect(spans.filter((s) => !DESCRIBED.includes(s))).toEqual([]);
  });

  it('marks npx of an @mcpkit package as "once published"', () => {
    for (const block of blocks(text)) {
      const at = block.lines.findIndex((l) => /npx (-y )?@mcpkit\//.test(l));
      if (at === -1) continue;
      const before = block.lines.slice(0, at).join('\n');
      expect(before, block.lines.join('\n')).toMatch(/once published/);
    }
    // In prose, the same (but in the root README's Publishing section, which is about npm).
    const prose = text.split('\n## Publishing')[0] ?? '';
    for (const m of prose.matchAll(/npx[^.]{0,40}@mcpkit\/[\w-]+/g)) {
      const around = prose.slice(Math.max(0, (m.index ?? 0) - 300), (m.index ?? 0) + 200);
      expect(around, m[0]).toMatch(/once (the packages are )?published/i);
    }
  });

  it('gives MCP clients absolute paths to a checkout, never npx', () => {
    for (const block of blocks(text).filter((b) => b.lang === 'json')) {
      const json = block.lines.join('\n');
      if (!json.includes('"mcpServers"')) continue;
      const config = JSON.parse(json) as {
        gateway?: unknown;
        mcpServers: Record<string, { command?: string; args?: string[] }>;
      };
      // The gateway's own config format, whose backends may well be npx commands or URLs — in the
      // gateway's README or another's (system-info's "Many hosts"). One that starts mcpkit's own
      // apps with node is held to the rule like any client config.
      const startsNode = Object.values(config.mcpServers).some((s) => s.command === 'node');
      // Backends by registry entry exist only in the gateway's format.
      const fromRegistry = Object.values(config.mcpServers).some(
        (s) => 'registry' in s || 'server_json' in s,
      );
      if (!startsNode && ('gateway' in config || fromRegistry)) continue;
      for (const [name, server] of Object.entries(config.mcpServers)) {
        expect(server.command, `${file} ${name}`).toBe('node');
        const script = server.args?.[0] ?? '';
        // The gateway by its bin: over stdio that runs its bundled CLI, which starts sooner.
        expect(script, `${file} ${name}`).toMatch(
          /^\/path\/to\/mcpkit\/apps\/([\w-]+\/dist\/cli|gateway\/bin\/mcp-gateway)\.js$/,
        );
      }
    }
  });
});

describe('client configs', () => {
  it('the root README shows the gateway alone, or the two servers, never all three at once', () => {
    const configs = blocks(read('README.md'))
      .filter((b) => b.lang === 'json')
      .map(
        (b) => JSON.parse(b.lines.join('\n')) as { mcpServers: Record<string, { args: string[] }> },
      )
      .map((c) => Object.values(c.mcpServers).map((s) => s.args[0]?.split('/').at(-3)));
    expect(configs).toEqual([['gateway'], ['system-info', 'projects']]);
  });

  it.each(APPS)('%s leads "Run it" with the checkout, then npx once published', (file) => {
    const text = read(file);
    const run = text.slice(
      text.indexOf('## Run it'),
      text.indexOf('\n## ', text.indexOf('## Run it') + 1),
    );
    const commands = (blocks(run)[0]?.lines ?? []).filter((l) => l && !l.startsWith('#'));
    expect(commands[0]).toMatch(/^node apps\/[\w-]+\/dist\/cli\.js/);
    const firstNpx = commands.findIndex((l) => l.startsWith('npx @mcpkit/'));
    const lastNode = commands.map((l) => l.startsWith('node ')).lastIndexOf(true);
    expect(firstNpx).toBeGreaterThan(lastNode);
    // The Claude Desktop / Cursor block that follows is for a checkout as well.
    expect(run).toMatch(/"command": "node"/);
  });

  it('no README example puts the system-info token on a command line', () => {
    for (const file of READMES) {
      const shLines = blocks(read(file))
        .filter((b) => b.lang === 'sh')
        .flatMap((b) => b.lines);
      expect(
        shLines.filter((l) => /--token\s/.test(l)),
        file,
      ).toEqual([]);
    }
  });
});

describe("the Quick start's `start` (root package.json)", () => {
  it('says on stderr that it is building before the build (a cold one is minutes of silence)', () => {
    const { scripts } = JSON.parse(read('package.json')) as { scripts: Record<string, string> };
    const steps = (scripts.start ?? '').split('&&').map((step) => step.trim());
    const build = steps.findIndex((step) =>
      /^(turbo run build|pnpm( -r)? (run )?build)\b/.test(step),
    );
    expect(build, scripts.start).toBeGreaterThan(0);
    // What runs before the build, run as the script runs it: a line on stderr, nothing on stdout.
    const before = spawnSync('sh', ['-c', steps.slice(0, build).join(' && ')], {
      cwd: REPO,
      encoding: 'utf8',
    });
    expect(before.status, before.stderr).toBe(0);
    expect(before.stdout).toBe('');
    expect(before.stderr).toMatch(/\bbuilding\b/);
  });
});

describe("packages/protocol/README.md's Limits table (#38: every limit)", () => {
  const text = read('packages/protocol/README.md');
  const at = text.indexOf('## Limits');
  const limits = text.slice(at, text.indexOf('\n## ', at + 1));
  /** The cells of the row whose `where` names `where`. */
  const row = (where: string): string[] =>
    (limits.split('\n').find((l) => l.startsWith('| ') && l.includes(where)) ?? '')
      .split(' | ')
      .map((cell) => cell.replace(/^\|/, '').replace(/\|$/, '').trim());

  it('says who a caller is without auth: over HTTP, its address and `clientInfo.name`', () => {
    const intro = limits.slice(0, limits.indexOf('\n|')).replace(/\s+/g, ' ');
    expect(intro).toContain(
      'without auth, over HTTP, its remote address and its `clientInfo.name`',
    );
    expect(intro).not.toMatch(/without auth, its connection or address/);
  });

  it("lists the gateway status page's logins and live streams with page.ts's defaults", () => {
    const page = read('apps/gateway/src/status/page.ts');
    const byDefault = (option: string) =>
      Number(new RegExp(`options\\.${option} \\?\\? (\\d+)`).exec(page)?.[1]).toLocaleString('en');
    for (const [perCaller, global, refused] of [
      ['maxSessionsPerCaller', 'maxSessions', '429'],
      ['maxStreamsPerCaller', 'maxStreams', '503'],
    ] as const) {
      const [, where, scope, value, atLimit] = row(`\`${perCaller}\` / \`${global}\``);
      expect(where, perCaller).toMatch(/^G `statusPage`/);
      expect(scope).toMatch(/^per caller .*\/ global$/);
      expect(value).toMatch(new RegExp(`^${byDefault(perCaller)} / ${byDefault(global)}\\b`));
      expect(atLimit).toContain(refused);
    }
  });

  it("lists projects' HTTP body limit: 2 MiB, 413", () => {
    expect(read('apps/projects/src/server.ts')).toContain(
      'export const MAX_REQUEST_BYTES = 2 * TOKEN_LIMITS.bytes;',
    );
    expect(2 * TOKEN_LIMITS.bytes).toBe(2 * 1024 * 1024);
    const [, , scope, value, atLimit] = row('J `MAX_REQUEST_BYTES`');
    expect([scope, value, atLimit?.slice(0, 3)]).toEqual(['per request', '2 MiB', '413']);
  });
});
