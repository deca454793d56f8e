// @module-tag process
/**
 * A Streamable HTTP backend: the system-info app listening on 127.0.0.1, behind the gateway.
 */
import { fileURLToPath } from 'node:url';
import { connectRaw, type HttpProcess, type RawPeer, spawnHttpServer } from '@mcpkit/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../src/config.js';
import { EventLog } from '../src/events.js';
import { Gateway } from '../src/gateway.js';

const SYSINFO = fileURLToPath(new URL('../../system-info/dist/cli.js', import.meta.url));
let backend: HttpProcess;
let gateway: Gateway;
/** A client of the gateway, raw: the backend's error objects must pass through as they are. */
let client: RawPeer;

beforeAll(async () => {
  backend = await spawnHttpServer(
    process.execPath,
    [SYSINFO, '--transport', 'http', '--port', '0', '--log-level', 'info'],
    { timeoutMs: 10_000 },
  );
  gateway = new Gateway(
    parseConfig({ mcpServers: { sysinfo: { url: `${backend.url}/mcp`, timeoutMs: 5000 } } }),
    { events: EventLog.open(':memory:') },
  );
  await gateway.start();
  client = connectRaw(gateway.server);
});

afterAll(async () => {
  await gateway?.stop();
  backend?.kill();
});

describe('a Streamable HTTP backend', () => {
  it('is discovered: its tools are advertised under its namespace', async () => {
    expect(gateway.backends.get('sysinfo')?.state).toBe('running');
    const { result } = await client.request('tools/list', {});
    const names = ((result?.tools ?? []) as { name: string }[]).map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(['sysinfo__get_uptime', 'sysinfo__get_cpu_info']));
  });

  it('forwards calls and returns the backend result untouched', async () => {
    const { result } = await client.request('tools/call', {
      name: 'sysinfo__get_uptime',
      arguments: {},
    });
    expect(result).toMatchObject({
      isError: false,
      structuredContent: { uptime_seconds: expect.any(Number) },
    });
  });

  it("passes the backend's JSON-RPC errors through", async () => {
    const { error } = await client.request('tools/call', {
      name: 'sysinfo__get_auth_logs',
      arguments: {},
    });
    expect(error).toEqual({
      code: -32600,
      message: "Query 'get_auth_logs' requires scope 'sensitive' which is not enabled",
    });
  });

  it('fails calls fast, naming the backend, once it is gone', async () => {
    backend.kill();
    await backend.exited;
    const { error } = await client.request('tools/call', {
      name: 'sysinfo__get_uptime',
      arguments: {},
    });
    expect(error?.code).toBe(-32000);
    expect(error?.message).toContain("Backend 'sysinfo'");
  });
});
