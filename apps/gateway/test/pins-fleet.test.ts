// @module-tag postgres
/**
 * Pinned tool definitions shared by a fleet (`gateway.pins.path: postgres://…`): two gateway
 * instances, each with its own copy of a backend that adds a tool at run time, hold it back;
 * an operator approves it on one instance and the other lists it too (it heard of the approval
 * over PostgreSQL's LISTEN/NOTIFY); a restarted instance starts from the shared approvals.
 */
import { randomBytes } from 'node:crypto';
import type { McpClient } from '@mcpkit/protocol';
import { type HttpProcess, killSpawned, removeTempDirs, waitFor } from '@mcpkit/testing';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backend, spawnHttpGateway } from './helpers.js';

const PG_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const schema = `gw_pins_${randomBytes(4).toString('hex')}`;
const sql = async (text: string) => {
  const client = new pg.Client({ connectionString: PG_URL, connectionTimeoutMillis: 5000 });
  await client.connect();
  try {
    await client.query(text);
  } finally {
    await client.end();
  }
};

let config: unknown;
const gateways: HttpProcess[] = [];
const clients: McpClient[] = [];
beforeAll(async () => {
  await sql(`CREATE SCHEMA "${schema}"`);
  const url = new URL(PG_URL);
  url.searchParams.set('options', `-c search_path=${schema}`);
  config = {
    gateway: { pins: { path: url.toString() } },
    mcpServers: { held: backend('list-changed', { pin: 'block' }) },
  };
});
afterAll(async () => {
  await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
  await Promise.all(gateways.map((g) => g.stop()));
  killSpawned();
  removeTempDirs();
  await sql(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
});

const start = async () => {
  const gw = await spawnHttpGateway(config);
  gateways.push(gw);
  const client = await gw.connect();
  clients.push(client);
  return { gw, client };
};
const names = async (client: McpClient) => (await client.listTools()).map((t) => t.name);
const held = async (client: McpClient) => {
  const status = await client.callTool('gateway_status', {});
  const text = (status.content as { text: string }[])[0]?.text ?? '{}';
  return (
    (JSON.parse(text) as { backends: Record<string, { quarantined?: { tool: string }[] }> })
      .backends.held?.quarantined ?? []
  ).map((q) => q.tool);
};

describe('pins shared by a fleet', () => {
  it('an approval on one instance lists the tool on the other', async () => {
    const a = await start();
    const b = await start();
    expect(await names(a.client)).toContain('held__add_tool');
    expect(await names(b.client)).toContain('held__add_tool');
    // Each instance's own backend adds the same tool: both hold it back.
    for (const { client } of [a, b]) await client.callTool('held__add_tool', { name: 'greet' });
    await waitFor('both to hold greet back', async () =>
      (await Promise.all([held(a.client), held(b.client)])).every((h) => h.includes('greet')),
    );
    await a.client.callTool('approve_tool', { backend: 'held', tool: 'greet' });
    expect(await names(a.client)).toContain('held__greet');
    // b heard of it.
    await waitFor('the other instance to list greet', async () =>
      (await names(b.client)).includes('held__greet'),
    );
    expect(await held(b.client)).toEqual([]);

    // A third instance starts from the shared approvals: its backend's greet is approved.
    const c = await start();
    await c.client.callTool('held__add_tool', { name: 'greet' });
    await waitFor('the new instance to list greet', async () =>
      (await names(c.client)).includes('held__greet'),
    );
  });
});
