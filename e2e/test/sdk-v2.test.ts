import {
  Client,
  StreamableHTTPClientTransport,
  type Transport,
} from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, describe, expect, it } from 'vitest';
import {
  CELLS,
  checkSimpleResult,
  checkTools,
  type HttpApp,
  killAll,
  LEGACY_VERSIONS,
  prepare,
  SIMPLE_TOOL,
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
    '%s over %s: probe server/discover (modern over stdio, initialize over HTTP), listTools, callTool',
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
        if (transport === 'http') {
          // Streamable HTTP still serves only the 2025 era (2026-07-28 over HTTP is the next
          // step): the probe went first, was refused with a JSON-RPC error, initialize followed.
          expect(client.getProtocolEra()).toBe('legacy');
          expect(client.getDiscoverResult()).toBeUndefined();
          expect(LEGACY_VERSIONS).toContain(client.getNegotiatedProtocolVersion());
          expect(exchanges.map((e) => e.method).slice(0, 2)).toEqual([
            'server/discover',
            'initialize',
          ]);
          const probe = exchanges[0] as Exchange;
          const answer = JSON.parse(probe.body) as { error?: { code: number }; result?: unknown };
          expect(answer.result).toBeUndefined();
          // A stateful 2025 Streamable HTTP server checks the session before the method: a request
          // other than initialize without Mcp-Session-Id is HTTP 400 (spec 2025-11-25, "Session
          // Management"), which the v2 client reads as a legacy server, like -32601.
          expect([
            { status: 400, code: -32600 },
            { status: 200, code: -32601 },
          ]).toContainEqual({ status: probe.status, code: answer.error?.code });
        } else {
          // Over stdio every app is dual-era: the probe finds 2026-07-28 and the client stays
          // modern — no initialize at all.
          expect(client.getProtocolEra()).toBe('modern');
          expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28');
          expect(client.getDiscoverResult()?.supportedVersions).toEqual(['2026-07-28']);
        }

        const { tools } = await within(client.listTools({}, REQUEST), 25_000, 'tools/list');
        expect(checkTools(app, tools)).toBeUndefined();

        const result = await within(
          client.callTool({ name: SIMPLE_TOOL[app], arguments: {} }, REQUEST),
          25_000,
          'tools/call',
        );
        expect(result.isError ?? false).toBe(false);
        expect(checkSimpleResult(app, result.structuredContent)).toBeUndefined();
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
