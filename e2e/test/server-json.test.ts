/**
 * Each app's `server.json` — what the official MCP Registry and its clients read to install it —
 * is valid against the registry's schema 2025-12-11 (vendored in @mcpkit/testing), names the
 * package it describes at its version, and lists exactly the options its CLI takes: a flag or
 * variable in server.json that `--help` does not know fails, and so does one `--help` lists that
 * server.json leaves out (`node scripts/server-json.mjs` rewrites them from the CLI).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  type CliHelpOption,
  parseCliHelp,
  SERVER_JSON_SCHEMA,
  serverJsonProblems,
} from '@mcpkit/testing';
import { describe, expect, it } from 'vitest';
import { APPS, cliOf, REPO } from './helpers.js';

interface Input {
  name: string;
  type?: string;
  isSecret?: boolean;
  choices?: string[];
}
interface ServerJson {
  $schema: string;
  name: string;
  description: string;
  version: string;
  repository: { url: string; source: string; subfolder: string };
  packages: {
    registryType: string;
    identifier: string;
    version: string;
    transport: { type: string };
    packageArguments: Input[];
    environmentVariables: Input[];
  }[];
  remotes: { type: string; url: string; headers?: Input[] }[];
}

const NOT_CONFIG = new Set(['--help', '--version']);

/** The flags and variables in `doc` that `options` (the CLI's --help) does not know. */
function unknownToCli(doc: ServerJson, options: readonly CliHelpOption[]): string[] {
  const pkg = doc.packages[0];
  const flags = new Set(options.filter((o) => o.value !== undefined).map((o) => o.flag));
  const envs = new Set(options.flatMap((o) => (o.env ? [o.env] : [])));
  return [
    ...(pkg?.packageArguments ?? []).filter((a) => !flags.has(a.name)).map((a) => a.name),
    ...(pkg?.environmentVariables ?? []).filter((e) => !envs.has(e.name)).map((e) => e.name),
  ];
}

/** The flags (taking a value) and variables `--help` lists that `doc` leaves out. */
function missingFromServerJson(doc: ServerJson, options: readonly CliHelpOption[]): string[] {
  const pkg = doc.packages[0];
  const args = new Set((pkg?.packageArguments ?? []).map((a) => a.name));
  const envs = new Set((pkg?.environmentVariables ?? []).map((e) => e.name));
  return options
    .filter((o) => !NOT_CONFIG.has(o.flag))
    .flatMap((o) => [
      ...(o.value !== undefined && !args.has(o.flag) ? [o.flag] : []),
      ...(o.env !== undefined && !envs.has(o.env) ? [o.env] : []),
    ]);
}

describe.each(APPS)('%s server.json', (app) => {
  const dir = join(REPO, 'apps', app);
  const doc = JSON.parse(readFileSync(join(dir, 'server.json'), 'utf8')) as ServerJson;
  const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as {
    name: string;
    version: string;
    mcpName: string;
  };
  const help = spawnSync(process.execPath, [cliOf(app), '--help'], { encoding: 'utf8' });
  const options = parseCliHelp(help.stdout);

  it('is valid against the registry schema 2025-12-11', () => {
    expect(doc.$schema).toBe(SERVER_JSON_SCHEMA);
    expect(serverJsonProblems(doc)).toEqual([]);
    // The schema refuses what the registry refuses: a description over 100 characters.
    expect(serverJsonProblems({ ...doc, description: 'x'.repeat(101) })).not.toEqual([]);
  });

  it('names the npm package at its version, and package.json names it back (mcpName)', () => {
    expect(pkg.mcpName).toBe(doc.name);
    expect(doc.version).toBe(pkg.version);
    expect(doc.packages).toHaveLength(1);
    expect(doc.packages[0]).toMatchObject({
      registryType: 'npm',
      identifier: pkg.name,
      version: pkg.version,
      transport: { type: 'stdio' },
    });
    expect(doc.repository.subfolder).toBe(`apps/${app}`);
    expect(existsSync(join(REPO, doc.repository.subfolder, 'package.json'))).toBe(true);
    expect(doc.remotes.map((r) => r.type)).toEqual(['streamable-http']);
  });

  it('lists exactly the flags and variables its CLI takes', () => {
    expect(help.status).toBe(0);
    // The parser read the table (a format change would otherwise pass as "nothing to check").
    expect(options.length).toBeGreaterThan(15);
    expect(unknownToCli(doc, options)).toEqual([]);
    expect(missingFromServerJson(doc, options)).toEqual([]);
    // A flag the CLI does not know is caught, and so is one it knows that is left out.
    const first = doc.packages[0] as ServerJson['packages'][number];
    const bogus = structuredClone(doc);
    bogus.packages[0]?.packageArguments.push({ name: '--no-such-flag', type: 'named' });
    expect(unknownToCli(bogus, options)).toEqual(['--no-such-flag']);
    const short = structuredClone(doc);
    short.packages[0]?.environmentVariables.pop();
    expect(missingFromServerJson(short, options)).toEqual([
      first.environmentVariables.at(-1)?.name,
    ]);
  });

  it('marks every token, key and secret as a secret, and offers only the values the CLI accepts', () => {
    const first = doc.packages[0] as ServerJson['packages'][number];
    const secretFlag = /(^--|-)(token|secret|api-key)$/;
    for (const arg of first.packageArguments) {
      if (secretFlag.test(arg.name)) expect(arg.isSecret, arg.name).toBe(true);
      const option = options.find((o) => o.flag === arg.name);
      expect(arg.choices, arg.name).toEqual(option?.choices);
    }
    const secretEnv = new Set(
      options.filter((o) => o.env && secretFlag.test(o.flag)).map((o) => o.env as string),
    );
    expect(secretEnv.size).toBeGreaterThan(0);
    for (const env of first.environmentVariables) {
      if (secretEnv.has(env.name)) expect(env.isSecret, env.name).toBe(true);
    }
  });
});
