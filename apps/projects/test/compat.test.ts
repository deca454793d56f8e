/**
 * The examples of the CODEFLUSS MCP server's JSON-RPC protocol page, verbatim, over HTTP
 * (`POST /api/mcp` with `Bearer cf_live_sk_…`): initialize, tools/list, tools/call,
 * resources/list, resources/read, the batch, every error example, and the HTTP status codes of
 * its table.
 */

import { type ServedHttp, serveHttp } from '@mcpkit/node';
import { postJson, removeTempDirs } from '@mcpkit/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Store } from '../src/db/types.js';
import { createProjectsServer, projectsHttpOptions } from '../src/server.js';
import { tempStore, userWithKey } from './helpers.js';

type Json = Record<string, unknown>;
let store: Store;
let http: ServedHttp;
let url: string;
let key: string;
let projectId: string;

beforeAll(async () => {
  ({ store } = await tempStore());
  const owner = await userWithKey(store, 'anna@example.com', ['read', 'write']);
  key = owner.key;
  projectId = (await store.createProject(owner.user.id, { name: 'Meine Website' })).id;
  http = await serveHttp(
    createProjectsServer({ store }),
    projectsHttpOptions(store, { points: 1000, windowSec: 60 }),
  );
  url = `${http.url}/api/mcp`;
});
afterAll(async () => {
  await http.close();
  await store.close();
  removeTempDirs();
});

const post = (body: string, token: string | null = key, method = 'POST') =>
  postJson<Json>(url, body, { method, ...(token ? { token } : {}) });

describe("the CODEFLUSS MCP server's JSON-RPC protocol page, over HTTP", () => {
  it('initialize', async () => {
    const { status, body } = await post(
      '{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2024-11-05", "capabilities": {}, "clientInfo": {"name": "my-client", "version": "1.0.0"}}}',
    );
    expect(status).toBe(200);
    expect(body).toMatchObject({
      jsonrpc: '2.0',
      id: 1,
      result: {
        protocolVersion: '2024-11-05',
        capabilities: { tools: {}, resources: {} },
        serverInfo: { name: 'codefluss-mcp-server', version: '1.0.0' },
      },
    });
  });

  it('notifications/initialized gets no response', async () => {
    const { status, body } = await post(
      '{"jsonrpc": "2.0", "method": "notifications/initialized", "params": {}}',
    );
    expect(status).toBe(202);
    expect(body).toBeUndefined();
  });

  it('tools/list', async () => {
    const { body } = await post(
      '{"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {}}',
    );
    const tools = (body?.result as { tools: Json[] } | undefined)?.tools ?? [];
    expect(tools.find((t) => t.name === 'list_projects')).toMatchObject({
      name: 'list_projects',
      description: 'Listet alle Projekte des Benutzers auf',
      inputSchema: { type: 'object', required: [] },
    });
    expect(tools.find((t) => t.name === 'get_project')).toMatchObject({
      name: 'get_project',
      description: 'Ruft Details eines spezifischen Projekts ab',
      inputSchema: {
        type: 'object',
        properties: { projectId: { type: 'string', description: 'Die eindeutige Projekt-ID' } },
        required: ['projectId'],
      },
    });
  });

  it('tools/call list_projects', async () => {
    const { body } = await post(
      '{"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "list_projects", "arguments": {}}}',
    );
    expect(body).toMatchObject({ jsonrpc: '2.0', id: 3, result: { isError: false } });
    const result = body?.result as { content: { type: string; text: string }[] };
    expect(result.content[0]?.type).toBe('text');
    expect(JSON.parse(result.content[0]?.text ?? '')).toEqual([
      { id: projectId, name: 'Meine Website' },
    ]);
    expect(projectId).toMatch(/^proj_[a-z0-9]+$/);
  });

  it('resources/list', async () => {
    const { body } = await post(
      '{"jsonrpc": "2.0", "id": 4, "method": "resources/list", "params": {}}',
    );
    expect(body).toEqual({
      jsonrpc: '2.0',
      id: 4,
      result: {
        resources: [
          {
            uri: 'codefluss://projects',
            name: 'Projects',
            description: 'Alle Projekte des Benutzers',
            mimeType: 'application/json',
          },
        ],
      },
    });
  });

  it('resources/templates/list: the design system, which the page lists among the resources', async () => {
    // The page's resources/list example shows `codefluss://design-system/{projectId}` as a
    // resource; a Resource's `uri` must be a URI (MCP schema), so it is listed here only.
    const { body } = await post(
      '{"jsonrpc": "2.0", "id": 4, "method": "resources/templates/list", "params": {}}',
    );
    const templates = (body?.result as { resourceTemplates: Json[] } | undefined)
      ?.resourceTemplates;
    expect(templates?.[0]).toEqual({
      uriTemplate: 'codefluss://design-system/{projectId}',
      name: 'Design System',
      description: 'Design Tokens eines Projekts',
      mimeType: 'application/json',
    });
  });

  it('resources/read codefluss://projects', async () => {
    const { body } = await post(
      '{"jsonrpc": "2.0", "id": 5, "method": "resources/read", "params": {"uri": "codefluss://projects"}}',
    );
    expect(body).toEqual({
      jsonrpc: '2.0',
      id: 5,
      result: {
        contents: [
          {
            uri: 'codefluss://projects',
            mimeType: 'application/json',
            text: JSON.stringify([{ id: projectId, name: 'Meine Website' }]),
          },
        ],
      },
    });
  });

  it('the batch', async () => {
    const { status, body } = await post(
      '[{"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}, {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "list_projects", "arguments": {}}}]',
    );
    expect(status).toBe(200);
    const replies = body as unknown as Json[];
    expect(replies.map((r) => r.id).sort()).toEqual([1, 2]);
    expect(replies.find((r) => r.id === 1)).toMatchObject({ result: { tools: expect.any(Array) } });
    expect(replies.find((r) => r.id === 2)).toMatchObject({
      result: { content: expect.any(Array) },
    });
  });

  it('error examples: parse error, invalid request, method not found, invalid params', async () => {
    expect(
      (await post('{"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {')).body,
    ).toMatchObject({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32700, message: 'Parse error', data: { detail: expect.any(String) } },
    });
    expect((await post('{"jsonrpc": "2.0", "id": 1}')).body).toEqual({
      jsonrpc: '2.0',
      id: 1,
      error: {
        code: -32600,
        message: 'Invalid Request',
        data: { detail: 'Missing required field: method' },
      },
    });
    expect((await post('{"jsonrpc": "2.0", "id": 1, "method": "unknown_method"}')).body).toEqual({
      jsonrpc: '2.0',
      id: 1,
      error: { code: -32601, message: 'Method not found', data: { method: 'unknown_method' } },
    });
    expect(
      (
        await post(
          '{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "get_project", "arguments": {}}}',
        )
      ).body,
    ).toEqual({
      jsonrpc: '2.0',
      id: 1,
      error: {
        code: -32602,
        message: 'Invalid params',
        data: { field: 'projectId', error: 'Required field missing' },
      },
    });
  });

  it('authentication failed: 401 without an Authorization header or with a bad key, the documented body', async () => {
    for (const token of [null, 'cf_live_sk_notarealkey000000000000000000000', 'something-else']) {
      const { status, headers, body } = await post(
        '{"jsonrpc": "2.0", "id": 1, "method": "tools/list"}',
        token,
      );
      expect(status).toBe(401);
      expect(headers.get('www-authenticate')).toMatch(/^Bearer/);
      expect(body).toEqual({
        jsonrpc: '2.0',
        id: null,
        error: {
          code: -32001,
          message: 'Authentication failed',
          data: { reason: 'Invalid or missing API key' },
        },
      });
    }
  });

  it('405 for anything but POST', async () => {
    for (const method of ['GET', 'PUT', 'DELETE']) {
      const { status, headers } = await post('', key, method);
      expect(status).toBe(405);
      expect(headers.get('allow')).toBe('POST');
    }
  });
});

describe('429 when a key exceeds its rate limit', () => {
  it('answers 429 with Retry-After and the documented error -32000, per key', async () => {
    const limited = await serveHttp(
      createProjectsServer({ store }),
      projectsHttpOptions(store, { points: 3, windowSec: 60 }),
    );
    const other = await userWithKey(store, 'ben@example.com', ['read']);
    const ping = (token: string) =>
      postJson(`${limited.url}/api/mcp`, '{"jsonrpc":"2.0","id":1,"method":"ping"}', { token });
    try {
      for (let i = 0; i < 3; i++) expect((await ping(key)).status).toBe(200);
      const over = await ping(key);
      expect(over.status).toBe(429);
      expect(Number(over.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(over.body).toMatchObject({
        error: { code: -32000, message: 'Rate limit exceeded' },
      });
      expect((await ping(other.key)).status).toBe(200);
    } finally {
      await limited.close();
    }
  });
});
