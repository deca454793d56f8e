/**
 * Every message the system-info server sends, in both eras, checked against the published JSON
 * schema of the revision it speaks (the kit's `connectWire`: MCP 2025-11-25 for a session that
 * initialized, 2026-07-28 for requests that carry its envelope) — every tool's result, the lists,
 * the dashboard view, and every error path — and each error's code by condition and era: MCP
 * System Info's codes in 2025 sessions, the 2026-07-28 spec's in the modern era.
 */

import { serveHttp } from '@mcpkit/node';
import { connectWire, postJson, type RawPeer, type WireEra, wireProblems } from '@mcpkit/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { CONFIG_PLACEHOLDER, DASHBOARD_URI, UI_EXTENSION, UI_MIME_TYPE } from '../src/dashboard.js';
import { ALERTS_URI, METRIC_URI_TEMPLATE } from '../src/resources.js';
import type { Collectors } from '../src/sampler/collectors.js';
import type { Scope } from '../src/scopes.js';
import { createSystemInfoServer } from '../src/server.js';
import { failing, NOW, normalMachine } from './fixtures.js';

const VIEW = `<!doctype html><html><head>${CONFIG_PLACEHOLDER}</head><body></body></html>`;
/** A host that draws MCP Apps views: resources/list then shows the dashboard. */
const UI_CAPS = { extensions: { [UI_EXTENSION]: { mimeTypes: [UI_MIME_TYPE] } } };

let peers: RawPeer[] = [];
afterEach(async () => {
  await Promise.all(peers.map((p) => p.close()));
  peers = [];
});

/** A schema-checking client of one era (the kit's `connectWire`), closed after each test. */
async function client(era: WireEra, collectors: Collectors, scopes: Scope[]) {
  const { server } = createSystemInfoServer({
    collectors,
    scopes,
    sampler: { now: () => NOW },
    warm: false,
    loadDashboard: async () => VIEW,
  });
  const c = await connectWire(server, era, { capabilities: UI_CAPS });
  peers.push(c.peer);
  return c;
}

describe.each(['legacy', 'modern'] as const)(
  'the system-info server on the wire (%s era)',
  (era) => {
    it('answers every tool, list and read within the schema', async () => {
      const c = await client(era, normalMachine(), ['core', 'sensitive']);
      const tools = (await c.send('tools/list')).result?.tools as { name: string }[];
      expect(tools.length).toBeGreaterThan(10);
      for (const { name } of tools) {
        const reply = await c.send('tools/call', { name, arguments: {} });
        expect(reply.error, name).toBeUndefined();
      }
      const listed = (await c.send('resources/list')).result?.resources as { uri: string }[];
      // The dashboard is a template without variables: listed, to a host that draws views, by
      // its concrete URI.
      // sysinfo://alerts, then the metric series (none: this server records nothing) and the view.
      expect(listed.map((r) => r.uri)).toEqual([ALERTS_URI, DASHBOARD_URI]);
      const templates = (await c.send('resources/templates/list')).result?.resourceTemplates;
      expect(templates).toMatchObject([
        { uriTemplate: METRIC_URI_TEMPLATE },
        { uriTemplate: DASHBOARD_URI },
      ]);
      expect((await c.send('resources/read', { uri: DASHBOARD_URI })).result).toBeDefined();
      // Arguments the schema refuses: a tool result the model can read (isError), in both eras.
      const bad = await c.send('tools/call', { name: 'get_processes', arguments: { top: 'all' } });
      expect(bad.result?.isError).toBe(true);
      expect(await c.problems()).toEqual([]);
    });

    it('answers each failure with the code of its condition in this era, within the schema', async () => {
      const legacy = era === 'legacy';
      const broken = await client(era, failing(normalMachine(), 'filesystems'), ['core']);
      // A collector that failed: MCP System Info's -32000 "Query execution error" in 2025; the
      // spec's internal error in 2026-07-28 (its legacy range is not to be used).
      expect(
        await broken.error('tools/call', { name: 'get_disk_info', arguments: {} }),
      ).toMatchObject({
        code: legacy ? -32000 : -32603,
        message: expect.stringMatching(/^Query execution error: /),
      });
      // A scope the server does not enable: the exact -32600 of MCP System Info, in both eras.
      expect(await broken.error('tools/call', { name: 'get_auth_logs', arguments: {} })).toEqual({
        code: -32600,
        message: "Query 'get_auth_logs' requires scope 'sensitive' which is not enabled",
      });
      expect(
        await broken.error('tools/call', { name: 'get_nothing', arguments: {} }),
      ).toMatchObject({
        code: -32602,
      });
      expect(
        await broken.error('resources/read', { uri: 'ui://system-info/nothing' }),
      ).toMatchObject({ code: legacy ? -32002 : -32602 });
      // Methods of capabilities the server does not declare.
      expect(await broken.error('prompts/list')).toMatchObject({ code: -32601 });
      expect(await broken.error('prompts/get', { name: 'x' })).toMatchObject({ code: -32601 });
      // Completions are served (metric names complete), but there is no prompt to complete.
      expect(
        await broken.error('completion/complete', {
          ref: { type: 'ref/prompt', name: 'x' },
          argument: { name: 'a', value: '' },
        }),
      ).toMatchObject({ code: -32602 });
      expect(await broken.problems()).toEqual([]);
    });
  },
);

describe('a method the server does not declare, over HTTP', () => {
  it('is 404 with -32601 for a 2026-07-28 request, and -32601 in a 2025 reply', async () => {
    const { server } = createSystemInfoServer({ collectors: normalMachine(), warm: false });
    // As the CLI serves it: MCP System Info's plain JSON-RPC endpoint at / beside /mcp.
    const http = await serveHttp(server, { plainPaths: ['/'] });
    try {
      const headers = {
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': 'prompts/list',
      };
      const body = {
        jsonrpc: '2.0',
        id: 9,
        method: 'prompts/list',
        params: {
          _meta: {
            'io.modelcontextprotocol/protocolVersion': '2026-07-28',
            'io.modelcontextprotocol/clientCapabilities': {},
          },
        },
      };
      const modern = await postJson(`${http.url}/mcp`, body, { headers });
      expect(modern.status).toBe(404);
      expect(modern.body).toMatchObject({ id: 9, error: { code: -32601 } });
      expect(wireProblems('2026-07-28', modern.body, 'prompts/list')).toEqual([]);
      // MCP System Info's plain JSON-RPC endpoint answers every reply 200.
      const plain = await postJson(`${http.url}/`, {
        jsonrpc: '2.0',
        id: 10,
        method: 'prompts/list',
      });
      expect(plain.body).toMatchObject({ id: 10, error: { code: -32601 } });
    } finally {
      await http.close();
    }
  });
});
