// @module-tag process
import {
  Client,
  StreamableHTTPClientTransport,
  type Transport,
} from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, describe, expect, it } from 'vitest';
import {
  CELLS,
  expectToolsAndSimpleCall,
  type HttpApp,
  killAll,
  prepare,
  scratch,
  startHttp,
  within,
} from './helpers.js';

const REQUEST = { timeout: 20_000 };

afterAll(killAll);

interface Exchange {
  method: string | undefined;
  status: number;
  body: string;
}

describe('SDK v2 Client (@modelcontextprotocol/client 2.4.0, versionNegotiation auto)', () => {
  it.each(CELLS)(
    '%s over %s: probe server/discover (modern on both transports), listTools, callTool',
    async (app, transport) => {
      const s = scratch(`v2-${app}-${transport}`);
      let server: HttpApp | undefined;
      let stderr = '';
      const exchanges: Exchange[] = [];
      // 'auto': probe with server/discover (2026-07-28), fall back to the 2025 initialize handshake.
      const client = new Client(
        { name: 'mcpkit-e2e-sdk-v2', version: '0.0.0' },
        { versionNegotiation: { mode: 'auto', probe: { timeoutMs: 10_000 } } },
      );
      try {
        const prepared = await prepare(app, s, transport === 'http');
        let clientTransport: Transport;
        if (transport === 'stdio') {
          const stdio = new StdioClientTransport({ ...prepared.stdio, stderr: 'pipe' });
          stdio.stderr?.on('data', (d: Buffer) => {
            stderr += d.toString('utf8');
          });
          clientTransport = stdio;
        } else {
          server = await startHttp(app, prepared.httpArgs, prepared.env);
          // Record what goes over the wire: the probe and its answer must be visible.
          const recording = async (input: string | URL, init?: RequestInit): Promise<Response> => {
            const response = await fetch(input, init);
            let method: string | undefined;
            if (typeof init?.body === 'string') {
              try {
                method = (JSON.parse(init.body) as { method?: string }).method;
              } catch {
                method = undefined;
              }
            }
            const isJson = response.headers.get('content-type')?.includes('application/json');
            exchanges.push({
              method,
              status: response.status,
              body: isJson ? await response.clone().text() : '',
            });
            return response;
          };
          clientTransport = new StreamableHTTPClientTransport(new URL(server.mcpUrl), {
            fetch: recording,
            ...(prepared.apiKey
              ? { requestInit: { headers: { Authorization: `Bearer ${prepared.apiKey}` } } }
              : {}),
          });
        }

        await within(client.connect(clientTransport, REQUEST), 45_000, 'connect');
        expect(client.getServerVersion()?.name).toBeTruthy();
        // Every app is dual-era on both transports: the probe finds 2026-07-28 and the client
        // stays modern — no initialize at all.
        expect(client.getProtocolEra()).toBe('modern');
        expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28');
        expect(client.getDiscoverResult()?.supportedVersions?.[0]).toBe('2026-07-28');
        if (transport === 'http') {
          // Over Streamable HTTP the probe is answered 200 without any session (spec 2026-07-28
          // streamable-http: no Mcp-Session-Id), and no initialize follows it.
          expect(exchanges[0]).toMatchObject({ method: 'server/discover', status: 200 });
          expect(exchanges.map((e) => e.method)).not.toContain('initialize');
        }

        await expectToolsAndSimpleCall(
          app,
          () => client.listTools({}, REQUEST),
          (name) => client.callTool({ name, arguments: {} }, REQUEST),
        );
      } catch (err) {
        console.error(
          `[${app} ${transport}] exchanges: ${JSON.stringify(exchanges)}\nserver stderr:\n${(server?.stderr() ?? stderr).slice(-4000)}`,
        );
        throw err;
      } finally {
        await within(client.close(), 10_000, 'close').catch(() => {});
        await server?.stop();
        s.cleanup();
      }
    },
  );
});
