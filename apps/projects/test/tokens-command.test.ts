// @module-tag process
/**
 * `mcp-projects tokens validate`: the stored design tokens of every project (or one) checked
 * against today's rules by the built CLI — it reports, one line per project and per problem,
 * exits 1 when a document has problems, and rewrites nothing. Needs `pnpm build` first.
 */
import { join } from 'node:path';
import { removeTempDirs, runProcess, tempDir } from '@mcpkit/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../src/db/store.js';
import type { Store } from '../src/db/types.js';
import { defaultTokens } from '../src/dtcg.js';
import { CLI, cleanEnv, requireCli } from './helpers.js';

let store: Store;
let file: string;
const ids: Record<string, string> = {};

/** Written straight to the store, past the tools' checks, as an older server may have. */
const STALE = {
  color: {
    $type: 'color',
    // A 3-digit hex: not a 2025.10 colour fallback.
    ink: { $value: { colorSpace: 'srgb', components: [0, 0, 0], hex: '#000' } },
  },
  spacing: { sm: { $value: { value: 4, unit: 'px' } } },
};

beforeAll(async () => {
  file = join(tempDir('projects-tokens-cli-'), 'projects.db');
  store = await openStore(file);
  const user = await store.createUser('tokens@example.com');
  for (const name of ['fresh', 'valid', 'stale', 'modes']) {
    ids[name] = (await store.createProject(user.id, { name })).id;
  }
  await store.setDesignSystem(ids.valid as string, defaultTokens());
  await store.setDesignSystem(ids.stale as string, STALE);
  await store.setDesignSystem(ids.modes as string, defaultTokens(), {
    resolver: {
      version: '2025.10',
      resolutionOrder: [
        {
          type: 'modifier',
          name: 'theme',
          contexts: { light: [], dark: [{ color: { action: { $value: '{color.nowhere}' } } }] },
          default: 'light',
        },
      ],
    },
  });
});

afterAll(async () => {
  await store.close();
  removeTempDirs();
});

async function validate(...args: string[]) {
  requireCli();
  return runProcess(process.execPath, [CLI, 'tokens', 'validate', ...args], {
    env: cleanEnv({ DATABASE_URL: file, LOG_LEVEL: 'error' }),
    inheritEnv: false,
    timeoutMs: 30_000,
  });
}

describe('tokens validate', () => {
  it('reports every project, each problem with its path, and exits 1', async () => {
    const run = await validate();
    expect(run.code, run.stderr).toBe(1);
    const lines = run.stdout.trim().split('\n');
    expect(lines).toContain(`${ids.fresh}  ok  (starter tokens, never written)`);
    expect(lines).toContain(`${ids.valid}  ok  (version 1)`);
    expect(lines).toContain(`${ids.stale}  2 problems  (version 1)`);
    expect(lines).toContain('  color.ink: hex is a 6-digit CSS hex colour, e.g. #ff00aa');
    expect(lines).toContain('  spacing.sm: no $type: give the token or a group above it one');
    expect(lines).toContain(`${ids.modes}  1 problem  (version 1)`);
    expect(lines).toContain(
      '  color.action: in mode theme=dark: references {color.nowhere}, which does not exist',
    );
    expect(lines.at(-1)).toBe('2 of 4 token documents valid');
  });

  it('checks one project; reports without rewriting', async () => {
    const valid = await validate(ids.valid as string);
    expect(valid.code, valid.stderr).toBe(0);
    expect(valid.stdout).toBe(`${ids.valid}  ok  (version 1)\n1 of 1 token documents valid\n`);
    const stale = await validate(ids.stale as string);
    expect(stale.code).toBe(1);
    // Nothing was written: the same version, the same document.
    expect(await store.getDesignSystem(ids.stale as string)).toMatchObject({
      version: 1,
      tokens: STALE,
    });
  });

  it('refuses a project that does not exist, as a usage error', async () => {
    const run = await validate('proj_doesnotexist');
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('no project proj_doesnotexist');
    expect(run.stdout).toBe('');
  });
});
