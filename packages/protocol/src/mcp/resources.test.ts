import { describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { RpcError } from '../jsonrpc/errors.js';
import { connectRaw } from '../testing/raw.js';
import { McpContext } from './context.js';
import { definePrompt } from './prompt.js';
import { defineResource, defineResourceTemplate } from './resource.js';
import { McpServer, type McpServerOptions } from './server.js';

const base: McpServerOptions = { name: 'resources-test', version: '0.0.1' };

interface ResourcesList {
  resources: Record<string, unknown>[];
  nextCursor?: string;
}
interface ReadResult {
  contents: Record<string, unknown>[];
}
interface Completion {
  completion: { values: string[]; total?: number; hasMore: boolean };
}
interface PromptMessage {
  role: string;
  content: { type: string; text?: string };
}

const readme = defineResource({
  uri: 'docs://readme',
  name: 'readme',
  title: 'README',
  description: 'The project readme',
  mimeType: 'text/markdown',
  read: () => '# Hello',
});
const plain = defineResource({ uri: 'docs://plain', name: 'plain', read: () => 'no type' });
const logo = defineResource({
  uri: 'img://logo',
  name: 'logo',
  mimeType: 'image/png',
  size: 5,
  read: () => new Uint8Array([0, 1, 2, 250, 255]),
});

const USERS = ['alice', 'albert', 'bob'];
const userTemplate = defineResourceTemplate({
  uriTemplate: 'users://{userId}/profile',
  name: 'user-profile',
  description: 'A user profile',
  mimeType: 'application/json',
  list: () => USERS.map((u) => ({ uri: `users://${u}/profile`, name: u })),
  complete: { userId: (value) => USERS.filter((u) => u.startsWith(value)) },
  read: (uri, vars) => JSON.stringify({ uri, vars }),
});

function resourceServer(options: Partial<McpServerOptions> = {}) {
  return new McpServer({ ...base, ...options })
    .addResource(readme, plain, logo)
    .addResourceTemplate(userTemplate);
}

// ---------------------------------------------------------------------------------------------

describe('resources/list and resources/templates/list', () => {
  it('lists static resources followed by the entries of template list()', async () => {
    const { resources, nextCursor } = await connectRaw(resourceServer()).result<ResourcesList>(
      'resources/list',
    );
    expect(nextCursor).toBeUndefined();
    expect(resources).toEqual([
      {
        uri: 'docs://readme',
        name: 'readme',
        title: 'README',
        description: 'The project readme',
        mimeType: 'text/markdown',
      },
      { uri: 'docs://plain', name: 'plain' },
      { uri: 'img://logo', name: 'logo', mimeType: 'image/png', size: 5 },
      { uri: 'users://alice/profile', name: 'alice' },
      { uri: 'users://albert/profile', name: 'albert' },
      { uri: 'users://bob/profile', name: 'bob' },
    ]);
  });

  it('passes a context to template list()', async () => {
    const list = vi.fn((_ctx: McpContext) => [{ uri: 'x://1', name: 'one' }]);
    const server = new McpServer(base).addResourceTemplate(
      defineResourceTemplate({ uriTemplate: 'x://{id}', name: 'x', list, read: () => '' }),
    );
    const client = connectRaw(server);
    await client.result('resources/list');
    expect(list).toHaveBeenCalledTimes(1);
    const ctx = list.mock.calls[0]?.[0];
    expect(ctx).toBeInstanceOf(McpContext);
    expect(ctx?.session).toBe(client.session);
  });

  it('pages the combined list', async () => {
    const client = connectRaw(resourceServer({ pageSize: 4 }));
    const first = await client.result<ResourcesList>('resources/list');
    expect(first.resources.map((r) => r.uri)).toEqual([
      'docs://readme',
      'docs://plain',
      'img://logo',
      'users://alice/profile',
    ]);
    expect(first.nextCursor).toEqual(expect.any(String));
    const second = await client.result<ResourcesList>('resources/list', {
      cursor: first.nextCursor,
    });
    expect(second.resources.map((r) => r.uri)).toEqual([
      'users://albert/profile',
      'users://bob/profile',
    ]);
    expect(second).not.toHaveProperty('nextCursor');
    expect((await client.error('resources/list', { cursor: 'garbage' })).code).toBe(-32602);
  });

  it('lists templates', async () => {
    const server = resourceServer().addResourceTemplate(
      defineResourceTemplate({ uriTemplate: 'files:///{+path}', name: 'file', read: () => '' }),
    );
    const result = await connectRaw(server).result('resources/templates/list');
    expect(result).toEqual({
      resourceTemplates: [
        {
          uriTemplate: 'users://{userId}/profile',
          name: 'user-profile',
          description: 'A user profile',
          mimeType: 'application/json',
        },
        { uriTemplate: 'files:///{+path}', name: 'file' },
      ],
    });
  });

  it('pages templates', async () => {
    const server = new McpServer({ ...base, pageSize: 1 });
    for (const n of ['a', 'b']) {
      server.addResourceTemplate(
        defineResourceTemplate({ uriTemplate: `${n}://{id}`, name: n, read: () => '' }),
      );
    }
    const client = connectRaw(server);
    const first = await client.result<{ resourceTemplates: unknown[]; nextCursor?: string }>(
      'resources/templates/list',
    );
    expect(first.resourceTemplates).toEqual([{ uriTemplate: 'a://{id}', name: 'a' }]);
    const second = await client.result('resources/templates/list', { cursor: first.nextCursor });
    expect(second).toEqual({ resourceTemplates: [{ uriTemplate: 'b://{id}', name: 'b' }] });
  });
});

describe('resources/read', () => {
  it('reads static text and carries the mimeType', async () => {
    const client = connectRaw(resourceServer());
    expect(await client.result('resources/read', { uri: 'docs://readme' })).toEqual({
      contents: [{ uri: 'docs://readme', mimeType: 'text/markdown', text: '# Hello' }],
    });
    expect(await client.result('resources/read', { uri: 'docs://plain' })).toEqual({
      contents: [{ uri: 'docs://plain', text: 'no type' }],
    });
  });

  it('encodes bytes as a base64 blob', async () => {
    const result = await connectRaw(resourceServer()).result<ReadResult>('resources/read', {
      uri: 'img://logo',
    });
    expect(result).toEqual({
      contents: [{ uri: 'img://logo', mimeType: 'image/png', blob: 'AAEC+v8=' }],
    });
    expect(result.contents[0]).not.toHaveProperty('text');
  });

  it('encodes only the viewed bytes of a Uint8Array over a larger buffer', async () => {
    const backing = new Uint8Array([9, 9, 0, 1, 2, 9]);
    const server = new McpServer(base).addResource(
      defineResource({ uri: 'bin://slice', name: 'slice', read: () => backing.subarray(2, 5) }),
    );
    const result = await connectRaw(server).result('resources/read', { uri: 'bin://slice' });
    expect(result).toEqual({ contents: [{ uri: 'bin://slice', blob: 'AAEC' }] });
  });

  it('passes through contents arrays and whole results', async () => {
    const server = new McpServer(base).addResource(
      defineResource({
        uri: 'multi://a',
        name: 'multi',
        read: () => [
          { uri: 'multi://a#1', text: 'one' },
          { uri: 'multi://a#2', blob: 'AA==' },
        ],
      }),
      defineResource({
        uri: 'whole://a',
        name: 'whole',
        read: () => ({ contents: [{ uri: 'whole://a', text: 'w' }], _meta: { k: 1 } }),
      }),
    );
    const client = connectRaw(server);
    expect(await client.result('resources/read', { uri: 'multi://a' })).toEqual({
      contents: [
        { uri: 'multi://a#1', text: 'one' },
        { uri: 'multi://a#2', blob: 'AA==' },
      ],
    });
    expect(await client.result('resources/read', { uri: 'whole://a' })).toEqual({
      contents: [{ uri: 'whole://a', text: 'w' }],
      _meta: { k: 1 },
    });
  });

  it('matches a template and hands the read percent-decoded variables', async () => {
    const read = vi.fn((uri: string, vars: Record<string, string>) =>
      JSON.stringify({ uri, vars }),
    );
    const server = new McpServer(base).addResourceTemplate(
      defineResourceTemplate({
        uriTemplate: 'users://{userId}/profile',
        name: 'user',
        mimeType: 'application/json',
        read,
      }),
    );
    const uri = 'users://j%C3%BCrgen%20m%2Fx/profile';
    const result = await connectRaw(server).result<ReadResult>('resources/read', { uri });
    expect(read).toHaveBeenCalledTimes(1);
    expect(read.mock.calls[0]?.[0]).toBe(uri);
    expect(read.mock.calls[0]?.[1]).toEqual({ userId: 'jürgen m/x' });
    expect(result.contents).toEqual([
      {
        uri,
        mimeType: 'application/json',
        text: JSON.stringify({ uri, vars: { userId: 'jürgen m/x' } }),
      },
    ]);
  });

  it('prefers an exact static resource over a matching template', async () => {
    const server = new McpServer(base)
      .addResourceTemplate(
        defineResourceTemplate({ uriTemplate: 'users://{id}/profile', name: 't', read: () => 'T' }),
      )
      .addResource(defineResource({ uri: 'users://me/profile', name: 'me', read: () => 'ME' }));
    const client = connectRaw(server);
    expect(await client.result('resources/read', { uri: 'users://me/profile' })).toEqual({
      contents: [{ uri: 'users://me/profile', text: 'ME' }],
    });
    expect(await client.result('resources/read', { uri: 'users://you/profile' })).toEqual({
      contents: [{ uri: 'users://you/profile', text: 'T' }],
    });
  });

  it('answers an unknown URI with -32002 by default', async () => {
    const client = connectRaw(resourceServer());
    const error = await client.error('resources/read', { uri: 'docs://missing' });
    expect(error).toEqual({
      code: -32002,
      message: 'Resource not found',
      data: { uri: 'docs://missing' },
    });
    // Matches the scheme of the template but not its shape.
    expect((await client.error('resources/read', { uri: 'users://alice' })).code).toBe(-32002);
  });

  it('answers an unknown URI with the custom errors.resourceNotFound', async () => {
    const resourceNotFound = vi.fn(
      (uri: string) => new RpcError(-32602, 'No such resource', { uri, hint: 'list first' }),
    );
    const client = connectRaw(resourceServer({ errors: { resourceNotFound } }));
    const error = await client.error('resources/read', { uri: 'docs://missing' });
    expect(error).toEqual({
      code: -32602,
      message: 'No such resource',
      data: { uri: 'docs://missing', hint: 'list first' },
    });
    expect(resourceNotFound).toHaveBeenCalledWith('docs://missing');
  });

  it('rejects a missing or empty uri with -32602', async () => {
    const client = connectRaw(resourceServer());
    expect((await client.error('resources/read', {})).code).toBe(-32602);
    expect((await client.error('resources/read', { uri: '' })).code).toBe(-32602);
  });
});

describe('resources/subscribe and resourceUpdated', () => {
  it('answers subscribe and unsubscribe with exactly {}', async () => {
    const client = connectRaw(resourceServer());
    const sub = await client.request('resources/subscribe', { uri: 'docs://readme' });
    expect(sub.result).toStrictEqual({});
    expect(client.session.subscriptions.has('docs://readme')).toBe(true);
    const unsub = await client.request('resources/unsubscribe', { uri: 'docs://readme' });
    expect(unsub.result).toStrictEqual({});
    expect(client.session.subscriptions.has('docs://readme')).toBe(false);
  });

  it('notifies only the sessions subscribed to the URI and returns their count', async () => {
    const server = resourceServer();
    const a = connectRaw(server);
    const b = connectRaw(server);
    const c = connectRaw(server);
    const other = connectRaw(server);
    await a.result('resources/subscribe', { uri: 'docs://readme' });
    await b.result('resources/subscribe', { uri: 'docs://readme' });
    await other.result('resources/subscribe', { uri: 'img://logo' });

    expect(server.resourceUpdated('docs://readme')).toBe(2);
    await a.settle();
    const updated = { method: 'notifications/resources/updated', params: { uri: 'docs://readme' } };
    expect(a.notifications).toEqual([updated]);
    expect(b.notifications).toEqual([updated]);
    expect(c.notifications).toEqual([]);
    expect(other.notifications).toEqual([]);

    await b.result('resources/unsubscribe', { uri: 'docs://readme' });
    expect(server.resourceUpdated('docs://readme')).toBe(1);
    await a.settle();
    expect(a.notifications).toHaveLength(2);
    expect(b.notifications).toHaveLength(1);

    expect(server.resourceUpdated('docs://nobody')).toBe(0);
  });

  it('skips closed sessions and survives a channel that throws', async () => {
    const server = resourceServer();
    const closed = connectRaw(server);
    await closed.result('resources/subscribe', { uri: 'docs://readme' });
    await closed.close();

    const broken = connectRaw(server);
    await broken.result('resources/subscribe', { uri: 'docs://readme' });
    broken.session.channel = {
      notify: () => {
        throw new Error('stream closed');
      },
      request: () => Promise.reject(new Error('stream closed')),
    };
    const healthy = connectRaw(server);
    await healthy.result('resources/subscribe', { uri: 'docs://readme' });

    expect(() => server.resourceUpdated('docs://readme')).not.toThrow();
    await healthy.settle();
    expect(closed.notifications).toEqual([]);
    expect(healthy.notifications).toHaveLength(1);
  });
});

// ---------------------------------------------------------------------------------------------

const LANGUAGES = ['go', 'haskell', 'python', 'rust', 'ruby', 'typescript'];

const review = definePrompt({
  name: 'code_review',
  title: 'Code review',
  description: 'Review a piece of code',
  arguments: z.object({
    code: z.string().describe('The code to review'),
    language: z.string().optional().describe('Programming language'),
  }),
  complete: {
    language: (value, _ctx, context) =>
      LANGUAGES.filter((l) => l.startsWith(value)).map((l) =>
        context.code === 'upper' ? l.toUpperCase() : l,
      ),
  },
  get: ({ code, language }) => `Review this ${language ?? 'code'}:\n${code}`,
});

const dialogue = definePrompt({
  name: 'dialogue',
  arguments: z.object({ topic: z.string() }),
  get: ({ topic }) => [
    { role: 'user', content: { type: 'text', text: `Tell me about ${topic}` } },
    { role: 'assistant', content: { type: 'text', text: `${topic} is interesting.` } },
  ],
});

const noArgs = definePrompt({ name: 'hello', get: () => 'Hello!' });

describe('prompts', () => {
  it('lists prompts with argument names, descriptions and required flags', async () => {
    const server = new McpServer(base).addPrompt(review, dialogue, noArgs);
    const result = await connectRaw(server).result('prompts/list');
    expect(result).toEqual({
      prompts: [
        {
          name: 'code_review',
          title: 'Code review',
          description: 'Review a piece of code',
          arguments: [
            { name: 'code', description: 'The code to review', required: true },
            { name: 'language', description: 'Programming language', required: false },
          ],
        },
        { name: 'dialogue', arguments: [{ name: 'topic', required: true }] },
        { name: 'hello' },
      ],
    });
  });

  it('pages prompts', async () => {
    const server = new McpServer({ ...base, pageSize: 2 }).addPrompt(review, dialogue, noArgs);
    const client = connectRaw(server);
    const first = await client.result<{ prompts: { name: string }[]; nextCursor?: string }>(
      'prompts/list',
    );
    expect(first.prompts.map((p) => p.name)).toEqual(['code_review', 'dialogue']);
    const second = await client.result<{ prompts: { name: string }[]; nextCursor?: string }>(
      'prompts/list',
      { cursor: first.nextCursor },
    );
    expect(second.prompts.map((p) => p.name)).toEqual(['hello']);
    expect(second).not.toHaveProperty('nextCursor');
  });

  it('gets a prompt returning a string as one user text message', async () => {
    const client = connectRaw(new McpServer(base).addPrompt(review));
    const result = await client.result('prompts/get', {
      name: 'code_review',
      arguments: { code: 'x = 1', language: 'python' },
    });
    expect(result).toEqual({
      messages: [{ role: 'user', content: { type: 'text', text: 'Review this python:\nx = 1' } }],
    });
    // The optional argument may be left out.
    const without = await client.result<{ messages: PromptMessage[] }>('prompts/get', {
      name: 'code_review',
      arguments: { code: 'y' },
    });
    expect(without.messages[0]?.content.text).toBe('Review this code:\ny');
  });

  it('gets a prompt returning a message array', async () => {
    const client = connectRaw(new McpServer(base).addPrompt(dialogue));
    const result = await client.result('prompts/get', {
      name: 'dialogue',
      arguments: { topic: 'owls' },
    });
    expect(result).toEqual({
      messages: [
        { role: 'user', content: { type: 'text', text: 'Tell me about owls' } },
        { role: 'assistant', content: { type: 'text', text: 'owls is interesting.' } },
      ],
    });
  });

  it('passes a whole GetPromptResult through', async () => {
    const prompt = definePrompt({
      name: 'full',
      get: () => ({
        description: 'described',
        messages: [{ role: 'user', content: { type: 'text', text: 'hi' } }],
      }),
    });
    const result = await connectRaw(new McpServer(base).addPrompt(prompt)).result('prompts/get', {
      name: 'full',
    });
    expect(result).toEqual({
      description: 'described',
      messages: [{ role: 'user', content: { type: 'text', text: 'hi' } }],
    });
  });

  it('hands get the parsed arguments, with defaults and transforms applied', async () => {
    const get = vi.fn((args: Record<string, string | undefined>) => JSON.stringify(args));
    const prompt = definePrompt({
      name: 'parsed',
      arguments: z.object({ topic: z.string().trim(), tone: z.string().default('neutral') }),
      get,
    });
    const list = await connectRaw(new McpServer(base).addPrompt(prompt)).result('prompts/list');
    expect(list).toEqual({
      prompts: [
        {
          name: 'parsed',
          arguments: [
            { name: 'topic', required: true },
            { name: 'tone', required: false },
          ],
        },
      ],
    });
    const client = connectRaw(new McpServer(base).addPrompt(prompt));
    await client.result('prompts/get', { name: 'parsed', arguments: { topic: '  owls ' } });
    expect(get.mock.calls[0]?.[0]).toEqual({ topic: 'owls', tone: 'neutral' });
  });

  it('rejects a missing required argument with -32602 naming it', async () => {
    const get = vi.fn(() => 'unreachable');
    const prompt = definePrompt({ name: 'p', arguments: z.object({ topic: z.string() }), get });
    const client = connectRaw(new McpServer(base).addPrompt(prompt));
    const error = await client.error('prompts/get', { name: 'p', arguments: {} });
    expect(error.code).toBe(-32602);
    expect(error.message).toContain('topic');
    expect(error.data).toMatchObject({ issues: [{ path: 'topic' }] });
    // No arguments at all is the same as {}.
    expect((await client.error('prompts/get', { name: 'p' })).code).toBe(-32602);
    expect(get).not.toHaveBeenCalled();
  });

  it('rejects an unknown prompt with -32602', async () => {
    const error = await connectRaw(new McpServer(base).addPrompt(noArgs)).error('prompts/get', {
      name: 'nope',
    });
    expect(error.code).toBe(-32602);
    expect(error.message).toContain('nope');
  });

  it('rejects non-string argument values with -32602', async () => {
    const error = await connectRaw(new McpServer(base).addPrompt(dialogue)).error('prompts/get', {
      name: 'dialogue',
      arguments: { topic: 42 },
    });
    expect(error.code).toBe(-32602);
  });

  it('throws on a duplicate prompt name and removes prompts', () => {
    const server = new McpServer(base).addPrompt(noArgs);
    expect(() => server.addPrompt(definePrompt({ name: 'hello', get: () => '' }))).toThrow(
      /already registered/,
    );
    expect(server.removePrompt('hello')).toBe(true);
    expect(server.removePrompt('hello')).toBe(false);
  });
});

describe('completion/complete', () => {
  const promptRef = { type: 'ref/prompt', name: 'code_review' };
  const templateRef = { type: 'ref/resource', uri: 'users://{userId}/profile' };

  it('completes a prompt argument with the values the completer filtered', async () => {
    const client = connectRaw(new McpServer(base).addPrompt(review));
    const result = await client.result<Completion>('completion/complete', {
      ref: promptRef,
      argument: { name: 'language', value: 'r' },
    });
    expect(result).toEqual({
      completion: { values: ['rust', 'ruby'], total: 2, hasMore: false },
    });
  });

  it('hands the completer the other arguments from context', async () => {
    const client = connectRaw(new McpServer(base).addPrompt(review));
    const result = await client.result<Completion>('completion/complete', {
      ref: promptRef,
      argument: { name: 'language', value: 'ty' },
      context: { arguments: { code: 'upper' } },
    });
    expect(result.completion.values).toEqual(['TYPESCRIPT']);
  });

  it('completes a template variable', async () => {
    const client = connectRaw(new McpServer(base).addResourceTemplate(userTemplate));
    const result = await client.result<Completion>('completion/complete', {
      ref: templateRef,
      argument: { name: 'userId', value: 'al' },
    });
    expect(result).toEqual({
      completion: { values: ['alice', 'albert'], total: 2, hasMore: false },
    });
  });

  it('caps the values at 100 with hasMore and the full total', async () => {
    const many = Array.from({ length: 150 }, (_, i) => `item-${i}`);
    const template = defineResourceTemplate({
      uriTemplate: 'items://{item}',
      name: 'items',
      complete: { item: (value) => many.filter((m) => m.startsWith(value)) },
      read: () => '',
    });
    const client = connectRaw(new McpServer(base).addResourceTemplate(template));
    const result = await client.result<Completion>('completion/complete', {
      ref: { type: 'ref/resource', uri: 'items://{item}' },
      argument: { name: 'item', value: 'item-' },
    });
    expect(result.completion.values).toHaveLength(100);
    expect(result.completion.values).toEqual(many.slice(0, 100));
    expect(result.completion.hasMore).toBe(true);
    expect(result.completion.total).toBe(150);
  });

  it('is not capped at exactly 100 values', async () => {
    const hundred = Array.from({ length: 100 }, (_, i) => `v${i}`);
    const prompt = definePrompt({
      name: 'p',
      arguments: z.object({ a: z.string() }),
      complete: { a: () => hundred },
      get: () => '',
    });
    const client = connectRaw(new McpServer(base).addPrompt(prompt));
    const result = await client.result<Completion>('completion/complete', {
      ref: { type: 'ref/prompt', name: 'p' },
      argument: { name: 'a', value: '' },
    });
    expect(result.completion).toEqual({ values: hundred, total: 100, hasMore: false });
  });

  it('rejects an unknown prompt ref with -32602', async () => {
    const client = connectRaw(new McpServer(base).addPrompt(review));
    const error = await client.error('completion/complete', {
      ref: { type: 'ref/prompt', name: 'missing' },
      argument: { name: 'language', value: '' },
    });
    expect(error.code).toBe(-32602);
  });

  it('rejects an unknown resource ref with -32602', async () => {
    const client = connectRaw(new McpServer(base).addResourceTemplate(userTemplate));
    const error = await client.error('completion/complete', {
      ref: { type: 'ref/resource', uri: 'nothing://{x}' },
      argument: { name: 'x', value: '' },
    });
    expect(error.code).toBe(-32602);
  });

  it('answers empty values for an argument without a completer', async () => {
    const server = new McpServer(base)
      .addPrompt(review)
      .addResourceTemplate(userTemplate)
      .addResource(readme);
    const client = connectRaw(server);
    const empty = { completion: { values: [], hasMore: false } };
    expect(
      await client.result('completion/complete', {
        ref: promptRef,
        argument: { name: 'code', value: 'x' },
      }),
    ).toEqual(empty);
    expect(
      await client.result('completion/complete', {
        ref: templateRef,
        argument: { name: 'unknownVar', value: 'x' },
      }),
    ).toEqual(empty);
    // A static resource is a known ref without completers.
    expect(
      await client.result('completion/complete', {
        ref: { type: 'ref/resource', uri: 'docs://readme' },
        argument: { name: 'x', value: '' },
      }),
    ).toEqual(empty);
  });

  it('rejects a malformed ref with -32602', async () => {
    const client = connectRaw(new McpServer(base).addPrompt(review));
    const error = await client.error('completion/complete', {
      ref: { type: 'ref/other', name: 'code_review' },
      argument: { name: 'language', value: '' },
    });
    expect(error.code).toBe(-32602);
  });
});

describe('inherited names are not completers or arguments', () => {
  it('answers completion for toString/constructor/hasOwnProperty with no values', async () => {
    const server = new McpServer(base).addPrompt(review).addResourceTemplate(userTemplate);
    const { result } = connectRaw(server);
    for (const name of ['toString', 'constructor', 'hasOwnProperty', '__proto__']) {
      expect(
        await result('completion/complete', {
          ref: { type: 'ref/prompt', name: 'code_review' },
          argument: { name, value: 'ab' },
        }),
      ).toEqual({ completion: { values: [], hasMore: false } });
      expect(
        await result('completion/complete', {
          ref: { type: 'ref/resource', uri: userTemplate.template.template },
          argument: { name, value: 'ab' },
        }),
      ).toEqual({ completion: { values: [], hasMore: false } });
    }
  });

  it('refuses a completer for an argument the prompt does not have, even an inherited name', () => {
    expect(() =>
      definePrompt({
        name: 'p',
        arguments: z.object({ a: z.string() }),
        complete: { toString: () => [] },
        get: () => 'x',
      }),
    ).toThrow(/no argument 'toString'/);
  });

  it('keeps a description given before .optional()', async () => {
    const prompt = definePrompt({
      name: 'described',
      arguments: z.object({ a: z.string().describe('first').optional() }),
      get: () => 'x',
    });
    expect(prompt.listEntry.arguments).toEqual([
      { name: 'a', description: 'first', required: false },
    ]);
  });
});
