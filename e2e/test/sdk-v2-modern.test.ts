// @module-tag process
/**
 * The official SDK v2 client pinned to MCP 2026-07-28 (no fallback to initialize possible)
 * against our servers over stdio and Streamable HTTP: every app (the HTTP wire recorded: discover,
 * never initialize, no session), a server whose tool list changes at run time watched through
 * `subscriptions/listen` the way the SDK opens it for `listChanged` handlers, and tools that ask
 * for input answered through multi round-trip.
 */
import { join } from 'node:path';
import { waitFor } from '@mcpkit/testing';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, describe, expect, it } from 'vitest';
import {
  APPS,
  expectToolsAndSimpleCall,
  killAll,
  prepare,
  REPO,
  scratch,
  startHttp,
  within,
} from './helpers.js';

const PINNED = { versionNegotiation: { mode: { pin: '2026-07-28' } } } as const;
const REQUEST = { timeout: 20_000 };
const LIST_CHANGED = join(REPO, 'apps', 'gateway', 'dist', 'fixtures', 'list-changed.js');
const EVERYTHING = join(REPO, 'packages', 'node', 'dist', 'fixtures', 'everything.js');

afterAll(killAll);

describe('SDK v2 Client pinned to 2026-07-28 over stdio', () => {
  it.each(APPS)('%s: server/discover, listTools, callTool — no initialize', async (app) => {
    const s = scratch(`v2-pinned-${app}`);
    const client = new Client({ name: 'mcpkit-e2e-pinned', version: '0.0.0' }, PINNED);
    try {
      const prepared = await prepare(app, s);
      await within(
        client.connect(new StdioClientTransport(prepared.stdio), REQUEST),
        30_000,
        'connect',
      );
      expect(client.getProtocolEra()).toBe('modern');
      expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28');
      await expectToolsAndSimpleCall(
        app,
        () => client.listTools({}, REQUEST),
        (name) => client.callTool({ name, arguments: {} }, REQUEST),
      );
    } finally {
      await within(client.close(), 10_000, 'close').catch(() => {});
      s.cleanup();
    }
  });

  it('hears of a new tool through the subscription it opens for its listChanged handler', async () => {
    const seen: string[][] = [];
    const client = new Client(
      { name: 'mcpkit-e2e-listen', version: '0.0.0' },
      {
        ...PINNED,
        listChanged: {
          tools: {
            onChanged: (error, tools) => {
              if (!error && tools) seen.push(tools.map((t) => t.name));
            },
          },
        },
      },
    );
    try {
      await client.connect(
        new StdioClientTransport({ command: process.execPath, args: [LIST_CHANGED] }),
        REQUEST,
      );
      expect(client.getProtocolEra()).toBe('modern');
      await client.callTool({ name: 'add_tool', arguments: { name: 'late_tool' } }, REQUEST);
      await waitFor('the refreshed tool list', () =>
        seen.some((names) => names.includes('late_tool')),
      );
      // An explicit subscription of its own, closed again: the server ends it without fuss.
      const subscription = await client.listen({ promptsListChanged: true }, REQUEST);
      await subscription.close();
      await expect(client.listTools({}, REQUEST)).resolves.toMatchObject({
        tools: expect.arrayContaining([expect.objectContaining({ name: 'late_tool' })]),
      });
    } finally {
      await within(client.close(), 10_000, 'close').catch(() => {});
    }
  });

  it('answers a tool that elicits and samples through input_required rounds (multi round-trip)', async () => {
    const client = new Client(
      { name: 'mcpkit-e2e-mrtr', version: '0.0.0' },
      { ...PINNED, capabilities: { sampling: {}, elicitation: {} } },
    );
    client.setRequestHandler('sampling/createMessage', async (request) => ({
      model: 'e2e-model',
      role: 'assistant' as const,
      content: {
        type: 'text' as const,
        text: `echo ${(request.params.messages[0]?.content as { text?: string } | undefined)?.text}`,
      },
    }));
    client.setRequestHandler('elicitation/create', async () => ({
      action: 'accept' as const,
      content: { username: 'ada', email: 'ada@example.com' },
    }));
    try {
      await client.connect(
        new StdioClientTransport({
          command: process.execPath,
          args: [EVERYTHING, '--log-level', 'warn'],
        }),
        REQUEST,
      );
      expect(client.getProtocolEra()).toBe('modern');
      const sampled = await client.callTool(
        { name: 'test_sampling', arguments: { prompt: 'hello' } },
        REQUEST,
      );
      expect(sampled.content).toEqual([{ type: 'text', text: 'LLM response: echo hello' }]);
      const elicited = await client.callTool(
        { name: 'test_elicitation', arguments: { message: 'who?' } },
        REQUEST,
      );
      expect(JSON.stringify(elicited.content)).toContain('ada@example.com');
    } finally {
      await within(client.close(), 10_000, 'close').catch(() => {});
    }
  });
});

describe('SDK v2 Client pinned to 2026-07-28 over Streamable HTTP', () => {
  it.each(APPS)('%s: modern on the wire — discover, no initialize, no session', async (app) => {
    const s = scratch(`v2-pinned-http-${app}`);
    const client = new Client({ name: 'mcpkit-e2e-pinned-http', version: '0.0.0' }, PINNED);
    const wire: { method: string | undefined; session: string | null; version: string | null }[] =
      [];
    let server: Awaited<ReturnType<typeof startHttp>> | undefined;
    try {
      const prepared = await prepare(app, s, true);
      server = await startHttp(app, prepared.httpArgs, prepared.env);
      const recording = async (input: string | URL, init?: RequestInit): Promise<Response> => {
        const headers = new Headers(init?.headers);
        let method: string | undefined;
        if (typeof init?.body === 'string') {
          method = (JSON.parse(init.body) as { method?: string }).method;
        }
        wire.push({
          method,
          session: headers.get('mcp-session-id'),
          version: headers.get('mcp-protocol-version'),
        });
        const response = await fetch(input, init);
        expect(response.headers.get('mcp-session-id')).toBeNull();
        return response;
      };
      const transport = new StreamableHTTPClientTransport(new URL(server.mcpUrl), {
        fetch: recording,
        ...(prepared.apiKey
          ? { requestInit: { headers: { Authorization: `Bearer ${prepared.apiKey}` } } }
          : {}),
      });
      await within(client.connect(transport, REQUEST), 30_000, 'connect');
      expect(client.getProtocolEra()).toBe('modern');
      await expectToolsAndSimpleCall(
        app,
        () => client.listTools({}, REQUEST),
        (name) => client.callTool({ name, arguments: {} }, REQUEST),
      );
      const methods = wire.map((w) => w.method);
      expect(methods[0]).toBe('server/discover');
      expect(methods).not.toContain('initialize');
      expect(methods).toEqual(expect.arrayContaining(['tools/list', 'tools/call']));
      for (const request of wire.filter((w) => w.method !== undefined)) {
        expect(request).toMatchObject({ session: null, version: '2026-07-28' });
      }
    } finally {
      await within(client.close(), 10_000, 'close').catch(() => {});
      await server?.stop();
      s.cleanup();
    }
  });
});
