import { formBrowser } from '@mcpkit/testing';
import {
  Client,
  StreamableHTTPClientTransport,
  UnauthorizedError,
} from '@modelcontextprotocol/client';
import { afterAll, describe, expect, it } from 'vitest';
import { ALICE_PASSWORD, startSignInGateway } from './gateway-as.js';
import { cliOf, type HttpApp, killAll, scratch, within } from './helpers.js';
import { MemoryOAuthProvider, REDIRECT } from './sdk-oauth-provider.js';

const REQUEST = { timeout: 20_000 };

afterAll(killAll);

type Negotiation = ConstructorParameters<typeof Client>[1];
const ERAS: [string, Negotiation][] = [
  ['2025 (initialize)', undefined],
  [
    '2026-07-28 (server/discover probe)',
    { versionNegotiation: { mode: 'auto', probe: { timeoutMs: 10_000 } } },
  ],
];

/** The payload of a JWT, unverified (the gateway verified it; this reads what it saw). */
const claims = (jwt: string | undefined): Record<string, unknown> =>
  JSON.parse(Buffer.from(jwt?.split('.')[1] ?? '', 'base64url').toString('utf8')) as Record<
    string,
    unknown
  >;

describe('SDK v2 client signs in at the gateway (authorization-server mode)', () => {
  it.each(ERAS)(
    '%s: discovers, registers, the person signs in and consents, the call carries their token',
    async (_era, negotiation) => {
      const s = scratch(`gateway-sign-in-${negotiation ? 'modern' : 'legacy'}`);
      let gw: HttpApp | undefined;
      const clients: Client[] = [];
      try {
        gw = await startSignInGateway(s, {
          sysinfo: {
            command: process.execPath,
            args: [cliOf('system-info'), '--log-level', 'warn'],
            namespace: 'sysinfo',
            scopes: ['ops'],
          },
        });
        const mcpUrl = gw.mcpUrl;
        const provider = new MemoryOAuthProvider();
        const connect = () => {
          const transport = new StreamableHTTPClientTransport(new URL(mcpUrl), {
            authProvider: provider,
          });
          const client = new Client(
            { name: 'mcpkit-e2e-gateway-sign-in', version: '0.0.0' },
            negotiation,
          );
          clients.push(client);
          return { client, transport };
        };

        // 1. No token: 401 → metadata → DCR at the gateway → the person is sent to sign in.
        const first = connect();
        const refused = await within(
          first.client.connect(first.transport, REQUEST).then(
            () => undefined,
            (err: unknown) => err,
          ),
          30_000,
          'first connect',
        );
        expect(refused).toBeInstanceOf(UnauthorizedError);
        expect(provider.clientInformation()?.client_id).toBeTruthy();
        const asked = provider.authorizations[0] as URL;
        expect(`${asked.origin}${asked.pathname}`).toBe(`${gw.url}/oauth/authorize`);
        expect(asked.searchParams.get('resource')).toBe(mcpUrl);
        expect(asked.searchParams.get('code_challenge_method')).toBe('S256');

        // 2. The person at the gateway's pages: sign in, then allow.
        const person = formBrowser(
          REDIRECT,
          (html): Record<string, string> =>
            html.includes('name="password"')
              ? { username: 'alice', password: ALICE_PASSWORD }
              : { decision: 'allow' },
        );
        const callback = await within(person.visit(asked), 20_000, 'sign-in');
        expect(callback.searchParams.get('error')).toBeNull();
        expect(callback.searchParams.get('state')).toBe(asked.searchParams.get('state'));
        expect(callback.searchParams.get('iss')).toBe(gw.url);
        expect(person.pages.some((html) => html.includes('mcpkit e2e (SDK v2)'))).toBe(true);
        await within(first.transport.finishAuth(callback.searchParams), 20_000, 'finishAuth');
        expect(claims(provider.tokens()?.access_token)).toMatchObject({
          iss: gw.url,
          sub: 'alice',
          aud: mcpUrl,
        });

        // 3. Connected: the backend's tools listed and called as alice.
        const second = connect();
        await within(second.client.connect(second.transport, REQUEST), 30_000, 'second connect');
        const { tools } = await within(second.client.listTools({}, REQUEST), 20_000, 'tools/list');
        expect(tools.map((t) => t.name)).toEqual(
          expect.arrayContaining(['gateway_status', 'sysinfo__get_uptime']),
        );
        const uptime = await within(
          second.client.callTool({ name: 'sysinfo__get_uptime', arguments: {} }, REQUEST),
          20_000,
          'get_uptime',
        );
        expect(uptime.isError ?? false).toBe(false);
      } finally {
        await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
        await gw?.stop();
        s.cleanup();
      }
    },
    120_000,
  );
});
