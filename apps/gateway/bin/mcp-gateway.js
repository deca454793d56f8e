#!/usr/bin/env node
// @ts-check
// The `mcp-gateway` command. Committed rather than built, so that `pnpm install` on a fresh clone
// can link it before `dist/` exists (no "Failed to create bin").
//
// Over stdio it runs the bundled CLI, dist/bundle/cli.js (scripts/bundle-cli.mjs): what an
// editor starts at every launch, where start-up time is what its user waits for. Over HTTP — a
// service, started once — it runs the unbundled dist/cli.js: the same code, as fast at steady
// state (#35: the bundle's extra GC was V8 Map tables promoting each other, now ChurnMap in
// @mcpkit/protocol; the HTTP bench measured both alike), and its stack traces name source files.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** `--transport http` (or `=http`), else MCP_TRANSPORT: what runCli will read. */
function transport() {
  const args = process.argv.slice(2);
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] ?? '';
    if (arg === '--transport') return args[i + 1];
    if (arg.startsWith('--transport=')) return arg.slice('--transport='.length);
  }
  return process.env.MCP_TRANSPORT;
}

const unbundled = new URL('../dist/cli.js', import.meta.url);
const bundled = new URL('../dist/bundle/cli.js', import.meta.url);
const cli = transport() !== 'http' && existsSync(bundled) ? bundled : unbundled;
if (existsSync(cli)) {
  await import(cli.href);
} else {
  process.stderr.write(
    `mcp-gateway: ${fileURLToPath(cli)} is missing: build first (npx -y pnpm@10.34.8 build)\n`,
  );
  process.exitCode = 1;
}
