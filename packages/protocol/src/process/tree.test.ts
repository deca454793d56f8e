// @module-tag process
import { chmodSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { dyingWithParent, parentDeathHelperWorks, resolveCommand } from './tree.js';

const dir = mkdtempSync(join(tmpdir(), 'tree-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const SETPRIV = ['/usr/bin/setpriv', '/bin/setpriv'].find((p) => existsSync(p));

describe('parentDeathHelperWorks', () => {
  it.runIf(SETPRIV !== undefined && process.platform === 'linux')(
    "is true for this machine's setpriv",
    () => {
      expect(parentDeathHelperWorks(SETPRIV as string)).toBe(true);
    },
  );

  it('is false for a helper the sandbox stops (setpriv under SystemCallFilter=~@privileged)', () => {
    // What setpriv does when capset() is denied: one line on stderr, exit 127, nothing exec'd.
    const denied = join(dir, 'setpriv-denied');
    writeFileSync(
      denied,
      '#!/bin/sh\necho "setpriv: activate capabilities: Operation not permitted" >&2\nexit 127\n',
    );
    chmodSync(denied, 0o755);
    expect(parentDeathHelperWorks(denied)).toBe(false);
    expect(parentDeathHelperWorks(join(dir, 'no-such-helper'))).toBe(false);
  });
});

describe('dyingWithParent', () => {
  it('wraps a command in the helper only where the helper works', () => {
    const wrapped = dyingWithParent('/bin/echo', ['hi']);
    if (SETPRIV !== undefined && process.platform === 'linux') {
      expect(wrapped).toEqual({
        command: SETPRIV,
        args: ['--pdeathsig', 'SIGKILL', '--', '/bin/echo', 'hi'],
      });
    } else {
      expect(wrapped).toEqual({ command: '/bin/echo', args: ['hi'] });
    }
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
