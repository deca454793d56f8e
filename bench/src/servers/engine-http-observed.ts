/**
 * engine-http with observability on: Prometheus metrics (McpMetrics, as every runCli app has
 * them) and, with BENCH_TRACING=1, OpenTelemetry traces to the OTLP endpoint in the environment
 * (the bench's sink). Same McpServer, same endpoints. With BENCH_TOGGLE_OUT, the metrics switch on
 * and off in alternating windows (observe-toggle.ts).
 */
import { createMcpHttpServer } from '@mcpkit/node';
import { McpMetrics, startTracing, traceServer } from '@mcpkit/observability';
import { engineServer } from './engine-tools.js';
import { announce } from './http-child.js';
import { installObserveToggle } from './observe-toggle.js';

installObserveToggle();

const server = engineServer();
const metrics = new McpMetrics();
metrics.observe(server);
const tracing =
  process.env.BENCH_TRACING === '1'
    ? await startTracing({ serviceName: 'bench-engine-http' })
    : undefined;
if (tracing) traceServer(server);
const http = createMcpHttpServer(server, {
  host: '127.0.0.1',
  port: 0,
  plainPaths: ['/rpc'],
  streamablePath: '/mcp',
  streamable: { sessions: false },
  metrics,
});
const { port } = await http.listen();
announce(port, async () => {
  await http.close();
  await tracing?.shutdown();
});
