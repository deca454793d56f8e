/**
 * The gateway with OAuth sign-in from its config file (`gateway.oauth`), against a real
 * authorization server (oidc-provider on 127.0.0.1): its metadata names the backends' scopes and
 * gateway:admin, a request without a token gets the challenge, a token for the gateway is served.
 */
import {
  type HttpProcess,
  killSpawned,
  postJson,
  postModernCall,
  removeTempDirs,
  startAuthorizationServer,
  type TestAuthorizationServer,
} from '@mcpkit/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../src/config.js';
import { backend, spawnHttpGateway } from './helpers.js';

let as: TestAuthorizationServer;
let gw: HttpProcess;
beforeAll(async () => {
  as = await startAuthorizationServer(['ops', 'gateway:admin']);
  gw = await spawnHttpGateway({
    gateway: { oauth: { issuer: as.issuer, scope_hierarchy: { 'gateway:admin': ['ops'] } } },
    mcpServers: { rich: backend('rich', { scopes: ['ops'] }) },
  });
});
afterAll(async () => {
  await gw?.stop();
  await as?.close();
  killSpawned();
  removeTempDirs();
});

const call = (name: string, token?: string) =>
  postJson<{ result?: { isError?: boolean }; error?: unknown }>(
    `${gw.url}/messages/`,
    { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: {} } },
    token ? { token } : {},
  );
const status = (token?: string) => call('gateway_status', token);

describe('the gateway with gateway.oauth in its config', () => {
  it('publishes its metadata: the issuer, every backend scope and gateway:admin', async () => {
    const res = await fetch(`${gw.url}/.well-known/oauth-protected-resource/mcp`);
    expect(await res.json()).toEqual({
      resource: `${gw.url}/mcp`,
      authorization_servers: [as.issuer],
      scopes_supported: ['ops', 'gateway:admin'],
      bearer_methods_supported: ['header'],
    });
  });

  it('challenges a request without a token and serves one with a token for it', async () => {
    const refused = await status();
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toBe(
      `Bearer resource_metadata="${gw.url}/.well-known/oauth-protected-resource/messages/"`,
    );
    const token = await as.token(`${gw.url}/mcp`, 'ops');
    const served = await status(token);
    expect(served.status).toBe(200);
    expect(served.body?.result?.isError ?? false).toBe(false);
  });

  it("honours the config's scope hierarchy: gateway:admin may call what needs ops", async () => {
    const admin = await as.token(`${gw.url}/mcp`, 'gateway:admin');
    const served = await call('rich__who', admin);
    expect(served.status).toBe(200);
    expect(served.body?.result?.isError ?? false).toBe(false);
    // and not the other way: ops alone is no admin (restart_backend needs gateway:admin).
    const ops = await as.token(`${gw.url}/mcp`, 'ops');
    const refused = await postModernCall(`${gw.url}/mcp`, 'restart_backend', {}, { token: ops });
    expect(refused.status).toBe(403);
    expect(refused.headers.get('www-authenticate')).toContain('scope="gateway:admin"');
  });

  it('refuses an issuer that is not a URL in the config', () => {
    expect(() => parseConfig({ gateway: { oauth: { issuer: 'nope' } }, mcpServers: {} })).toThrow();
  });
});
