/**
 * system-info with OAuth sign-in on (`--auth-issuer`), against a real authorization server
 * (oidc-provider on 127.0.0.1): its metadata names the scopes, a token's `scope` decides what
 * it may call (core, sensitive), its static token keeps working beside OAuth.
 */
import { fileURLToPath } from 'node:url';
import {
  type HttpProcess,
  killSpawned,
  postModernCall,
  runProcess,
  spawnHttpServer,
  startAuthorizationServer,
  type TestAuthorizationServer,
} from '@mcpkit/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const CLI = fileURLToPath(new URL('../dist/cli.js', import.meta.url));
const STATIC = 'static-sysinfo-token-0123';

let as: TestAuthorizationServer;
let app: HttpProcess;
beforeAll(async () => {
  as = await startAuthorizationServer(['core', 'sensitive']);
  app = await spawnHttpServer(
    process.execPath,
    [CLI, '--transport', 'http', '--port', '0', '--enable-sensitive', '--auth-issuer', as.issuer],
    { env: { MCP_SYSINFO_TOKEN: STATIC } },
  );
});
afterAll(async () => {
  await app?.stop();
  await as?.close();
  killSpawned();
});

type Reply = { result?: { isError?: boolean; tools?: { name: string }[] }; error?: unknown };
const call = (token: string | undefined, name: string) =>
  postModernCall<Reply>(`${app.url}/mcp`, name, {}, token ? { token } : {});

describe('system-info with --auth-issuer', () => {
  it('names its authorization server and scopes in its metadata, and in a 401', async () => {
    const meta = await fetch(`${app.url}/.well-known/oauth-protected-resource/mcp`);
    expect(await meta.json()).toEqual({
      resource: `${app.url}/mcp`,
      authorization_servers: [as.issuer],
      scopes_supported: ['core', 'sensitive'],
      bearer_methods_supported: ['header'],
    });
    const refused = await call(undefined, 'get_uptime');
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toBe(
      `Bearer resource_metadata="${app.url}/.well-known/oauth-protected-resource/mcp", scope="core"`,
    );
  });

  it("serves what a token's scope allows: core, then sensitive", async () => {
    const core = await as.token(`${app.url}/mcp`, 'core');
    const uptime = await call(core, 'get_uptime');
    expect(uptime.status).toBe(200);
    expect(uptime.body?.result?.isError ?? false).toBe(false);
    const denied = await call(core, 'get_auth_logs');
    expect(denied.body?.result?.isError ?? Boolean(denied.body?.error)).toBe(true);
    const both = await as.token(`${app.url}/mcp`, 'core sensitive');
    const logs = await call(both, 'get_auth_logs');
    expect(logs.body?.error).toBeUndefined();
  });

  it('takes sensitive as including core (its scope hierarchy)', async () => {
    const sensitive = await as.token(`${app.url}/mcp`, 'sensitive');
    const uptime = await call(sensitive, 'get_uptime');
    expect(uptime.status).toBe(200);
    expect(uptime.body?.result?.isError ?? false).toBe(false);
  });

  it('keeps its static token working beside OAuth', async () => {
    expect((await call(STATIC, 'get_uptime')).status).toBe(200);
  });

  it('refuses --auth-issuer that is not a URL, naming the flag', async () => {
    const run = await runProcess(process.execPath, [
      CLI,
      '--transport',
      'http',
      '--port',
      '0',
      '--auth-issuer',
      'not a url',
    ]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("--auth-issuer: 'not a url' is not a URL");
  });
});

describe('system-info with --auth-client-id: opaque tokens, introspected', () => {
  let opaque: TestAuthorizationServer;
  let introspecting: HttpProcess;
  beforeAll(async () => {
    opaque = await startAuthorizationServer(['core', 'sensitive'], { accessTokenFormat: 'opaque' });
    introspecting = await spawnHttpServer(
      process.execPath,
      [CLI, '--transport', 'http', '--port', '0', '--auth-issuer', opaque.issuer],
      {
        env: {
          MCP_AUTH_CLIENT_ID: opaque.introspector.clientId,
          MCP_AUTH_CLIENT_SECRET: opaque.introspector.clientSecret,
        },
      },
    );
  });
  afterAll(async () => {
    await introspecting?.stop();
    await opaque?.close();
  });

  it('serves an opaque token the authorization server calls active, and refuses it revoked', async () => {
    const token = await opaque.token(`${introspecting.url}/mcp`, 'core');
    const served = await postModernCall<Reply>(
      `${introspecting.url}/mcp`,
      'get_uptime',
      {},
      { token },
    );
    expect(served.status).toBe(200);
    expect(served.body?.result?.isError ?? false).toBe(false);
    const revoked = await opaque.token(`${introspecting.url}/mcp`, 'core');
    await opaque.revoke(revoked);
    const refused = await postModernCall(
      `${introspecting.url}/mcp`,
      'get_uptime',
      {},
      {
        token: revoked,
      },
    );
    expect(refused.status).toBe(401);
  });

  it('refuses a client id without its secret, naming both', async () => {
    const run = await runProcess(process.execPath, [
      CLI,
      '--transport',
      'http',
      '--port',
      '0',
      '--auth-issuer',
      opaque.issuer,
      '--auth-client-id',
      'someone',
    ]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('--auth-client-id and MCP_AUTH_CLIENT_SECRET go together');
  });
});
