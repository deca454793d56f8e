// @module-tag process
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { afterAll, describe, expect, it } from 'vitest';
import {
  backendPids,
  CELLS,
  expectToolsAndSimpleCall,
  type HttpApp,
  killAll,
  prepare,
  scratch,
  startHttp,
  waitGone,
  within,
} from './helpers.js';

const REQUEST = { timeout: 20_000 };

afterAll(killAll);

describe('SDK v1 Client (@modelcontextprotocol/sdk 1.32.2)', () => {
  it.each(CELLS)('%s over %s: connect, listTools, callTool, close', async (app, transport) => {
    const s = scratch(`v1-${app}-${transport}`);
    let server: HttpApp | undefined;
    let stdio: StdioClientTransport | undefined;
    let stderr = '';
    const client = new Client({ name: 'mcpkit-e2e-sdk-v1', version: '0.0.0' });
    try {
      const prepared = await prepare(app, s, transport === 'http');
      let clientTransport: Transport;
      if (transport === 'stdio') {
        stdio = new StdioClientTransport({ ...prepared.stdio, stderr: 'pipe' });
        stdio.stderr?.on('data', (d: Buffer) => {
          stderr += d.toString('utf8');
        });
        clientTransport = stdio;
      } else {
        server = await startHttp(app, prepared.httpArgs, prepared.env);
        clientTransport = new StreamableHTTPClientTransport(new URL(server.mcpUrl), {
          requestInit: prepared.apiKey
            ? { headers: { Authorization: `Bearer ${prepared.apiKey}` } }
            : {},
        });
      }

      await within(client.connect(clientTransport, REQUEST), 30_000, 'connect');
      expect(client.getServerVersion()?.name).toBeTruthy();
      expect(client.getServerCapabilities()?.tools).toBeDefined();

      const result = await expectToolsAndSimpleCall(
        app,
        () => client.listTools({}, REQUEST),
        (name) => client.callTool({ name, arguments: {} }, undefined, REQUEST),
      );
      const first = (result.content as { type: string }[] | undefined)?.[0];
      expect(first?.type).toBe('text');

      // Closing ends the stdio server; stopping the HTTP one (SIGTERM) ends it. Either way the
      // gateway must take its backends with it.
      const pids = app === 'gateway' ? backendPids(result.structuredContent) : [];
      if (app === 'gateway') expect(pids).toHaveLength(2);
      const serverPid = stdio?.pid ?? server?.pid;
      await within(client.close(), 10_000, 'close');
      await server?.stop();
      expect(await waitGone(serverPid ? [serverPid, ...pids] : pids)).toEqual([]);
    } catch (err) {
      console.error(
        `[${app} ${transport}] server stderr:\n${(server?.stderr() ?? stderr).slice(-4000)}`,
      );
      throw err;
    } finally {
      await within(client.close(), 10_000, 'close').catch(() => {});
      await server?.stop();
      s.cleanup();
    }
  });
});
