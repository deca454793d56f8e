/**
 * Start-up costs a user pays before the first answer, each next to plain Node in the same run:
 *
 *   - import time of each mcpkit package: `await import('<package>')` timed inside a fresh Node
 *     process (the process's own start excluded), median of interleaved tries;
 *   - cold start of each app over stdio: spawn → the reply to `initialize` (what a client such
 *     as Claude Desktop waits for), median of interleaved tries, with `node -e` answering the
 *     same line as the floor.
 *
 * Printed for the record: the figures a package split or a new dependency must not make worse.
 */
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const BENCH_DIR = fileURLToPath(new URL('..', import.meta.url));
const APPS_DIR = fileURLToPath(new URL('../../apps/', import.meta.url));

/** The packages whose import time is printed; a missing one is skipped (not yet split out). */
const PACKAGES = [
  '@mcpkit/protocol',
  '@mcpkit/node',
  '@mcpkit/fleet',
  '@mcpkit/observability',
  '@mcpkit/testing',
];

const INITIALIZE = `${JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: {
    protocolVersion: '2025-11-25',
    capabilities: {},
    clientInfo: { name: 'mcpkit-bench', version: '0.0.0' },
  },
})}\n`;

/** A process that answers `initialize` at once: the floor under every app's cold start. */
const FLOOR = `process.stdin.once('data', () => process.stdout.write('{"jsonrpc":"2.0","id":1,"result":{}}\\n'))`;

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
};

/** Runs `node` with `args` in the bench folder and resolves with what it printed on stdout. */
function output(args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, {
      cwd: BENCH_DIR,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk;
    });
    child.stderr.on('data', (chunk: Buffer) => {
      err += chunk;
    });
    child.once('error', reject);
    child.once('exit', (code) =>
      code === 0 ? resolve(out) : reject(new Error(`node ${args.join(' ')}: exit ${code}\n${err}`)),
    );
  });
}

/** ms an `await import(name)` takes in a fresh process; undefined when it does not resolve. */
async function importMs(name: string): Promise<number | undefined> {
  const script = `const t = performance.now(); await import(${JSON.stringify(name)}); process.stdout.write(String(performance.now() - t));`;
  try {
    return Number(await output(['--input-type=module', '-e', script]));
  } catch {
    return undefined;
  }
}

/** ms from spawn to the first line on stdout after `initialize` is written; the child is killed. */
function coldStartMs(args: string[], env: NodeJS.ProcessEnv): Promise<number> {
  const began = performance.now();
  const child: ChildProcessWithoutNullStreams = spawn(process.execPath, args, {
    env: { ...process.env, ...env },
  });
  return new Promise<number>((resolve, reject) => {
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk;
    });
    child.stdout.once('data', () => resolve(performance.now() - began));
    child.once('exit', (code) => reject(new Error(`exited (${code}) before answering\n${stderr}`)));
    child.stdin.write(INITIALIZE);
  }).finally(() => {
    child.removeAllListeners('exit');
    child.kill('SIGKILL');
  });
}

interface App {
  name: string;
  args: string[];
  env: NodeJS.ProcessEnv;
}

/**
 * Prints import times and cold starts. `tries` interleaved tries per figure (at least 3).
 * Resolves true: there is no target to miss, only figures to compare across a change.
 */
export async function startupBench(tries: number): Promise<boolean> {
  const n = Math.max(3, tries);
  const dir = mkdtempSync(join(tmpdir(), 'mcpkit-startup-'));
  try {
    const apps: App[] = [
      { name: 'floor (node answering at once)', args: ['-e', FLOOR], env: {} },
      {
        name: 'gateway (default backends)',
        args: [join(APPS_DIR, 'gateway/dist/cli.js'), '--log-level', 'warn'],
        env: { MCP_GATEWAY_EVENTS: join(dir, 'events.db') },
      },
      {
        name: 'projects (SQLite)',
        args: [
          join(APPS_DIR, 'projects/dist/cli.js'),
          '--log-level',
          'warn',
          '--user',
          'demo@codefluss.local',
          '--seed-demo',
        ],
        env: { DATABASE_URL: join(dir, 'projects.db') },
      },
      {
        name: 'system-info',
        args: [join(APPS_DIR, 'system-info/dist/cli.js'), '--log-level', 'warn'],
        env: {},
      },
    ];
    const imports = new Map<string, number[]>(PACKAGES.map((p) => [p, []]));
    const cold = new Map<string, number[]>(apps.map((a) => [a.name, []]));
    // Round-robin so that drift in machine load hits every figure alike.
    for (let i = 0; i < n; i++) {
      for (const name of PACKAGES) {
        const ms = await importMs(name);
        if (ms !== undefined) imports.get(name)?.push(ms);
      }
      for (const app of apps) cold.get(app.name)?.push(await coldStartMs(app.args, app.env));
    }
    console.log(`\nstart-up (median of ${n} interleaved tries)`);
    console.log('  import time, in a fresh process');
    for (const [name, values] of imports) {
      if (values.length === 0) continue;
      console.log(`  ${name.padEnd(40)} ${median(values).toFixed(1).padStart(7)} ms`);
    }
    console.log('  cold start over stdio: spawn → initialize answered');
    const floor = median(cold.get(apps[0]?.name ?? '') ?? []);
    for (const [name, values] of cold) {
      const ms = median(values);
      const over = name.startsWith('floor')
        ? ''
        : `  (+${(ms - floor).toFixed(0)} ms over the floor)`;
      console.log(`  ${name.padEnd(40)} ${ms.toFixed(0).padStart(7)} ms${over}`);
    }
    return true;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
