/**
 * People's own processes of a per-identity stdio backend are bounded: one closed after
 * `per_person.idle_sec` without a call, the least recently used idle one stopped to make room
 * at `per_person.max_links` — and a person whose link went gets a new one at their next call.
 */
import { join } from 'node:path';
import {
  freePort,
  type HttpProcess,
  isAlive,
  killSpawned,
  removeTempDirs,
  tempDir,
  waitFor,
} from '@mcpkit/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashPassword } from '../src/auth/users.js';
import { newVaultKey } from '../src/vault/keys.js';
import { connectSignedIn, fixture, spawnHttpGateway } from './helpers.js';

const PEOPLE = ['ann', 'ben', 'cat'] as const;
const password = (who: string) => `${who} has a long enough password`;
let gw: HttpProcess;

async function start(perPerson: { max_links: number; idle_sec: number }): Promise<HttpProcess> {
  const dir = tempDir('gw-personal-pool-');
  return spawnHttpGateway(
    {
      gateway: {
        authorization_server: {
          users: await Promise.all(
            PEOPLE.map(async (username) => ({
              username,
              password_hash: await hashPassword(password(username)),
            })),
          ),
          store: join(dir, 'auth.db'),
        },
        per_person: perPerson,
      },
      mcpServers: {
        mine: {
          command: process.execPath,
          args: [fixture('whoami')],
          per_identity: true,
          credential: { type: 'env', variable: 'PERSON_KEY' },
        },
      },
    },
    {
      args: ['--port', String(await freePort())],
      dir,
      env: { ...process.env, MCP_GATEWAY_VAULT_KEY: newVaultKey() },
    },
  );
}

/** `who` signed in, with their secret connected: a function that calls and returns the pid. */
async function person(who: string) {
  const { client, browser } = await connectSignedIn(
    `${gw.url}/mcp`,
    (html): Record<string, string> =>
      html.includes('name="password"')
        ? { username: who, password: password(who) }
        : { decision: 'allow' },
    { protocol: 'legacy' },
  );
  const saved = await browser.fetch(`${gw.url}/oauth/connect/mine`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ secret: `${who}-secret` }),
  });
  expect(saved.status).toBe(303);
  return {
    client,
    pid: async () => {
      const result = await client.callTool('mine__whoami', {});
      const said = JSON.parse((result.content as { text: string }[])[0]?.text ?? '') as {
        key: string;
        pid: number;
      };
      expect(said.key).toBe(`${who}-secret`);
      return said.pid;
    },
  };
}

type Person = Awaited<ReturnType<typeof person>>;
const gone = (pid: number) => !isAlive(pid);

afterAll(async () => {
  await gw?.stop();
  killSpawned();
  removeTempDirs();
});

describe('per-person processes', () => {
  beforeAll(async () => {
    gw = await start({ max_links: 2, idle_sec: 600 });
  });

  it('at max_links the least recently used one is stopped for a newcomer; its owner gets a new one', async () => {
    const [ann, ben, cat] = (await Promise.all(PEOPLE.map(person))) as [Person, Person, Person];
    const annPid = await ann.pid();
    const benPid = await ben.pid();
    expect(annPid).not.toBe(benPid);
    // ben used his since ann: ann's is the least recently used.
    await ben.pid();
    const catPid = await cat.pid();
    await waitFor('ann’s process to be stopped', () => gone(annPid), 10_000, 20);
    expect(isAlive(benPid)).toBe(true);
    // ann calls again: a process of her own, with her secret (the least recent, ben's, makes room).
    const again = await ann.pid();
    expect([annPid, benPid, catPid]).not.toContain(again);
    await waitFor('ben’s process to be stopped', () => gone(benPid), 10_000, 20);
    for (const p of [ann, ben, cat]) await p.client.close();
  });
});

describe('an idle per-person process', () => {
  beforeAll(async () => {
    await gw.stop();
    gw = await start({ max_links: 8, idle_sec: 0.3 });
  });

  it('is stopped after idle_sec without a call, and started again at the next', async () => {
    const ann = await person('ann');
    const first = await ann.pid();
    await waitFor('the idle process to be stopped', () => gone(first), 10_000, 20);
    const second = await ann.pid();
    expect(second).not.toBe(first);
    await ann.client.close();
  });
});
