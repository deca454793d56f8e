#!/usr/bin/env node
// @ts-check
// The `mcp-gateway` command: runs the build's bundled CLI, dist/bundle/cli.js (scripts/bundle-cli.mjs:
// one file to load at start, the rest in chunks loaded on demand), falling back to the unbundled
// dist/cli.js. Committed rather than built, so that `pnpm install` on a fresh clone can link it
// before `dist/` exists (no "Failed to create bin").
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const bundled = new URL('../dist/bundle/cli.js', import.meta.url);
const cli = existsSync(bundled) ? bundled : new URL('../dist/cli.js', import.meta.url);
if (existsSync(cli)) {
  await import(cli.href);
} else {
  process.stderr.write(
    `mcp-gateway: ${fileURLToPath(cli)} is missing: build first (npx -y pnpm@10.34.8 build)\n`,
  );
  process.exitCode = 1;
}
