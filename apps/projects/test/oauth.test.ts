/**
 * projects with OAuth sign-in, against a real authorization server (oidc-provider on
 * 127.0.0.1): a token's subject becomes a projects user on its first sign-in, reaches that
 * user's projects only, and its `scope` claim grants read and write as an API key's scopes do.
 * API keys keep working beside it.
 */
import { createOAuthResourceServer, type ServedHttp, serveHttp } from '@mcpkit/node';
import {
  postModernCall,
  removeTempDirs,
  startAuthorizationServer,
  type TestAuthorizationServer,
} from '@mcpkit/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { projectsOAuth } from '../src/auth.js';
import type { Store } from '../src/db/types.js';
import { createProjectsServer, projectsHttpOptions } from '../src/server.js';
import { tempStore, userWithKey } from './helpers.js';

let as: TestAuthorizationServer;
let store: Store;
let http: ServedHttp;
let key: string;

beforeAll(async () => {
  as = await startAuthorizationServer(['read', 'write']);
  ({ store } = await tempStore());
  const owner = await userWithKey(store, 'anna@example.com', ['read', 'write']);
  key = owner.key;
  await store.createProject(owner.user.id, { name: "Anna's" });
  const options = projectsHttpOptions(store, { points: 1000, windowSec: 60 });
  http = await serveHttp(createProjectsServer({ store }), {
    ...options,
    auth: {
      ...options.auth,
      oauth: createOAuthResourceServer({ issuer: as.issuer, ...projectsOAuth(store) }),
    },
  });
});
afterAll(async () => {
  await http?.close();
  await store?.close();
  await as?.close();
  removeTempDirs();
});

type Reply = {
  result?: { structuredContent?: { projects?: { name: string }[] }; isError?: boolean };
  error?: { code: number; message: string };
};
const post = (token: string, name: string, args: Record<string, unknown> = {}) =>
  postModernCall<Reply>(http.mcpUrl, name, args, { token });
const call = async (token: string, name: string, args: Record<string, unknown> = {}) =>
  (await post(token, name, args)).body as Reply;

const names = (reply: Reply) => reply.result?.structuredContent?.projects?.map((p) => p.name);

describe('projects with OAuth sign-in', () => {
  it('makes a first sign-in a user of its own, who sees only their projects', async () => {
    const token = await as.token(http.mcpUrl, 'read write');
    expect(names(await call(token, 'list_projects'))).toEqual([]);
    const made = await call(token, 'create_project', { name: 'Signed in' });
    expect(made.error).toBeUndefined();
    expect(names(await call(token, 'list_projects'))).toEqual(['Signed in']);
    // The user is the token's identity, provisioned once: the client's subject at this issuer.
    const user = await store.getUserByEmail(`test-service@${new URL(as.issuer).host}`);
    expect(user).toBeDefined();
    // The API key's user sees theirs, not the signed-in user's.
    expect(names(await call(key, 'list_projects'))).toEqual(["Anna's"]);
  });

  it("grants what the token's scope says: read alone cannot write", async () => {
    const token = await as.token(http.mcpUrl, 'read');
    expect(names(await call(token, 'list_projects'))).toEqual(['Signed in']);
    // A write tool needs `write`: 403 insufficient_scope naming it, so the client can step up.
    const refused = await post(token, 'create_project', { name: 'Nope' });
    expect(refused.status).toBe(403);
    expect(refused.headers.get('www-authenticate')).toMatch(
      /^Bearer error="insufficient_scope", resource_metadata="[^"]+", scope="write"$/,
    );
    expect(names(await call(token, 'list_projects'))).toEqual(['Signed in']);
  });

  it('takes write as including read (its scope hierarchy)', async () => {
    const token = await as.token(http.mcpUrl, 'write');
    const listed = await post(token, 'list_projects');
    expect(listed.status).toBe(200);
    expect(names(listed.body as Reply)).toEqual(['Signed in']);
  });
});
