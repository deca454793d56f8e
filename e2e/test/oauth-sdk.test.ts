// @module-tag process
/**
 * A real third-party client signs in to an mcpkit app: the official SDK v2 client
 * (@modelcontextprotocol/client 2.4.0) with an OAuthClientProvider of its own, against
 * system-info started with `--auth-issuer` and a real authorization server (oidc-provider,
 * @mcpkit/testing). Nothing is given to the client but the MCP URL: it finds the Protected
 * Resource Metadata from the 401, the authorization server's metadata from there, registers
 * itself (DCR), sends the user to authorize (PKCE, `resource`), redeems the code — and when a
 * tool needs more (`get_auth_logs` needs `sensitive`), the 403 insufficient_scope makes it ask
 * again for the union of scopes (step-up). Both eras: the 2025 handshake (the server reads the
 * tool from the body) and the 2026-07-28 probe (from the Mcp-Method / Mcp-Name headers).
 */

import { startAuthorizationServer, type TestAuthorizationServer } from '@mcpkit/testing';
import {
  Client,
  StreamableHTTPClientTransport,
  UnauthorizedError,
} from '@modelcontextprotocol/client';
import { afterAll, describe, expect, it } from 'vitest';
import {
  type HttpApp,
  killAll,
  prepare,
  type Scratch,
  scratch,
  startHttp,
  within,
} from './helpers.js';
import { MemoryOAuthProvider, REDIRECT } from './sdk-oauth-provider.js';

const REQUEST = { timeout: 20_000 };

afterAll(killAll);

interface Exchange {
  method: string;
  /** Origin and path, without the query. */
  url: string;
  status: number;
  /** The JSON-RPC method of a POST to the MCP endpoint, and its tool for tools/call. */
  rpc?: string;
  /** The bearer token sent, if any. */
  token?: string;
}

/** The payload of a JWT, unverified (the server verified it; this reads what it saw). */
const claims = (jwt: string | undefined): Record<string, unknown> =>
  JSON.parse(Buffer.from(jwt?.split('.')[1] ?? '', 'base64url').toString('utf8')) as Record<
    string,
    unknown
  >;

const scopesOf = (scope: unknown): string[] =>
  typeof scope === 'string' ? scope.split(' ').filter(Boolean).sort() : [];

type Negotiation = ConstructorParameters<typeof Client>[1];
const ERAS: [string, Negotiation][] = [
  ['2025 (initialize)', undefined],
  [
    '2026-07-28 (server/discover probe)',
    { versionNegotiation: { mode: 'auto', probe: { timeoutMs: 10_000 } } },
  ],
];

describe('SDK v2 client signs in to system-info (--auth-issuer) through a real authorization server', () => {
  it.each(ERAS)(
    '%s: discovers, registers, authorizes with PKCE and resource, calls; steps up to sensitive after one more authorization',
    async (_era, negotiation) => {
      const s: Scratch = scratch(`oauth-sdk-${negotiation ? 'modern' : 'legacy'}`);
      let as: TestAuthorizationServer | undefined;
      let app: HttpApp | undefined;
      const clients: Client[] = [];
      const exchanges: Exchange[] = [];
      try {
        as = await startAuthorizationServer(['core', 'sensitive']);
        const authServer = as;
        const prepared = await prepare('system-info', s);
        app = await startHttp(
          'system-info',
          [...prepared.httpArgs, '--enable-sensitive', '--auth-issuer', as.issuer],
          prepared.env,
        );
        const server = app;
        const mcpUrl = server.mcpUrl;

        // Every request the SDK makes — to the app and to the authorization server — on record.
        const recording = async (input: string | URL, init?: RequestInit): Promise<Response> => {
          const response = await fetch(input, init);
          const url = new URL(typeof input === 'string' ? input : input.href);
          const exchange: Exchange = {
            method: init?.method ?? 'GET',
            url: `${url.origin}${url.pathname}`,
            status: response.status,
          };
          const auth = new Headers(init?.headers).get('authorization');
          if (auth?.startsWith('Bearer ')) exchange.token = auth.slice('Bearer '.length);
          if (exchange.url === mcpUrl && typeof init?.body === 'string') {
            try {
              const body = JSON.parse(init.body) as { method?: string; params?: { name?: string } };
              exchange.rpc = [body.method, body.params?.name].filter(Boolean).join(' ');
            } catch {
              // not JSON: leave rpc unset
            }
          }
          exchanges.push(exchange);
          return response;
        };
        const provider = new MemoryOAuthProvider();
        const connect = async () => {
          const transport = new StreamableHTTPClientTransport(new URL(mcpUrl), {
            authProvider: provider,
            fetch: recording,
          });
          const client = new Client(
            { name: 'mcpkit-e2e-oauth-sdk', version: '0.0.0' },
            negotiation,
          );
          clients.push(client);
          return { client, transport };
        };
        /** The user at the authorization server: the redirect back, checked against our state. */
        const authorize = async (url: URL) => {
          const callback = await within(authServer.authorize(url), 20_000, 'authorize');
          expect(callback.origin + callback.pathname).toBe(REDIRECT);
          expect(callback.searchParams.get('error')).toBeNull();
          expect(callback.searchParams.get('state')).toBe(url.searchParams.get('state'));
          expect(callback.searchParams.get('iss')).toBe(authServer.issuer);
          return callback;
        };
        const since = (n: number) => exchanges.slice(n).map((e) => `${e.method} ${e.url}`);

        // 1. No token: the 401 names the metadata; the SDK discovers, registers, sends the user.
        const first = await connect();
        const refused = await within(
          first.client.connect(first.transport, REQUEST).then(
            () => undefined,
            (err: unknown) => err,
          ),
          30_000,
          'first connect',
        );
        expect(refused).toBeInstanceOf(UnauthorizedError);
        expect(exchanges[0]).toMatchObject({ method: 'POST', url: mcpUrl, status: 401 });
        expect(exchanges[0]?.token).toBeUndefined();
        expect(since(0)).toEqual(
          expect.arrayContaining([
            `GET ${server.url}/.well-known/oauth-protected-resource/mcp`,
            `POST ${as.issuer}/reg`,
          ]),
        );
        // RFC 8414 metadata (or OpenID discovery, the fallback) of the server the PRM names.
        expect(
          exchanges.some(
            (e) =>
              e.url.startsWith(`${authServer.issuer}/.well-known/`) &&
              /(oauth-authorization-server|openid-configuration)$/.test(e.url) &&
              e.status === 200,
          ),
        ).toBe(true);
        expect(provider.clientInformation()?.client_id).toBeTruthy();
        expect(provider.authorizations).toHaveLength(1);
        const asked = provider.authorizations[0] as URL;
        expect(`${asked.origin}${asked.pathname}`).toBe(`${as.issuer}/auth`);
        expect(Object.fromEntries(asked.searchParams)).toMatchObject({
          response_type: 'code',
          client_id: provider.clientInformation()?.client_id,
          code_challenge_method: 'S256',
          redirect_uri: REDIRECT,
          resource: mcpUrl,
        });
        expect(asked.searchParams.get('code_challenge')).toMatch(/^[A-Za-z0-9_-]{43}$/);
        expect(scopesOf(asked.searchParams.get('scope'))).toContain('core');
        expect(scopesOf(asked.searchParams.get('scope'))).not.toContain('sensitive');

        // 2. The user signs in and consents; the code (with iss, RFC 9207) goes back to the SDK.
        const callback = await authorize(asked);
        let mark = exchanges.length;
        await within(first.transport.finishAuth(callback.searchParams), 20_000, 'finishAuth');
        expect(since(mark)).toContain(`POST ${as.issuer}/token`);
        const coreToken = provider.tokens();
        expect(coreToken?.token_type.toLowerCase()).toBe('bearer');
        expect(claims(coreToken?.access_token)).toMatchObject({
          iss: as.issuer,
          sub: as.account,
          aud: mcpUrl,
        });
        expect(scopesOf(claims(coreToken?.access_token).scope)).toEqual(['core']);

        // 3. Connected with the token: tools listed, get_uptime answers.
        const second = await connect();
        await within(second.client.connect(second.transport, REQUEST), 30_000, 'second connect');
        expect(second.client.getProtocolEra()).toBe(negotiation ? 'modern' : 'legacy');
        const { tools } = await within(second.client.listTools({}, REQUEST), 20_000, 'tools/list');
        const names = tools.map((t) => t.name);
        expect(names).toEqual(expect.arrayContaining(['get_uptime', 'get_auth_logs']));
        const uptime = await within(
          second.client.callTool({ name: 'get_uptime', arguments: {} }, REQUEST),
          20_000,
          'get_uptime',
        );
        expect(uptime.isError ?? false).toBe(false);
        expect(
          (uptime.structuredContent as { uptime_seconds?: unknown } | undefined)?.uptime_seconds,
        ).toBeGreaterThan(0);

        // 4. A tool that needs `sensitive`: 403 insufficient_scope; the SDK steps up — a new
        // authorization request for the union of scopes (refresh cannot widen scope), which stops
        // at the user: the call itself rejects with UnauthorizedError.
        mark = exchanges.length;
        const stepped = await within(
          second.client.callTool({ name: 'get_auth_logs', arguments: {} }, REQUEST).then(
            (result) => ({ result }),
            (err: unknown) => ({ err }),
          ),
          30_000,
          'get_auth_logs (step-up)',
        );
        const forbidden = exchanges
          .slice(mark)
          .find((e) => e.rpc === 'tools/call get_auth_logs' && e.status === 403);
        expect(forbidden?.token).toBe(coreToken?.access_token);
        expect('err' in stepped ? stepped.err : stepped.result).toBeInstanceOf(UnauthorizedError);
        expect(provider.authorizations).toHaveLength(2);
        const more = provider.authorizations[1] as URL;
        expect(more.searchParams.get('resource')).toBe(mcpUrl);
        expect(scopesOf(more.searchParams.get('scope'))).toEqual(
          expect.arrayContaining(['core', 'sensitive']),
        );
        // Same client registration: no second DCR.
        expect(since(mark)).not.toContain(`POST ${as.issuer}/reg`);
        expect(more.searchParams.get('client_id')).toBe(provider.clientInformation()?.client_id);

        // 5. One more authorization, redeemed on the same transport, and the same tool call on the
        // same connection goes through.
        const again = await authorize(more);
        await within(
          second.transport.finishAuth(again.searchParams),
          20_000,
          'finishAuth (step-up)',
        );
        const wider = provider.tokens();
        expect(scopesOf(claims(wider?.access_token).scope)).toEqual(['core', 'sensitive']);
        expect(claims(wider?.access_token)).toMatchObject({ sub: as.account, aud: mcpUrl });
        mark = exchanges.length;
        const logs = await within(
          second.client.callTool({ name: 'get_auth_logs', arguments: {} }, REQUEST),
          20_000,
          'get_auth_logs',
        );
        expect(logs.isError ?? false).toBe(false);
        expect(
          Array.isArray((logs.structuredContent as { lines?: unknown } | undefined)?.lines),
        ).toBe(true);
        const served = exchanges
          .slice(mark)
          .find((e) => e.rpc === 'tools/call get_auth_logs' && e.status === 200);
        // The token the server accepted for it: core and sensitive, for this server, for alice.
        expect(served?.token).toBe(wider?.access_token);
        expect(scopesOf(claims(served?.token).scope)).toEqual(['core', 'sensitive']);
        expect(claims(served?.token)).toMatchObject({ iss: as.issuer, sub: 'alice', aud: mcpUrl });
        // Exactly two authorizations in all.
        expect(provider.authorizations).toHaveLength(2);
      } catch (err) {
        console.error(
          `exchanges:\n${exchanges.map((e) => `${e.method} ${e.url} ${e.status}${e.rpc ? ` (${e.rpc})` : ''}`).join('\n')}\nserver stderr:\n${app?.stderr().slice(-4000) ?? ''}`,
        );
        throw err;
      } finally {
        for (const client of clients) await within(client.close(), 10_000, 'close').catch(() => {});
        await app?.stop();
        await as?.close();
        s.cleanup();
      }
    },
  );
});
