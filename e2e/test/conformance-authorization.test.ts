// @module-tag conformance
// @module-tag process
/**
 * The official conformance suite's authorization-server scenarios against the gateway as the
 * authorization server (`gateway.authorization_server`): `conformance authorization --url
 * <issuer>` checks the metadata endpoint, then runs an authorization code grant with PKCE and
 * the resource indicator — a person's sign-in in the middle, which the test plays with a
 * cookie-keeping browser at the gateway's pages, delivering the redirect to the suite's
 * callback server as a browser would.
 */
import { spawn } from 'node:child_process';
import { tmpdir } from 'node:os';
import { formBrowser } from '@mcpkit/testing';
import { afterAll, describe, expect, it } from 'vitest';
import { CONFORMANCE_MODERN_SUITE, CONFORMANCE_NODE } from '../../scripts/vitest/services.mjs';
import { ALICE_PASSWORD, startSignInGateway } from './gateway-as.js';
import { freePort, type HttpApp, killAll, scratch } from './helpers.js';

afterAll(killAll);

const RUN_TIMEOUT_MS = 180_000;

/**
 * Run `conformance authorization` and be the person when it asks: sign in and allow at the URL
 * it prints, then hand the redirect to its callback server. Resolves to everything it printed.
 */
function runAuthorizationSuite(args: readonly string[], callback: string): Promise<string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined) env[k] = v;
  Object.assign(env, { npm_config_engine_strict: 'false', NO_COLOR: '1', FORCE_COLOR: '0' });
  const child = spawn(
    'npx',
    [
      '--offline',
      '-y',
      '-p',
      CONFORMANCE_NODE,
      '-p',
      CONFORMANCE_MODERN_SUITE,
      'conformance',
      'authorization',
      ...args,
    ],
    { env, cwd: tmpdir(), detached: true, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let out = '';
  let signedIn: Promise<void> | undefined;
  const person = formBrowser(
    callback,
    (html): Record<string, string> =>
      html.includes('name="password"')
        ? { username: 'alice', password: ALICE_PASSWORD }
        : { decision: 'allow' },
  );
  return new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      if (child.pid) process.kill(-child.pid, 'SIGKILL');
      reject(new Error(`conformance authorization did not end in time:\n${out}`));
    }, RUN_TIMEOUT_MS);
    const read = (chunk: Buffer) => {
      out += chunk.toString('utf8');
      const asked = /^(http:\/\/\S+\/oauth\/authorize\?\S+)$/m.exec(out)?.[1];
      // The suite prints the URL, then starts the server the redirect goes to: both, first.
      if (asked && !signedIn && out.includes('Callback server started')) {
        signedIn = person.visit(asked).then(async (redirect) => {
          const delivered = await fetch(redirect);
          await delivered.body?.cancel();
        });
        signedIn.catch((err: unknown) => {
          out += `\n[test] sign-in failed: ${(err as Error).message}\n`;
        });
      }
    };
    child.stdout.on('data', read);
    child.stderr.on('data', read);
    child.on('error', reject);
    child.on('close', () => {
      clearTimeout(timer);
      resolve(out);
    });
  });
}

describe('conformance: authorization-server scenarios against the gateway', () => {
  it(
    'passes the metadata endpoint and the authorization code grant (0.2.0-alpha.12)',
    async () => {
      const s = scratch('conformance-authorization');
      let gw: HttpApp | undefined;
      try {
        gw = await startSignInGateway(s);
        const port = await freePort();
        const callback = `http://127.0.0.1:${port}/callback`;
        const registered = await fetch(`${gw.url}/oauth/register`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({
            client_name: 'MCP conformance suite',
            redirect_uris: [callback],
            token_endpoint_auth_method: 'none',
          }),
        });
        expect(registered.status).toBe(201);
        const { client_id } = (await registered.json()) as { client_id: string };
        const out = await runAuthorizationSuite(
          ['--url', gw.url, '--client-id', client_id, '--resource', gw.mcpUrl, '-p', String(port)],
          callback,
        );
        // Two checks: the metadata, and Client ID Metadata Documents advertised (MCP: SHOULD).
        expect(out, out).toMatch(/authorization-server-metadata-endpoint: 2 passed, 0 failed/);
        expect(out, out).toMatch(/authorization-code-grant: \d+ passed, 0 failed/);
        expect(out, out).toMatch(/Total: \d+ passed, 0 failed/);
      } finally {
        await gw?.stop();
        s.cleanup();
      }
    },
    RUN_TIMEOUT_MS + 60_000,
  );
});
