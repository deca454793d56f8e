// @module-tag process
/**
 * Each app's `bin` is a committed shim (`bin/<command>.js`) that runs `dist/cli.js`: `pnpm install`
 * links it on a fresh clone before anything is built (a bin pointing into `dist/` printed a
 * "Failed to create bin" warning per app and dependent), and run before a build it says what to do.
 */
import { copyFileSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { runProcess, tempDir } from '@mcpkit/testing';
import { describe, expect, it } from 'vitest';
import { REPO } from './helpers.js';

const APPS = [
  ['gateway', 'mcp-gateway'],
  ['projects', 'mcp-projects'],
  ['system-info', 'mcp-system-info'],
] as const;

describe.each(APPS)('the %s bin', (app, command) => {
  const dir = join(REPO, 'apps', app);
  const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as {
    version: string;
    bin: Record<string, string>;
    files: string[];
  };
  const shim = join(dir, 'bin', `${command}.js`);

  it('is a committed, executable shim outside dist/, published with the package', () => {
    expect(manifest.bin).toEqual({ [command]: `./bin/${command}.js` });
    expect(manifest.files).toContain('bin');
    expect(readFileSync(shim, 'utf8').split('\n')[0]).toBe('#!/usr/bin/env node');
    expect(statSync(shim).mode & 0o111).not.toBe(0);
  });

  it('runs dist/cli.js with its arguments', async () => {
    const version = await runProcess(process.execPath, [shim, '--version'], { timeoutMs: 20_000 });
    expect(version).toMatchObject({ code: 0, stdout: `${manifest.version}\n` });
    const bogus = await runProcess(process.execPath, [shim, '--bogus'], { timeoutMs: 20_000 });
    expect(bogus.code).toBe(2);
    expect(bogus.stderr).toContain(`${command}: Unknown option '--bogus'\n`);
  });

  it('says to build first when dist/ is missing', async () => {
    const root = tempDir(`shim-${app}-`);
    mkdirSync(join(root, 'bin'));
    const copy = join(root, 'bin', `${command}.js`);
    copyFileSync(shim, copy);
    const { code, stdout, stderr } = await runProcess(process.execPath, [copy, '--help'], {
      timeoutMs: 20_000,
    });
    expect(code).toBe(1);
    expect(stdout).toBe('');
    expect(stderr).toBe(
      `${command}: ${join(root, 'dist', 'cli.js')} is missing: build first (npx -y pnpm@10.34.8 build)\n`,
    );
  });
});
