// @module-tag process
import { chmodSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  dyingWithParent,
  parentDeathHelperFailure,
  parentDeathSignalMissing,
  resolveCommand,
} from './tree.js';

const dir = mkdtempSync(join(tmpdir(), 'tree-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const SETPRIV = ['/usr/bin/setpriv', '/bin/setpriv'].find((p) => existsSync(p));

const LINUX = process.platform === 'linux';

/** A helper script at `name` that runs `body`. */
function helper(name: string, body: string): string {
  const file = join(dir, name);
  writeFileSync(file, `#!/bin/sh\n${body}\n`);
  chmodSync(file, 0o755);
  return file;
}
// What setpriv does when capset() is denied: one line on stderr, exit 127, nothing exec'd.
const denied = helper(
  'setpriv-denied',
  'echo "setpriv: activate capabilities: Operation not permitted" >&2\nexit 127',
);

describe('parentDeathHelperFailure', () => {
  it.runIf(SETPRIV !== undefined && LINUX)("is undefined for this machine's setpriv", () => {
    expect(parentDeathHelperFailure(SETPRIV as string)).toBeUndefined();
  });

  it('says why a helper the sandbox stops fails (setpriv under SystemCallFilter=~@privileged)', () => {
    expect(parentDeathHelperFailure(denied)).toBe(
      `${denied} --pdeathsig exited 127 (setpriv: activate capabilities: Operation not permitted)`,
    );
    expect(parentDeathHelperFailure(join(dir, 'no-such-helper'))).toMatch(
      /no-such-helper: .*ENOENT/,
    );
  });
});

describe('dyingWithParent', () => {
  it.runIf(LINUX)('wraps a command in a helper that works', () => {
    const works = helper('setpriv-works', 'exit 0');
    expect(dyingWithParent('/bin/echo', ['hi'], works)).toEqual({
      command: works,
      args: ['--pdeathsig', 'SIGKILL', '--', '/bin/echo', 'hi'],
    });
  });

  it('starts the command unchanged when the helper is denied', () => {
    expect(dyingWithParent('/bin/echo', ['hi'], denied)).toEqual({
      command: '/bin/echo',
      args: ['hi'],
    });
  });

  it("uses this machine's setpriv exactly when parentDeathSignalMissing says nothing is missing", () => {
    const missing = parentDeathSignalMissing();
    const wrapped = dyingWithParent('/bin/echo', ['hi']);
    if (missing === undefined) {
      expect(wrapped).toEqual({
        command: SETPRIV,
        args: ['--pdeathsig', 'SIGKILL', '--', '/bin/echo', 'hi'],
      });
    } else {
      expect(wrapped).toEqual({ command: '/bin/echo', args: ['hi'] });
      if (!LINUX) expect(missing).toMatch(/^not Linux/);
    }
    if (SETPRIV !== undefined && LINUX) expect(missing).toBeUndefined();
  });
});

describe('resolveCommand', () => {
  it('finds a program on PATH or by path, and nothing for a missing one', () => {
    const program = join(dir, 'prog');
    writeFileSync(program, '#!/bin/sh\n');
    chmodSync(program, 0o755);
    expect(resolveCommand('prog', `/nonexistent:${dir}`, '/')).toBe(program);
    expect(resolveCommand('./prog', undefined, dir)).toBe(program);
    expect(resolveCommand('nope', dir, '/')).toBeUndefined();
  });
});
