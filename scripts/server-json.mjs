#!/usr/bin/env node
// @ts-check
/**
 * `node scripts/server-json.mjs [--check]`: each app's `server.json` (the MCP Registry's
 * description of it, schema 2025-12-11) kept in step with the app itself. The hand-written parts
 * — name, description, repository, the `remotes` template of the HTTP form — stay as written; the
 * parts that would drift are rewritten from the package and the built CLI: `version` (the
 * package's), the npm package entry, and one `packageArguments` entry per flag and one
 * `environmentVariables` entry per variable the CLI's `--help` lists.
 *
 * A switch (a flag without a value, `--enable-sensitive`) is listed by its variable only: a
 * registry client passes a named argument as `--flag <value>`, which a switch refuses.
 *
 * `--check` writes nothing and exits 1 when a file is not what it would write (the test in
 * e2e/test/server-json.test.ts checks the files against the schema and the CLIs as well).
 * Needs the apps built (`pnpm build`).
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseCliHelp } from '../packages/testing/dist/cli-help.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
export const APPS = ['gateway', 'projects', 'system-info'];
const NPM = 'https://registry.npmjs.org';
/** Flags whose value is a secret: tokens, keys, client secrets, URLs that may carry a password. */
const SECRET = /(^|-)(token|secret|api-key)$|^(redis|database)-url$/;
const NOT_CONFIG = new Set(['--help', '--version']);

/**
 * The `server.json` an app's checked-in one should be.
 * @param {string} app
 */
export function expectedServerJson(app) {
  const dir = join(ROOT, 'apps', app);
  const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
  const current = JSON.parse(readFileSync(join(dir, 'server.json'), 'utf8'));
  const help = execFileSync(process.execPath, [join(dir, 'dist', 'cli.js'), '--help'], {
    encoding: 'utf8',
  });
  const options = parseCliHelp(help).filter((o) => !NOT_CONFIG.has(o.flag));
  const secret = (flag) => SECRET.test(flag.slice(2));
  /** @param {import('../packages/testing/dist/cli-help.js').CliHelpOption} o */
  const input = (o) => ({
    description: o.description,
    ...(o.value === undefined ? { format: 'boolean' } : {}),
    ...(o.choices ? { choices: [...o.choices] } : {}),
    ...(o.default !== undefined && (!o.choices || o.choices.includes(o.default))
      ? { default: o.default }
      : {}),
    ...(secret(o.flag) ? { isSecret: true } : {}),
  });
  const packageArguments = options
    .filter((o) => o.value !== undefined)
    .map((o) => ({ type: 'named', name: o.flag, ...input(o) }));
  const environmentVariables = options
    .filter((o) => o.env !== undefined)
    .map((o) => ({ name: o.env, ...input(o) }));
  const { $schema, name, title, description, repository, websiteUrl, remotes, ...rest } = current;
  const { packages: _packages, version: _version, ...others } = rest;
  return {
    $schema,
    name,
    title,
    description,
    repository,
    websiteUrl,
    version: pkg.version,
    ...others,
    packages: [
      {
        registryType: 'npm',
        registryBaseUrl: NPM,
        identifier: pkg.name,
        version: pkg.version,
        runtimeHint: 'npx',
        transport: { type: 'stdio' },
        packageArguments,
        environmentVariables,
      },
    ],
    remotes,
  };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const check = process.argv.includes('--check');
  let stale = 0;
  for (const app of APPS) {
    const file = join(ROOT, 'apps', app, 'server.json');
    const want = `${JSON.stringify(expectedServerJson(app), null, 2)}\n`;
    if (readFileSync(file, 'utf8') === want) continue;
    stale++;
    if (check) console.error(`apps/${app}/server.json is stale: run node scripts/server-json.mjs`);
    else writeFileSync(file, want);
  }
  if (check && stale > 0) process.exit(1);
  if (!check) console.log(`server.json: ${stale} of ${APPS.length} rewritten`);
}
