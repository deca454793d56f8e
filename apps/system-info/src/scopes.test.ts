import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CliUsageError, staticTokens } from '@mcpkit/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { normalMachine, serve } from '../test/fixtures.js';
import { KNOWN_SCOPES, loadTokens, parseScopes, type Scope, scopeError } from './scopes.js';

const TOKEN = 'abcdefghijklmnop0123';
const OTHER = 'qrstuvwxyz98765432';

describe('parseScopes', () => {
  it('core is always on', () => {
    expect(parseScopes(undefined, false)).toEqual(new Set(['core']));
    expect(parseScopes('', false)).toEqual(new Set(['core']));
    expect(parseScopes('core', false)).toEqual(new Set(['core']));
  });

  it('sensitive via the list', () => {
    expect(parseScopes('sensitive', false)).toEqual(new Set(['core', 'sensitive']));
    expect(parseScopes(' core , sensitive ,', false)).toEqual(new Set(['core', 'sensitive']));
  });

  it('sensitive via the flag', () => {
    expect(parseScopes(undefined, true)).toEqual(new Set(['core', 'sensitive']));
    expect(parseScopes('core', true)).toEqual(new Set(['core', 'sensitive']));
  });

  it('an unknown scope is a usage error naming it and the known ones', () => {
    expect(() => parseScopes('core,admin', false)).toThrow(CliUsageError);
    expect(() => parseScopes('core,admin', true)).toThrow(/unknown scope 'admin'/);
    expect(() => parseScopes('Sensitive', false)).toThrow(CliUsageError);
    try {
      parseScopes('root', false);
      expect.unreachable('parseScopes accepted an unknown scope');
    } catch (err) {
      for (const known of KNOWN_SCOPES) expect((err as Error).message).toContain(known);
    }
  });
});

describe('scopeError', () => {
  it("is the error of MCP System Info's JSON-RPC API, without data", () => {
    expect(scopeError('get_auth_logs', 'sensitive', 'server').toJSON()).toEqual({
      code: -32600,
      message: "Query 'get_auth_logs' requires scope 'sensitive' which is not enabled",
    });
  });

  it('names the token, not the server, when only the token lacks the scope', () => {
    expect(scopeError('get_auth_logs', 'sensitive', 'caller').toJSON()).toEqual({
      code: -32600,
      message:
        "Query 'get_auth_logs' requires scope 'sensitive' which is not granted to this token",
    });
  });
});

describe('loadTokens', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'system-info-tokens-'));
  });
  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  const file = (name: string, content: unknown) => {
    const path = join(dir, name);
    writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content));
    return path;
  };

  it('no token and no file: no tokens', () => {
    expect(loadTokens(undefined, undefined, new Set<Scope>(['core']))).toEqual([]);
  });

  it('--token holds every enabled scope', () => {
    const enabled = parseScopes('sensitive', false);
    const tokens = loadTokens(TOKEN, undefined, enabled);
    expect(tokens).toHaveLength(1);
    expect(tokens[0]?.token).toBe(TOKEN);
    expect(tokens[0]?.subject).toBe('token');
    expect(new Set(tokens[0]?.scopes)).toEqual(new Set(['core', 'sensitive']));
    const coreOnly = loadTokens(TOKEN, undefined, parseScopes(undefined, false));
    expect(new Set(coreOnly[0]?.scopes)).toEqual(new Set(['core']));
  });

  it('a tokens file: names and scopes, core by default, token-<n> without a name', () => {
    const path = file('tokens.json', {
      tokens: [
        { name: 'ops', token: TOKEN, scopes: ['core', 'sensitive'] },
        { name: 'dashboard', token: OTHER },
        { token: 'zzzzzzzzzzzzzzzzzzzz', scopes: ['core'] },
      ],
    });
    const tokens = loadTokens(undefined, path, new Set<Scope>(['core']));
    expect(tokens.map((t) => ({ ...t, scopes: [...(t.scopes ?? [])] }))).toEqual([
      { token: TOKEN, subject: 'ops', scopes: ['core', 'sensitive'] },
      { token: OTHER, subject: 'dashboard', scopes: ['core'] },
      { token: 'zzzzzzzzzzzzzzzzzzzz', subject: 'token-3', scopes: ['core'] },
    ]);
  });

  it('--token and a file together: the --token first', () => {
    const path = file('one.json', { tokens: [{ name: 'ops', token: OTHER, scopes: ['core'] }] });
    const tokens = loadTokens(TOKEN, path, new Set<Scope>(['core', 'sensitive']));
    expect(tokens.map((t) => t.subject)).toEqual(['token', 'ops']);
  });

  it('the tokens work with the HTTP authenticator', () => {
    const path = file('auth.json', { tokens: [{ name: 'ops', token: OTHER, scopes: ['core'] }] });
    const auth = staticTokens(loadTokens(TOKEN, path, new Set<Scope>(['core', 'sensitive'])));
    const fakeReq = {} as Parameters<typeof auth>[1];
    const ops = auth(OTHER, fakeReq) as { subject: string; scopes: ReadonlySet<string> };
    expect(ops.subject).toBe('ops');
    expect([...ops.scopes]).toEqual(['core']);
    expect(auth('not-a-known-token-at-all', fakeReq)).toBeUndefined();
  });

  it.each([
    ['a missing file', undefined, /cannot read tokens file/],
    ['not JSON', '{"tokens": [', /cannot read tokens file/],
    ['no tokens list', { token: TOKEN }, /must hold \{"tokens": \[\.\.\.\]\}/],
    ['tokens not a list', { tokens: { ops: TOKEN } }, /must hold/],
    [
      'a short token',
      { tokens: [{ name: 'ops', token: 'short' }] },
      /entry 1 needs a token of at least 16 characters/,
    ],
    [
      'a 15-character token',
      { tokens: [{ token: TOKEN }, { token: 'a'.repeat(15) }] },
      /entry 2 needs a token/,
    ],
    [
      'a token that is not a string',
      { tokens: [{ token: 1234567890123456 }] },
      /entry 1 needs a token/,
    ],
    [
      'an unknown scope',
      { tokens: [{ token: TOKEN, scopes: ['core', 'admin'] }] },
      /entry 1 has unknown scope 'admin'/,
    ],
  ])('%s is a usage error', (_label, content, message) => {
    const path =
      content === undefined ? join(dir, 'does-not-exist.json') : file('bad.json', content);
    expect(() => loadTokens(undefined, path, new Set<Scope>(['core']))).toThrow(CliUsageError);
    expect(() => loadTokens(undefined, path, new Set<Scope>(['core']))).toThrow(message);
  });

  it('a token of exactly 16 characters is accepted', () => {
    const path = file('sixteen.json', { tokens: [{ token: 'b'.repeat(16) }] });
    expect(loadTokens(undefined, path, new Set<Scope>(['core']))).toHaveLength(1);
  });
});

const SCOPE_ERROR = (tool: string) =>
  `{"code":-32600,"message":"Query '${tool}' requires scope 'sensitive' which is not enabled"}`;
/** The server enables the scope; the caller's token lacks it: the token is named, not the server. */
const TOKEN_SCOPE_ERROR = (tool: string) =>
  `{"code":-32600,"message":"Query '${tool}' requires scope 'sensitive' which is not granted to this token"}`;

describe('scopes through the dispatcher', () => {
  it.each(['get_auth_logs', 'get_user_sessions'])(
    'server scopes [core]: %s answers the exact scope error',
    async (tool) => {
      const reply = await serve(normalMachine(), { scopes: ['core'] }).call(tool);
      expect(reply).not.toHaveProperty('result');
      expect(JSON.stringify(reply.error)).toBe(SCOPE_ERROR(tool));
    },
  );

  it('server scopes [core]: the scope check comes before argument validation', async () => {
    const reply = await serve(normalMachine(), { scopes: ['core'] }).call('get_auth_logs', {
      lines: 0,
    });
    expect(JSON.stringify(reply.error)).toBe(SCOPE_ERROR('get_auth_logs'));
  });

  it('server scopes [core]: core tools still answer', async () => {
    const client = serve(normalMachine(), { scopes: ['core'] });
    const result = await client.result('get_os_info');
    expect(result.isError).toBe(false);
  });

  it.each(['get_auth_logs', 'get_user_sessions'])(
    'server scopes [core, sensitive]: %s answers',
    async (tool) => {
      const client = serve(normalMachine(), { scopes: ['core', 'sensitive'] });
      const result = await client.result(tool);
      expect(result.isError).toBe(false);
      expect(result.structuredContent).toHaveProperty('sampled_at');
    },
  );

  it.each(['get_auth_logs', 'get_user_sessions'])(
    'a token with fewer scopes than the server: %s answers the scope error naming the token',
    async (tool) => {
      const client = serve(normalMachine(), {
        scopes: ['core', 'sensitive'],
        auth: { subject: 'dashboard', scopes: new Set(['core']) },
      });
      const reply = await client.call(tool);
      expect(JSON.stringify(reply.error)).toBe(TOKEN_SCOPE_ERROR(tool));
      expect((await client.result('get_os_info')).isError).toBe(false);
    },
  );

  it('a token with sensitive on a server without it: still refused', async () => {
    const client = serve(normalMachine(), {
      scopes: ['core'],
      auth: { subject: 'ops', scopes: new Set(['core', 'sensitive']) },
    });
    expect(JSON.stringify((await client.call('get_user_sessions')).error)).toBe(
      SCOPE_ERROR('get_user_sessions'),
    );
  });

  it('a token with sensitive on a server with it: answers', async () => {
    const client = serve(normalMachine(), {
      scopes: ['core', 'sensitive'],
      auth: { subject: 'ops', scopes: new Set(['core', 'sensitive']) },
    });
    expect((await client.result('get_auth_logs')).isError).toBe(false);
  });

  it('parseScopes output drives the server', async () => {
    const client = serve(normalMachine(), { scopes: [...parseScopes(undefined, true)] });
    expect((await client.result('get_user_sessions')).isError).toBe(false);
    const core = serve(normalMachine(), { scopes: [...parseScopes('core', false)] });
    expect(JSON.stringify((await core.call('get_user_sessions')).error)).toBe(
      SCOPE_ERROR('get_user_sessions'),
    );
  });
});

describe('--token', () => {
  it('must have at least 16 characters, as tokens in a file', () => {
    expect(() => loadTokens('abc', undefined, new Set(['core']))).toThrow(CliUsageError);
    expect(() => loadTokens('a'.repeat(15), undefined, new Set(['core']))).toThrow(/at least 16/);
    expect(loadTokens('a'.repeat(16), undefined, new Set(['core']))).toHaveLength(1);
  });
});

describe('2026-07-28 clients', () => {
  it('may cache the tool list for ten minutes, for every caller; readings are not cached', async () => {
    const client = serve(normalMachine());
    const envelope = {
      'io.modelcontextprotocol/protocolVersion': '2026-07-28',
      'io.modelcontextprotocol/clientCapabilities': {},
    };
    const list = await client.request('tools/list', { _meta: envelope });
    expect(list.result).toMatchObject({ ttlMs: 600_000, cacheScope: 'public' });
    const call = await client.request('tools/call', {
      name: 'get_uptime',
      arguments: {},
      _meta: envelope,
    });
    expect(call.result).toMatchObject({ resultType: 'complete', isError: false });
    expect(call.result).not.toHaveProperty('ttlMs');
  });
});
