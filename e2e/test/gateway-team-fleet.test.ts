// @module-tag postgres
// @module-tag redis
// @module-tag haproxy
// @module-tag process
/**
 * The gateway as a team's front door, as a fleet: three instances in authorization-server mode
 * on one PostgreSQL store (clients, grants, sessions, signing keys, the credential vault) and
 * one Redis, behind the real HAProxy with `deploy/haproxy.cfg` (round-robin per request, no
 * stickiness). Two people sign in through the balancer, each connects their own key to an HTTP
 * backend and their own secret to a per-person stdio backend, and make 500 interleaved calls:
 * none carries the other's credential, whichever instance served it. A person who disconnects
 * an app is refused by every instance at the next request.
 */
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ServedHttp } from '@mcpkit/node';
import type { McpClient } from '@mcpkit/protocol';
import { connectSignedIn, type FormBrowser, postModernCall, signInAs } from '@mcpkit/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  dropKeys,
  freshSchema,
  preflightBalancerAndPostgres,
  ready,
  startBalancer,
} from './balancer.js';
import { appEnv, cliOf, freePort, type HttpApp, REPO, run, scratch, startHttp } from './helpers.js';
import { startRecorder } from './recorder.js';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const WHOAMI = join(REPO, 'apps', 'gateway', 'dist', 'fixtures', 'whoami.js');
const PASSWORDS = { alice: 'alice signs in to the fleet', bob: 'bob signs in to the fleet' };
const CALLS = 500;
/** Calls of q__whoami one person may make per window, across the fleet. */
const QUOTA = 50;

let undo: (() => unknown)[] = [];
let lb = '';
let instances: HttpApp[] = [];
let backend: ServedHttp;
/** The bearer token of every request the recording backend got. */
let seen: string[] = [];

afterAll(async () => {
  for (const step of undo.reverse()) await Promise.resolve(step()).catch(() => undefined);
  undo = [];
}, 30_000);

async function hash(password: string): Promise<string> {
  const made = await run(process.execPath, [cliOf('gateway'), 'hash-password'], {
    env: { PATH: process.env.PATH ?? '' },
    input: `${password}\n`,
    timeoutMs: 20_000,
  });
  if (made.code !== 0) throw new Error(`hash-password failed: ${made.stderr}`);
  return made.stdout.trim();
}

beforeAll(async () => {
  await preflightBalancerAndPostgres();
  const s = scratch('team-fleet');
  undo.push(() => s.cleanup());
  const shared = await freshSchema('team');
  undo.push(shared.drop);
  const prefix = `e2e-team-${process.pid}-${randomBytes(4).toString('hex')}:`;
  undo.push(() => dropKeys(prefix, REDIS_URL));

  // The recording backend answers with the bearer token of the call (its subject is the token).
  const recorder = await startRecorder();
  backend = recorder.backend;
  seen = recorder.seen;
  undo.push(() => backend.close());

  const lbPort = await freePort();
  lb = `http://127.0.0.1:${lbPort}`;
  writeFileSync(
    s.path('gateway.json'),
    JSON.stringify({
      gateway: {
        name: 'team-fleet',
        // Exact across the three instances: one counter per person in Redis.
        quotas: [{ name: 'q-budget', tools: ['q__whoami'], limit: QUOTA, window_sec: 600 }],
        authorization_server: {
          users: [
            { username: 'alice', password_hash: await hash(PASSWORDS.alice) },
            { username: 'bob', password_hash: await hash(PASSWORDS.bob) },
          ],
          store: shared.url,
        },
      },
      mcpServers: {
        rec: {
          url: backend.mcpUrl,
          headers: { Authorization: 'Bearer the-gateways-listing-key' },
          credential: { type: 'header', label: 'Recorder key' },
        },
        q: { url: backend.mcpUrl, headers: { Authorization: 'Bearer the-quota-backend-key' } },
        mine: {
          command: process.execPath,
          args: [WHOAMI],
          per_identity: true,
          credential: { type: 'env', variable: 'PERSON_KEY' },
        },
      },
    }),
  );
  const env = appEnv(s, {
    MCP_REDIS_URL: REDIS_URL,
    MCP_REDIS_PREFIX: prefix,
    MCP_GATEWAY_VAULT_KEY: randomBytes(32).toString('base64'),
  });
  instances = await Promise.all(
    [1, 2, 3].map(async () =>
      startHttp(
        'gateway',
        [
          '--config',
          s.path('gateway.json'),
          '--port',
          String(await freePort()),
          // The issuer every instance names: the balancer's URL, where people and clients go.
          '--public-url',
          lb,
          '--events',
          shared.url,
          '--log-level',
          'info',
        ],
        env,
        30_000,
      ),
    ),
  );
  undo.push(() => Promise.all(instances.map((i) => i.stop())));
  await Promise.all(instances.map((i) => ready(i.url)));
  const balancer: { haproxy: ChildProcess } = await startBalancer(
    lbPort,
    instances.map((i) => i.url),
  );
  undo.push(() => balancer.haproxy.kill('SIGKILL'));
}, 120_000);

const answer = (who: keyof typeof PASSWORDS) => signInAs(who, PASSWORDS[who]);

/** The person pastes `secret` on `backend`'s connect page (through the balancer). */
async function connect(browser: FormBrowser, backendName: string, secret: string): Promise<void> {
  const url = `${lb}/oauth/connect/${backendName}`;
  const form = await browser.fetch(url);
  expect(form.status).toBe(200);
  await form.text();
  const saved = await browser.fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ secret }),
  });
  expect(saved.status).toBe(303);
}

const textOf = (result: { content?: unknown }) =>
  ((result.content as { text?: string }[] | undefined)?.[0]?.text ?? '') as string;

describe('three gateway instances as one authorization server, behind HAProxy', () => {
  it('two people × 500 interleaved calls through the balancer: none carries the other’s credential', async () => {
    const alice = await connectSignedIn(`${lb}/mcp`, answer('alice'), { protocol: 'legacy' });
    const bob = await connectSignedIn(`${lb}/mcp`, answer('bob'), { protocol: 'auto' });
    try {
      expect(bob.client.era).toBe('modern');
      await connect(alice.browser, 'rec', 'alice-http-key');
      await connect(alice.browser, 'mine', 'alice-env-key');
      await connect(bob.browser, 'rec', 'bob-http-key');
      await connect(bob.browser, 'mine', 'bob-env-key');
      const expected = {
        alice: { rec: 'alice-http-key', mine: 'alice-env-key' },
        bob: { rec: 'bob-http-key', mine: 'bob-env-key' },
      };
      const wrong = { alice: 0, bob: 0 };
      const one = async (who: 'alice' | 'bob', client: McpClient, name: 'rec' | 'mine') => {
        const text = textOf(await client.callTool(`${name}__whoami`, {}));
        const got = name === 'rec' ? text : (JSON.parse(text) as { key: string }).key;
        if (got !== expected[who][name]) wrong[who]++;
      };
      for (let round = 0; round < CALLS / 10; round++) {
        const batch: Promise<void>[] = [];
        for (let i = 0; i < 10; i++) {
          const name = i % 2 === 0 ? 'rec' : 'mine';
          batch.push(one('alice', alice.client, name), one('bob', bob.client, name));
        }
        await Promise.all(batch);
      }
      expect(wrong).toEqual({ alice: 0, bob: 0 });
      // The backend saw each person's key, and the gateway's own keys (the listing key of
      // `rec`, the plain key of `q`, another backend on the same server) — nothing else.
      expect(new Set(seen)).toEqual(
        new Set([
          'Bearer alice-http-key',
          'Bearer bob-http-key',
          'Bearer the-gateways-listing-key',
          'Bearer the-quota-backend-key',
        ]),
      );
    } finally {
      await alice.client.close();
      await bob.client.close();
    }
  });

  it('a quota of N calls per person holds exactly across the three instances', async () => {
    const alice = await connectSignedIn(`${lb}/mcp`, answer('alice'), { protocol: 'legacy' });
    try {
      let ok = 0;
      let refused = 0;
      for (let round = 0; round < 10; round++) {
        await Promise.all(
          Array.from({ length: 8 }, () =>
            alice.client.callTool('q__whoami', {}).then(
              () => {
                ok++;
              },
              (err: unknown) => {
                expect(String((err as Error).message)).toMatch(/^Quota 'q-budget' exceeded/);
                refused++;
              },
            ),
          ),
        );
      }
      expect({ ok, refused }).toEqual({ ok: QUOTA, refused: 80 - QUOTA });
    } finally {
      await alice.client.close();
    }
  });

  it('an app a person disconnects is refused by every instance at its next request', async () => {
    const alice = await connectSignedIn(`${lb}/mcp`, answer('alice'), { protocol: 'legacy' });
    const bob = await connectSignedIn(`${lb}/mcp`, answer('bob'), { protocol: 'legacy' });
    await alice.client.close();
    await bob.client.close();
    const token = async (store: typeof alice.store) =>
      (await store.tokens(`${lb}/mcp`))?.accessToken as string;
    const [aliceToken, bobToken] = await Promise.all([token(alice.store), token(bob.store)]);
    // Every instance takes the token (a key made by one verifies on all) …
    for (const i of instances) {
      expect(
        (await postModernCall(`${i.url}/mcp`, 'rec__whoami', {}, { token: aliceToken })).status,
      ).toBe(200);
    }
    // … until alice disconnects the app on her connections page (through any instance).
    const clientId = (await alice.store.registration(lb))?.clientId as string;
    expect(clientId).toBeTruthy();
    const res = await alice.browser.fetch(`${lb}/oauth/connections`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ client_id: clientId }),
    });
    expect(res.status).toBe(303);
    for (const i of instances) {
      expect(
        (await postModernCall(`${i.url}/mcp`, 'rec__whoami', {}, { token: aliceToken })).status,
      ).toBe(401);
      // Bob's grant is his own: untouched.
      expect(
        (await postModernCall(`${i.url}/mcp`, 'rec__whoami', {}, { token: bobToken })).status,
      ).toBe(200);
    }
  });
});
