// @module-tag process
/**
 * `pnpm auth:dev` (dist/bin/auth-server.js) as a user runs it: one JSON line with a token a resource server can
 * verify against the issuer's published keys, then serving until SIGTERM.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import { describe, expect, it } from 'vitest';
import { runProcess } from '../run.js';

const BIN = fileURLToPath(new URL('../../dist/bin/auth-server.js', import.meta.url));

describe('pnpm auth:dev', () => {
  it('prints its issuer and a verifiable token for the resource, and stops on SIGTERM', async () => {
    const resource = 'http://127.0.0.1:3999/mcp';
    const child = spawn(
      process.execPath,
      [BIN, '--port', '0', '--scopes', 'core,sensitive', '--resource', resource, '--scope', 'core'],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    try {
      const [line] = (await once(createInterface({ input: child.stdout }), 'line')) as [string];
      const out = JSON.parse(line) as { issuer: string; token: string; resource: string };
      expect(out.resource).toBe(resource);
      const keys = createRemoteJWKSet(new URL(`${out.issuer}/jwks`));
      const { payload } = await jwtVerify(out.token, keys, {
        issuer: out.issuer,
        audience: resource,
      });
      expect(payload.scope).toBe('core');
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      expect((await exited)[0]).toBe(0);
    } finally {
      child.kill('SIGKILL');
    }
  });

  it('refuses a port that is not one, and an unknown flag, with its usage', async () => {
    const port = await runProcess(process.execPath, [BIN, '--port', 'x']);
    expect(port.code).toBe(2);
    expect(port.stderr).toContain('--port x is not a port');
    const flag = await runProcess(process.execPath, [BIN, '--nope']);
    expect(flag.code).toBe(2);
    expect(flag.stderr).toContain('usage: pnpm auth:dev');
  });
});
