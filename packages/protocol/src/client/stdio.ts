import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import type { FrameSink } from '../jsonrpc/transport.js';
import { killGroup } from '../process/kill-group.js';
import { descendantsOf, dyingWithParent, resolveCommand } from '../process/tree.js';
import { StdioTransport } from '../transports/stdio-transport.js';
import type { ClientTransport } from './transport.js';

/** How a server process ended. */
export interface ProcessExit {
  /** The exit code, or null when a signal ended it. */
  code: number | null;
  /** The signal that ended it, if one did. */
  signal: NodeJS.Signals | null;
  /** Set when the process could not be started at all (ENOENT, EACCES …). */
  error?: string;
}

/** Which server process a {@link StdioClientTransport} starts, and how. */
export interface StdioClientOptions {
  /** The program, e.g. `node` or `npx`; looked up on `PATH`. */
  command: string;
  /** Its arguments. */
  args?: readonly string[];
  /** Its working directory. Default: this process's. */
  cwd?: string;
  /**
   * Variables for the server on top of a minimal safe set (PATH, HOME, USER, LANG, TMPDIR …,
   * what the official SDK's stdio client and Claude Desktop pass): a server does not see this
   * process's secrets unless given them here or with `inheritEnv`.
   */
  env?: Readonly<Record<string, string>>;
  /** Start from this process's whole environment instead of the minimal set. Default false. */
  inheritEnv?: boolean;
  /** Each chunk the server writes to stderr. The last 8 KiB are also kept in `stderrTail`. */
  onStderr?: (chunk: string) => void;
  /** Largest line accepted from the server. Default 16 MiB. */
  maxFrameBytes?: number;
  /** On close: how long the server has after EOF on its stdin, then after SIGTERM. Default 1.5 s each. */
  graceMs?: number;
  /**
   * Linux: the server gets SIGKILL from the kernel when this process dies, even by SIGKILL
   * (a parent-death signal, set through util-linux `setpriv`). Default true; without `setpriv`
   * (or off Linux) it has no effect. A server's own children are not covered by it — `close()`
   * stops them, whatever group or session they are in.
   */
  dieWithParent?: boolean;
}

// The variables the official SDK's stdio client passes by default (getDefaultEnvironment), plus
// the locale and temp-dir ones a server needs to behave as it would in a shell.
const SAFE_ENV = [
  'HOME',
  'LOGNAME',
  'PATH',
  'SHELL',
  'TERM',
  'USER',
  'LANG',
  'LC_ALL',
  'TMPDIR',
  'TZ',
  'NODE_EXTRA_CA_CERTS',
];
const STDERR_TAIL = 8 * 1024;

/** The minimal environment a spawned server gets by default, from this process's own. */
export function defaultServerEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const key of SAFE_ENV) {
    const value = process.env[key];
    // Exported shell functions (`() {…`) are a known injection vector; the SDK skips them too.
    if (value !== undefined && !value.startsWith('()')) env[key] = value;
  }
  return env;
}

/**
 * Spawn an MCP server and speak to it over its stdin/stdout. The child leads its own process
 * group, so closing stops whatever it started too (EOF, then SIGTERM, then SIGKILL to the
 * group); its stderr is captured, and how it exited is reported by `exited`.
 *
 * @example
 * ```ts
 * const transport = new StdioClientTransport({ command: 'node', args: ['server.js'] });
 * const client = await McpClient.connect(transport);
 * console.log(await client.callTool('add', { a: 1, b: 2 }));
 * await client.close(); // EOF, then SIGTERM, then SIGKILL if the server lingers
 * console.log(await transport.exited); // { code: 0, signal: null }
 * ```
 */
export class StdioClientTransport implements ClientTransport {
  readonly #options: StdioClientOptions;
  #child: ChildProcessWithoutNullStreams | undefined;
  #inner: StdioTransport | undefined;
  #tail = '';
  #gone = false;
  #resolveExit!: (exit: ProcessExit) => void;
  /** Resolves when the process has exited (or failed to start). */
  readonly exited: Promise<ProcessExit>;

  constructor(options: StdioClientOptions) {
    this.#options = options;
    this.exited = new Promise((resolve) => {
      this.#resolveExit = resolve;
    });
  }

  /** The child's pid once started (undefined if the spawn failed). */
  get pid(): number | undefined {
    return this.#child?.pid;
  }

  /** The last 8 KiB the server wrote to stderr. */
  get stderrTail(): string {
    return this.#tail;
  }

  /** Called by the client: spawn the server; what it writes on stdout goes to `sink`. */
  start(sink: FrameSink): void {
    if (this.#child) throw new Error('transport already started');
    const options = this.#options;
    const env = { ...(options.inheritEnv ? process.env : defaultServerEnv()), ...options.env };
    let command = options.command;
    let args: readonly string[] = options.args ?? [];
    if (options.dieWithParent !== false) {
      // Resolved first: a missing program still fails the spawn itself (ENOENT), not setpriv.
      const found = resolveCommand(command, env.PATH, options.cwd ?? process.cwd());
      if (found !== undefined) ({ command, args } = dyingWithParent(found, args));
    }
    const child = spawn(command, args, {
      ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
      env,
      stdio: ['pipe', 'pipe', 'pipe'],
      detached: true,
    });
    this.#child = child;
    // Without an 'error' listener a failed spawn (ENOENT) would crash this process.
    child.once('error', (err) => {
      this.#finish({ code: null, signal: null, error: err.message });
      sink.end(err);
    });
    child.once('exit', (code, signal) => this.#finish({ code, signal }));
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => {
      this.#tail = (this.#tail + chunk).slice(-STDERR_TAIL);
      options.onStderr?.(chunk);
    });
    child.stdin.on('error', () => {
      // EPIPE after the child died: the exit is reported through `exited` and the sink.
    });
    const inner = new StdioTransport({
      input: child.stdout,
      output: child.stdin,
      endOutputOnClose: true,
      pauseInputOnBackpressure: false,
      ...(options.maxFrameBytes === undefined ? {} : { maxFrameBytes: options.maxFrameBytes }),
    });
    this.#inner = inner;
    inner.start({
      frame: (text) => sink.frame(text),
      rejected: (reason, bytes) => sink.rejected(reason, bytes),
      end: (error) => {
        sink.end(error);
        // stdout closed: the server is gone as a peer even if the process lingers.
        if (!this.#gone) this.#kill('SIGTERM');
      },
    });
  }

  /** Write one frame to the server's stdin. */
  send(frame: string): void {
    if (!this.#inner) throw new Error('transport not started');
    this.#inner.send(frame);
  }

  /** EOF on the server's stdin, then SIGTERM, then SIGKILL to its process group. */
  async close(): Promise<void> {
    const grace = this.#options.graceMs ?? 1500;
    // The whole tree as it is now: a grandchild in a session of its own is out of reach of the
    // group signal, and once its parent is gone it can no longer be found.
    const pid = this.#child?.pid;
    const tree = pid !== undefined && !this.#gone ? descendantsOf(pid) : [];
    // A pipe to a process that is gone (or never started) may never report its end: don't wait.
    if (this.#inner) await Promise.race([this.#inner.close(), this.exited]);
    if (!this.#child) return;
    if (!this.#gone && !(await this.#waitExit(grace))) {
      this.#kill('SIGTERM');
      if (!(await this.#waitExit(grace))) {
        this.#kill('SIGKILL');
        await this.exited;
      }
    }
    // The group may hold grandchildren that outlived their parent; others left the group.
    this.#kill('SIGKILL');
    for (const descendant of tree) killGroup(descendant, 'SIGKILL');
  }

  #finish(exit: ProcessExit): void {
    if (this.#gone) return;
    this.#gone = true;
    this.#resolveExit(exit);
  }

  #waitExit(ms: number): Promise<boolean> {
    return Promise.race([
      this.exited.then(() => true),
      new Promise<boolean>((resolve) => setTimeout(() => resolve(false), ms).unref()),
    ]);
  }

  #kill(signal: NodeJS.Signals): void {
    killGroup(this.#child?.pid, signal);
  }
}
