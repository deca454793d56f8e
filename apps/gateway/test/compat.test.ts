// @module-tag process
/**
 * "Complete Example: Full Session" of the mcp-n8n gateway's JSON-RPC API reference, sent verbatim
 * to the real gateway CLI over stdio with the chora fixture as the reference's chora-composer
 * backend.
 */
import { join } from 'node:path';
import { removeTempDirs, tempDir } from '@mcpkit/testing';
import { afterAll, describe, expect, it } from 'vitest';
import {
  descendants,
  fixture,
  type GatewayChild,
  handshake,
  killAllGateways,
  type RpcMessage,
  startGateway,
  survivors,
  textOf,
  track,
} from './helpers.js';

/** The requests of the mcp-n8n reference session, as it writes them. */
const REFERENCE = {
  initialize:
    '{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2024-11-05", "capabilities": {}, "clientInfo": {"name": "claude-desktop", "version": "1.0.0"}}}',
  initialized: '{"jsonrpc": "2.0", "method": "initialized"}',
  toolsList: '{"jsonrpc": "2.0", "id": 2, "method": "tools/list"}',
  status:
    '{"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "gateway_status", "arguments": {}}}',
  listGenerators:
    '{"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {"name": "chora:list_generators", "arguments": {}}}',
  events:
    '{"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": {"name": "get_events", "arguments": {"event_type": "gateway.started", "limit": 1}}}',
  // The reference's error example for tools/call (its id is 3 there; 6 keeps ids unique here).
  unknownTool:
    '{"jsonrpc": "2.0", "id": 6, "method": "tools/call", "params": {"name": "unknown_tool", "arguments": {}}}',
};
const GENERATORS_TEXT =
  '{"generators": [{"id": "python_script", "name": "Python Script", "category": "code"}]}';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function referenceConfig(toolNames?: 'colon') {
  return {
    gateway: { name: 'mcp-n8n', ...(toolNames ? { tool_names: toolNames } : {}) },
    mcpServers: {
      'chora-composer': { command: 'node', args: [fixture('chora')], namespace: 'chora' },
    },
  };
}

/** Send one verbatim line; the very next stdout line must be its response. */
async function exchange(gw: GatewayChild, line: string): Promise<RpcMessage> {
  const reply = await gw.exchange<RpcMessage>(line);
  expect(reply.jsonrpc).toBe('2.0');
  expect(reply.id).toBe((JSON.parse(line) as { id: number }).id);
  return reply;
}

interface EventRow {
  timestamp: string;
  trace_id: string;
  status: string;
  event_type: string;
  source: string;
}

afterAll(async () => {
  await killAllGateways();
  removeTempDirs();
});

describe('the mcp-n8n reference session over stdio (tool_names: colon)', () => {
  it('answers every step as the reference shows, then exits 0 on EOF leaving no process', async () => {
    const spawnedAt = Date.now();
    const gw = startGateway(referenceConfig('colon'));

    // 1. initialize
    const init = await exchange(gw, REFERENCE.initialize);
    expect(init.error).toBeUndefined();
    const result = init.result as {
      protocolVersion: string;
      capabilities: Record<string, unknown>;
      serverInfo: { name: string; version: string };
    };
    expect(result.protocolVersion).toBe('2024-11-05');
    expect(result.capabilities.tools).toBeTypeOf('object');
    expect(result.serverInfo.name).toBe('mcp-n8n');
    expect(result.serverInfo.version).toMatch(/^\d+\.\d+\.\d+/);

    // 2. the bare `initialized` notification: no response (the next line answers id 2)
    gw.send(REFERENCE.initialized);

    // 3. tools/list
    const list = await exchange(gw, REFERENCE.toolsList);
    const tools = (list.result as { tools: Record<string, unknown>[] }).tools;
    const byName = new Map(tools.map((t) => [t.name as string, t]));
    expect(byName.size).toBe(tools.length);
    expect(byName.get('gateway_status')).toMatchObject({
      name: 'gateway_status',
      description: 'Get status of the gateway and all backends',
    });
    expect(byName.get('gateway_status')?.inputSchema).toStrictEqual({
      type: 'object',
      properties: {},
      required: [],
    });
    expect(byName.get('get_events')).toMatchObject({
      inputSchema: {
        type: 'object',
        properties: { trace_id: { type: 'string' }, limit: { type: 'integer' } },
        required: [],
      },
    });
    expect(byName.get('chora:generate_content')).toMatchObject({
      description: expect.stringContaining('Generate content from templates'),
      inputSchema: {
        type: 'object',
        properties: { generator_id: { type: 'string' } },
        required: ['generator_id'],
      },
    });
    for (const name of [
      'chora:list_generators',
      'chora:list_templates',
      'chora:validate_content',
    ]) {
      expect(byName.has(name)).toBe(true);
    }
    expect([...byName.keys()].filter((n) => n.startsWith('chora'))).toHaveLength(4);

    // 4. gateway_status
    const statusReply = await exchange(gw, REFERENCE.status);
    const statusResult = statusReply.result as { content: { type: string; text: string }[] };
    expect(statusResult.content[0]?.type).toBe('text');
    const status = JSON.parse(textOf(statusReply)) as {
      gateway: Record<string, unknown>;
      backends: Record<string, { pid: number }>;
    };
    expect(status).toMatchObject({
      gateway: {
        name: 'mcp-n8n',
        version: result.serverInfo.version,
        config: { log_level: 'INFO', debug: false, backend_timeout: 30 },
      },
      backends: {
        'chora-composer': { status: 'running', namespace: 'chora', tool_count: 4 },
      },
    });
    expect(Object.keys(status.backends)).toStrictEqual(['chora-composer']);

    // 5. a backend tool, by the reference's colon name; the text is the reference's, byte for byte
    const generators = await exchange(gw, REFERENCE.listGenerators);
    expect((generators.result as { content: unknown }).content).toStrictEqual([
      { type: 'text', text: GENERATORS_TEXT },
    ]);

    // 6. get_events
    const eventsReply = await exchange(gw, REFERENCE.events);
    const answeredAt = Date.now();
    const events = JSON.parse(textOf(eventsReply)) as EventRow[];
    expect(Array.isArray(events)).toBe(true);
    expect(events).toHaveLength(1);
    const [started] = events;
    expect(started).toMatchObject({
      status: 'success',
      event_type: 'gateway.started',
      source: 'mcp-n8n',
    });
    expect(started?.trace_id).toMatch(UUID);
    // Stamped with the wall clock when it happened: after the gateway was spawned, before the
    // answer naming it came back — an order, however long each step took.
    const ts = Date.parse(started?.timestamp ?? '');
    expect(ts).toBeGreaterThanOrEqual(spawnedAt);
    expect(ts).toBeLessThanOrEqual(answeredAt);

    // the reference's unknown-tool error
    const unknown = await exchange(gw, REFERENCE.unknownTool);
    expect(unknown.result).toBeUndefined();
    expect(unknown.error).toStrictEqual({ code: -32601, message: 'Tool not found: unknown_tool' });

    // the backend is a live child of the gateway until stdin closes
    const backendPid = status.backends['chora-composer']?.pid as number;
    expect(descendants(gw.pid).map((p) => p.pid)).toContain(backendPid);
    const tracked = [track(gw.pid), track(backendPid)].filter((p) => p !== undefined);
    expect(tracked).toHaveLength(2);

    const exit = await gw.end();
    expect(exit).toStrictEqual({ code: 0, signal: null });
    // Six requests, six responses: nothing for `initialized`, nothing unsolicited.
    const replies = gw.lines.filter((l) => l.trim() !== '').map((l) => JSON.parse(l) as RpcMessage);
    expect(replies.map((r) => r.id)).toStrictEqual([1, 2, 3, 4, 5, 6]);
    expect(survivors(tracked)).toStrictEqual([]);
  });
});

describe('the mcp-n8n reference session with the default tool naming', () => {
  it('advertises chora__list_generators and still accepts chora:list_generators', async () => {
    const gw = startGateway(referenceConfig());
    await exchange(gw, REFERENCE.initialize);
    gw.send(REFERENCE.initialized);
    const list = await exchange(gw, REFERENCE.toolsList);
    const names = (list.result as { tools: { name: string }[] }).tools.map((t) => t.name);
    expect(names).toEqual(
      expect.arrayContaining([
        'gateway_status',
        'get_events',
        'chora__generate_content',
        'chora__list_generators',
        'chora__list_templates',
        'chora__validate_content',
      ]),
    );
    expect(names.some((n) => n.includes(':'))).toBe(false);

    const colon = await exchange(gw, REFERENCE.listGenerators);
    expect(textOf(colon)).toBe(GENERATORS_TEXT);
    const underscore = await gw.call('chora__list_generators');
    expect(textOf(underscore)).toBe(GENERATORS_TEXT);
    const status = await gw.status();
    expect(status.backends['chora-composer']).toMatchObject({ status: 'running', tool_count: 4 });

    expect(await gw.end()).toStrictEqual({ code: 0, signal: null });
  });
});

describe('a backend without a namespace (namespace: false)', () => {
  it('advertises its tools by their own names and calls them', async () => {
    const gw = startGateway({
      mcpServers: {
        chora: { command: process.execPath, args: [fixture('chora')], namespace: false },
      },
    });
    try {
      await handshake(gw);
      const list = await gw.request('tools/list');
      const names = (list.result as { tools: { name: string }[] }).tools.map((t) => t.name);
      expect(names).toContain('list_generators');
      expect(names.some((n) => n.startsWith('chora'))).toBe(false);
      expect(textOf(await gw.call('list_generators'))).toBe(GENERATORS_TEXT);
    } finally {
      await gw.end();
    }
  });
});

describe('the event log across gateway restarts', () => {
  it("a second run's get_events sees the first run's gateway.started", async () => {
    const events = join(tempDir('gw-e2e-'), 'shared-events.db');
    const eventsOf = async (gw: GatewayChild) =>
      JSON.parse(
        textOf(await gw.call('get_events', { event_type: 'gateway.started', limit: 10 })),
      ) as EventRow[];

    const first = startGateway(referenceConfig('colon'), { events });
    await exchange(first, REFERENCE.initialize);
    const firstEvents = await eventsOf(first);
    expect(firstEvents).toHaveLength(1);
    const firstTrace = firstEvents[0]?.trace_id;
    expect(await first.end()).toStrictEqual({ code: 0, signal: null });

    const second = startGateway(referenceConfig('colon'), { events });
    await exchange(second, REFERENCE.initialize);
    const secondEvents = await eventsOf(second);
    expect(secondEvents).toHaveLength(2);
    // Newest first: this run's start, then the first run's.
    expect(secondEvents[1]?.trace_id).toBe(firstTrace);
    expect(secondEvents[0]?.trace_id).not.toBe(firstTrace);
    expect(secondEvents.every((e) => e.source === 'mcp-n8n' && e.status === 'success')).toBe(true);
    const stopped = JSON.parse(
      textOf(await second.call('get_events', { event_type: 'gateway.stopped' })),
    ) as EventRow[];
    expect(stopped).toHaveLength(1);
    expect(await second.end()).toStrictEqual({ code: 0, signal: null });
  });
});
