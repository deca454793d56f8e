import { spawnSync } from 'node:child_process';
import { accessSync, constants, readdirSync, readFileSync } from 'node:fs';
import { delimiter, isAbsolute, join } from 'node:path';

/*
 * What a parent can do so that no child outlives it, on Linux (elsewhere these are no-ops):
 * a parent-death signal for the children it spawns, and a walk of the process tree to find
 * the descendants that left their process group (`setsid`) before it stops them.
 */

/** util-linux's `setpriv`, which sets the parent-death signal and execs the command. */
const SETPRIV = ['/usr/bin/setpriv', '/bin/setpriv'].find((path) => executable(path));
/** Each helper's probe ({@link parentDeathHelperFailure}), run once, at the first spawn that wants it. */
const probed = new Map<string, string | undefined>();

/**
 * Why `helper` cannot start a program with the parent-death signal set, tried for real (it
 * execs itself, `--version`, that way); undefined when it can. setpriv applies capabilities even
 * when asked for none, and `capset()` is denied under a seccomp filter such as systemd's
 * `SystemCallFilter=~@privileged` (exit 127, "activate capabilities: Operation not permitted"):
 * there, every child it started would die at once.
 */
export function parentDeathHelperFailure(helper: string): string | undefined {
  const probe = spawnSync(helper, ['--pdeathsig', 'SIGKILL', '--', helper, '--version'], {
    stdio: ['ignore', 'ignore', 'pipe'],
    encoding: 'utf8',
    timeout: 10_000,
  });
  if (probe.error) return `${helper}: ${probe.error.message}`;
  if (probe.status === 0) return undefined;
  const said = probe.stderr.trim().split('\n').at(-1);
  const ended = probe.status === null ? `ended by ${probe.signal}` : `exited ${probe.status}`;
  return `${helper} --pdeathsig ${ended}${said ? ` (${said})` : ''}`;
}

/** Why `helper` sets no parent-death signal here, or undefined when it does; probed once per helper. */
function helperMissing(helper: string | undefined): string | undefined {
  if (process.platform !== 'linux') return `not Linux (${process.platform})`;
  if (helper === undefined) return 'no setpriv (util-linux) in /usr/bin or /bin';
  if (!probed.has(helper)) probed.set(helper, parentDeathHelperFailure(helper));
  return probed.get(helper);
}

/**
 * Why the stdio servers this process starts (`StdioClientTransport`, `dieWithParent`) get no
 * parent-death signal here — not Linux, no util-linux `setpriv`, or a setpriv the sandbox does
 * not let run (a seccomp filter denying `capset()`, e.g. systemd's
 * `SystemCallFilter=~@privileged`) — or undefined when they get one. They are started anyway,
 * without it: what a supervisor logs so the fallback is seen. Probed once (a run of setpriv).
 */
export function parentDeathSignalMissing(): string | undefined {
  return helperMissing(SETPRIV);
}

function executable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * `command` as execvp would find it — on `PATH`, or relative to `cwd` when it names a path;
 * undefined when there is no such program.
 */
export function resolveCommand(
  command: string,
  path: string | undefined,
  cwd: string,
): string | undefined {
  if (command.includes('/')) {
    const file = isAbsolute(command) ? command : join(cwd, command);
    return executable(file) ? file : undefined;
  }
  for (const dir of (path ?? '').split(delimiter)) {
    if (dir && executable(join(dir, command))) return join(dir, command);
  }
  return undefined;
}

/**
 * The command line that starts `command` so the kernel sends it SIGKILL when this process dies,
 * even by SIGKILL (`PR_SET_PDEATHSIG`, through `setpriv --pdeathsig`; the setting survives the
 * exec). Unchanged where that is not available ({@link parentDeathSignalMissing} says why): the
 * caller's own stop still signals the whole tree, and a service manager's cgroup holds the rest.
 * `helper` is for tests: this machine's setpriv unless given.
 */
export function dyingWithParent(
  command: string,
  args: readonly string[],
  helper: string | undefined = SETPRIV,
): { command: string; args: string[] } {
  if (helper === undefined || helperMissing(helper) !== undefined)
    return { command, args: [...args] };
  return { command: helper, args: ['--pdeathsig', 'SIGKILL', '--', command, ...args] };
}

/**
 * Every live descendant of `pid` (children, their children …), found by parent pid in /proc —
 * including those that started a session of their own, which a signal to the process group
 * misses. Taken while the tree is intact: an orphan is re-parented and no longer found. Empty
 * where /proc is not there.
 */
export function descendantsOf(pid: number): number[] {
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return [];
  }
  const children = new Map<number, number[]>();
  for (const entry of entries) {
    const child = Number(entry);
    if (!Number.isInteger(child)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue; // gone meanwhile
    }
    // `pid (comm) state ppid …`: comm may hold spaces and parentheses, so read after the last ')'.
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    const siblings = children.get(ppid);
    if (siblings) siblings.push(child);
    else children.set(ppid, [child]);
  }
  const out: number[] = [];
  const queue = [pid];
  for (let next = queue.pop(); next !== undefined; next = queue.pop()) {
    for (const child of children.get(next) ?? []) {
      out.push(child);
      queue.push(child);
    }
  }
  return out;
}
