#!/usr/bin/env node
// @ts-check
/**
 * Every installed package must run on the oldest Node the repo supports (the root package's
 * `engines.node`). pnpm's engine-strict did this at install time, but it cannot be told that one
 * package's declared range is narrower than what it needs; this check reads the lockfile instead
 * and allows exactly the packages named below, each with the reason and the test that covers it.
 *
 *   node scripts/check-engines.mjs
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import semver from 'semver';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/**
 * Packages whose declared Node range excludes our oldest Node, and why they may be installed.
 * @type {Record<string, string>}
 */
const ALLOWED = {
  // Declares node >=22 for its CLI's and browser build's tooling; the library the projects server
  // imports runs on Node 20: every platform's build is checked there by
  // apps/projects/test/token-builds.test.ts (golden outputs parsed by lightningcss, tsc, XML).
  'style-dictionary': 'design-token builds of apps/projects, tested on Node 20',
};

const root = JSON.parse(readFileSync(`${ROOT}package.json`, 'utf8'));
const oldest = semver.minVersion(root.engines.node);
if (!oldest) throw new Error(`package.json engines.node '${root.engines.node}' has no minimum`);

const lock = readFileSync(`${ROOT}pnpm-lock.yaml`, 'utf8');
// In the lockfile's `packages:` section each entry is `  name@version:` followed by its fields,
// one of which may be `    engines: {node: '<range>'}`.
const ENTRY = /^ {2}'?((?:@[^/@\s]+\/)?[^@\s']+)@([^:'\s]+)'?:\n((?: {4}.*\n)*)/gm;
const problems = [];
for (const [, name, version, fields] of lock.matchAll(ENTRY)) {
  const range = /^ {4}engines: \{[^}]*\bnode: '([^']+)'/m.exec(fields ?? '')?.[1];
  if (range === undefined || semver.satisfies(oldest, range)) continue;
  if (name !== undefined && Object.hasOwn(ALLOWED, name)) continue;
  problems.push(`${name}@${version} needs node ${range}`);
}
if (problems.length > 0) {
  process.stderr.write(
    `check-engines: these packages do not declare support for node ${oldest} (package.json engines):\n` +
      `${problems.map((p) => `  ${p}`).join('\n')}\n` +
      'pick another version, or name the package in scripts/check-engines.mjs ALLOWED with the test that covers it\n',
  );
  process.exit(1);
}
process.stdout.write(
  `check-engines: every package supports node ${oldest} (allowed: ${Object.keys(ALLOWED).join(', ')})\n`,
);
