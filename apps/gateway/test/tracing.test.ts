// @module-tag process
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startTracing, type Tracing, withTraceContext } from '@mcpkit/observability';
import {
  type HttpProcess,
  killSpawned,
  postJson,
  removeTempDirs,
  tempDir,
  waitFor,
} from '@mcpkit/testing';
import { trace } from '@opentelemetry/api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnHttpGateway } from './helpers.js';

const PROJECTS = fileURLToPath(new URL('../../projects/dist/cli.js', import.meta.url));

/** A span as the test reads it from OTLP JSON. */
interface ReceivedSpan {
  service: string;
  name: string;
  traceId: string;
  spanId: string;
  parentSpanId: string;
  kind: number;
  attributes: Record<string, unknown>;
}

/** An OTLP/HTTP receiver: POST /v1/traces, JSON encoding. */
function startReceiver(): Promise<{
  server: Server;
  url: string;
  spans: ReceivedSpan[];
  refused: string[];
}> {
  const spans: ReceivedSpan[] = [];
  const refused: string[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const type = req.headers['content-type'] ?? '';
      if (
        req.method !== 'POST' ||
        req.url !== '/v1/traces' ||
        !type.startsWith('application/json')
      ) {
        refused.push(`${req.method} ${req.url} ${type}`);
        res.writeHead(415).end();
        return;
      }
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
        resourceSpans: {
          resource: { attributes: { key: string; value: Record<string, unknown> }[] };
          scopeSpans: { spans: Record<string, unknown>[] }[];
        }[];
      };
      for (const rs of body.resourceSpans) {
        const service = rs.resource.attributes.find((a) => a.key === 'service.name')?.value
          .stringValue as string;
        for (const ss of rs.scopeSpans) {
          for (const s of ss.spans) {
            const attributes: Record<string, unknown> = {};
            for (const a of (s.attributes as { key: string; value: Record<string, unknown> }[]) ??
              []) {
              attributes[a.key] = Object.values(a.value)[0];
            }
            spans.push({
              service,
              name: s.name as string,
              traceId: s.traceId as string,
              spanId: s.spanId as string,
              parentSpanId: (s.parentSpanId as string | undefined) ?? '',
              kind: s.kind as number,
              attributes,
            });
          }
        }
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      resolve({ server, url: `http://127.0.0.1:${port}`, spans, refused });
    });
  });
}

describe('traces across client → gateway → projects', () => {
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let gateway: HttpProcess;
  let tracing: Tracing;

  beforeAll(async () => {
    receiver = await startReceiver();
    const otel = {
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      // Spans leave within 100 ms rather than 5 s.
      OTEL_BSP_SCHEDULE_DELAY: '100',
    };
    const dir = tempDir('gateway-trace-');
    gateway = await spawnHttpGateway(
      {
        mcpServers: {
          projects: {
            command: process.execPath,
            args: [
              PROJECTS,
              '--database-url',
              join(dir, 'projects.db'),
              '--seed-demo',
              '--user',
              'demo@codefluss.local',
              '--log-level',
              'warn',
            ],
            // A backend gets no variables of the gateway's unless its config gives them.
            env: { ...otel, OTEL_SERVICE_NAME: 'projects' },
          },
        },
      },
      {
        dir,
        env: { ...process.env, ...otel, OTEL_SERVICE_NAME: 'gateway' },
      },
    );
    // This process is the client harness: its own SDK, the same receiver.
    process.env.OTEL_EXPORTER_OTLP_ENDPOINT = receiver.url;
    process.env.OTEL_BSP_SCHEDULE_DELAY = '100';
    tracing = await startTracing({ serviceName: 'client-harness' });
  });

  afterAll(async () => {
    await tracing?.shutdown();
    await gateway?.stop();
    receiver?.server.close();
    killSpawned();
    removeTempDirs();
  });

  it('links the spans of the three processes, parent to child, in one trace', async () => {
    // The harness's client carries its trace in `_meta.traceparent`, as a traced client does.
    const client = await gateway.connect({ propagate: withTraceContext });
    // The gateway answers before its backends are up; the list waits for them, so the call
    // below reaches a registered tool (a call that arrives first is traced as plain tools/call).
    expect((await client.listTools()).map((t) => t.name)).toContain('projects__list_projects');
    const tracer = trace.getTracer('harness');
    const { traceId, spanId } = await tracer.startActiveSpan(
      'harness: list projects',
      async (span) => {
        const result = await client.callTool('projects__list_projects', {});
        expect(result.isError ?? false).toBe(false);
        span.end();
        return span.spanContext();
      },
    );
    await tracing.shutdown();
    const inTrace = () => receiver.spans.filter((s) => s.traceId === traceId);
    await waitFor('spans of all three processes', () => {
      const services = new Set(inTrace().map((s) => s.service));
      return services.has('client-harness') && services.has('gateway') && services.has('projects')
        ? true
        : undefined;
    });
    const spans = inTrace();
    const harness = spans.find((s) => s.service === 'client-harness');
    const gw = spans.find(
      (s) => s.service === 'gateway' && s.name === 'tools/call projects__list_projects',
    );
    const backend = spans.find(
      (s) => s.service === 'projects' && s.name === 'tools/call list_projects',
    );
    expect(harness?.spanId).toBe(spanId);
    expect(gw, JSON.stringify(spans)).toBeDefined();
    expect(backend, JSON.stringify(spans)).toBeDefined();
    // client → gateway (from the request's _meta.traceparent) → projects (from the gateway's).
    expect(gw?.parentSpanId).toBe(spanId);
    expect(backend?.parentSpanId).toBe(gw?.spanId);
    expect(gw?.kind).toBe(2); // SERVER
    expect(gw?.attributes['gen_ai.tool.name']).toBe('projects__list_projects');
    expect(backend?.attributes['rpc.method']).toBe('tools/call');
    expect(receiver.refused).toEqual([]);
  });

  it('continues a trace from the HTTP traceparent header when _meta has none', async () => {
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    const parent = '00f067aa0ba902b7';
    const reply = await postJson(
      `${gateway.url}/messages/`,
      { jsonrpc: '2.0', id: 1, method: 'ping' },
      { headers: { traceparent: `00-${traceId}-${parent}-01` } },
    );
    expect(reply.status).toBe(200);
    const span = await waitFor('the ping span', () =>
      receiver.spans.find((s) => s.traceId === traceId && s.name === 'ping'),
    );
    expect(span.service).toBe('gateway');
    expect(span.parentSpanId).toBe(parent);
  });

  it('ignores a malformed traceparent (a new trace, no error)', async () => {
    const before = receiver.spans.length;
    const reply = await postJson(
      `${gateway.url}/messages/`,
      { jsonrpc: '2.0', id: 2, method: 'ping', params: { _meta: { traceparent: 'garbage' } } },
      { headers: { traceparent: 'also-garbage' } },
    );
    expect(reply.status).toBe(200);
    const span = await waitFor('a new ping span', () =>
      receiver.spans.slice(before).find((s) => s.name === 'ping' && s.service === 'gateway'),
    );
    expect(span.parentSpanId).toBe('');
  });
});
