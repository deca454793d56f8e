// @module-tag process
/**
 * The hosted-connector flow end to end, with a client nobody here wrote: SDK v2's Client and its
 * OAuth provider, given only the gateway's URL, register (DCR), are sent to sign in at the
 * organisation's OpenID provider (an oidc-provider this test starts) through the gateway's
 * pages, consent, get a token, list the tools — and a call to a backend that needs the person's
 * own key answers -32042, which SDK v2 reads as its UrlElicitationRequiredError. The person opens
 * the URL in the same browser, pastes their key, and the retried call runs with it: the backend
 * records which key it saw.
 */
import { writeFileSync } from 'node:fs';
import type { ServedHttp } from '@mcpkit/node';
import { formBrowser, startAuthorizationServer } from '@mcpkit/testing';
import {
  Client,
  StreamableHTTPClientTransport,
  UnauthorizedError,
  UrlElicitationRequiredError,
} from '@modelcontextprotocol/client';
import { afterAll, describe, expect, it } from 'vitest';
import { appEnv, freePort, killAll, scratch, startHttp, within } from './helpers.js';
import { startRecorder } from './recorder.js';
import { MemoryOAuthProvider, REDIRECT } from './sdk-oauth-provider.js';

const REQUEST = { timeout: 20_000 };

afterAll(killAll);

describe('SDK v2 through the gateway as a hosted connector', () => {
  it('signs in at the upstream IdP, is asked to connect a backend, connects, and the call carries the person’s key', async () => {
    const s = scratch('gateway-connector');
    const idp = await startAuthorizationServer(['unused']);
    let backend: ServedHttp | undefined;
    const clients: Client[] = [];
    let stop: (() => Promise<void>) | undefined;
    try {
      const recorder = await startRecorder();
      backend = recorder.backend;
      const seen = recorder.seen;
      const port = await freePort();
      const origin = `http://127.0.0.1:${port}`;
      // The operator registers the gateway at the IdP, its callback as the redirect URI.
      const registered = await idp.registerClient(`${origin}/oauth/upstream/callback`);
      writeFileSync(
        s.path('gateway.json'),
        JSON.stringify({
          gateway: {
            authorization_server: {
              upstream: {
                issuer: idp.issuer,
                client_id: registered.clientId,
                client_secret: registered.clientSecret,
                name: 'Example Corp',
              },
              store: s.path('auth.db'),
            },
          },
          mcpServers: {
            rec: {
              url: backend.mcpUrl,
              headers: { Authorization: 'Bearer the-gateways-listing-key' },
              credential: { type: 'header', label: 'Recorder key' },
            },
          },
        }),
      );
      const gw = await startHttp(
        'gateway',
        [
          '--config',
          s.path('gateway.json'),
          '--events',
          s.path('events.db'),
          '--port',
          String(port),
        ],
        appEnv(s, { MCP_GATEWAY_VAULT_KEY: Buffer.alloc(32, 7).toString('base64') }),
      );
      stop = () => gw.stop();
      const provider = new MemoryOAuthProvider();
      const connect = () => {
        const transport = new StreamableHTTPClientTransport(new URL(gw.mcpUrl), {
          authProvider: provider,
        });
        const client = new Client({ name: 'mcpkit-e2e-connector', version: '0.0.0' });
        clients.push(client);
        return { client, transport };
      };

      // 1. Unauthenticated: DCR at the gateway, the person sent to sign in.
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
      // 2. The person's browser: "Sign in with Example Corp", the IdP's pages, the consent.
      const person = formBrowser(
        REDIRECT,
        (html): Record<string, string> =>
          html.includes('Allow access?') ? { decision: 'allow' } : {},
      );
      const callback = await within(
        person.visit(provider.authorizations[0] as URL),
        30_000,
        'sign-in',
      );
      expect(person.pages[0]).toContain('Sign in with Example Corp');
      await within(first.transport.finishAuth(callback.searchParams), 20_000, 'finishAuth');

      // 3. Connected: the tools are listed; the call is refused until the person connects.
      const second = connect();
      await within(second.client.connect(second.transport, REQUEST), 30_000, 'second connect');
      const { tools } = await second.client.listTools({}, REQUEST);
      expect(tools.map((t) => t.name)).toContain('rec__whoami');
      const asked = await second.client
        .callTool({ name: 'rec__whoami', arguments: {} }, REQUEST)
        .then(
          () => undefined,
          (err: unknown) => err,
        );
      expect(asked).toBeInstanceOf(UrlElicitationRequiredError);
      const [elicitation] = (asked as UrlElicitationRequiredError).elicitations;
      expect(elicitation?.url).toBe(`${origin}/oauth/connect/rec?for=${idp.account}`);

      // 4. The person opens it (their gateway session is in this browser) and pastes their key.
      const form = await person.fetch(elicitation?.url as string);
      expect(form.status).toBe(200);
      expect(await form.text()).toContain('Recorder key');
      const saved = await person.fetch(elicitation?.url as string, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ secret: 'the-persons-own-key' }),
      });
      expect(saved.status).toBe(303);

      // 5. The retry: the backend saw the person's key, the gateway's own only for listing.
      const result = await second.client.callTool({ name: 'rec__whoami', arguments: {} }, REQUEST);
      expect((result.content as { text: string }[])[0]?.text).toBe('the-persons-own-key');
      expect(new Set(seen)).toEqual(
        new Set(['Bearer the-gateways-listing-key', 'Bearer the-persons-own-key']),
      );
    } finally {
      await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
      await stop?.();
      await backend?.close();
      await idp.close();
      s.cleanup();
    }
  }, 120_000);
});
