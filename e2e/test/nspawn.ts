/**
 * A Debian 12 container booted with systemd-nspawn — real systemd 252 as its PID 1 — for the
 * deploy test: the checkout, Node and npm bound in read-only, every write going to a throw-away
 * overlay (`--volatile=overlay`) over the cached rootfs (scripts/nspawn/rootfs.sh). It shares the
 * host's network (an `npx` backend fetches from the registry; the test reaches the gateway on
 * 127.0.0.1). No machined on this host: commands run through `nsenter` into the leader's
 * namespaces, and the container is registered nowhere (`--register=no --keep-unit`).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { type RunResult, runProcess, waitFor } from '@mcpkit/testing';
import { nspawnRootfs } from '../../scripts/vitest/services.mjs';

/** SIGRTMIN on Linux with glibc (`kill -l SIGRTMIN`). */
const SIGRTMIN = 34;

/** A booted container; `exec` runs a command in it, `poweroff` ends it. */
export interface Container {
  /** Its PID 1 (systemd), as the host sees it. */
  readonly leader: number;
  /** Run `args` inside (all its namespaces, as root); never rejects for a non-zero exit. */
  exec(args: string[], options?: { input?: string; timeoutMs?: number }): Promise<RunResult>;
  /** What systemd-nspawn printed (the boot messages). */
  console(): string;
  /** A clean poweroff (SIGRTMIN+4 to its systemd), SIGKILL to nspawn if that hangs. */
  poweroff(): Promise<void>;
}

/** `host:container` paths bound read-only. */
export async function bootContainer(name: string, binds: readonly string[]): Promise<Container> {
  const args = [
    '--quiet',
    '--boot',
    '--register=no',
    '--keep-unit',
    `--machine=${name}`,
    '-D',
    nspawnRootfs(),
    '--volatile=overlay',
    ...binds.map((b) => `--bind-ro=${b}`),
  ];
  let output = '';
  const nspawn: ChildProcess = spawn('systemd-nspawn', args, {
    // Pure cgroup v2 inside, whatever the host mounts (a hybrid v1 host otherwise logs noise).
    env: { ...process.env, SYSTEMD_NSPAWN_UNIFIED_HIERARCHY: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  nspawn.stdout?.on('data', (d: Buffer) => {
    output += d.toString();
  });
  nspawn.stderr?.on('data', (d: Buffer) => {
    output += d.toString();
  });
  const exited = new Promise<void>((resolve) => nspawn.once('exit', () => resolve()));
  let gone = false;
  void exited.then(() => {
    gone = true;
  });
  const leader = await waitFor(
    'the container to boot',
    () => {
      if (gone) throw new Error(`systemd-nspawn exited:\n${output}`);
      return childNamed(nspawn.pid as number, 'systemd');
    },
    30_000,
  );
  const exec: Container['exec'] = (command, options = {}) =>
    runProcess('nsenter', ['-t', String(leader), '-a', ...command], {
      timeoutMs: options.timeoutMs ?? 60_000,
      ...(options.input === undefined ? {} : { input: options.input }),
    });
  // systemd answers on its bus a moment after it starts; then wait for boot to finish.
  await waitFor(
    'systemd in the container',
    async () => {
      const state = await exec(['systemctl', 'is-system-running', '--wait'], { timeoutMs: 60_000 });
      return state.stdout.trim() || undefined;
    },
    60_000,
    100,
  );
  return {
    leader,
    exec,
    console: () => output,
    async poweroff() {
      if (gone) return;
      // SIGRTMIN+4 asks systemd for a poweroff; Node has no name for real-time signals.
      process.kill(leader, SIGRTMIN + 4);
      const timer = setTimeout(() => {
        if (!gone && nspawn.pid) process.kill(-nspawn.pid, 'SIGKILL');
      }, 20_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** The child of `pid` whose command is `comm`, from /proc; undefined while there is none. */
function childNamed(pid: number, comm: string): number | undefined {
  let children: string;
  try {
    children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8');
  } catch {
    return undefined;
  }
  for (const child of children.split(' ').filter(Boolean).map(Number)) {
    try {
      if (readFileSync(`/proc/${child}/comm`, 'utf8').trim() === comm) return child;
    } catch {
      // gone meanwhile
    }
  }
  return undefined;
}
