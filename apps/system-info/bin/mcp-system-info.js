#!/usr/bin/env node
// @ts-check
// The `mcp-system-info` command: runs the build's dist/cli.js. Committed rather than built, so that
// `pnpm install` on a fresh clone can link it before `dist/` exists (no "Failed to create bin").
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const cli = new URL('../dist/cli.js', import.meta.url);
if (existsSync(cli)) {
  await import(cli.href);
} else {
  process.stderr.write(
    `mcp-system-info: ${fileURLToPath(cli)} is missing: build first (npx -y pnpm@10.34.8 build)\n`,
  );
  process.exitCode = 1;
}
