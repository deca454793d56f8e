/**
 * OpenTelemetry traces: a span per request an McpServer answers, continuing the caller's trace
 * (W3C `traceparent`/`tracestate` from the request's `_meta`, else from the HTTP headers), and
 * the current trace passed on in the `_meta` of requests an McpClient sends — so one trace runs
 * client → gateway → backend. Off unless the standard `OTEL_*` variables ask for it; then the
 * SDK is loaded and spans go to an OTLP/HTTP collector.
 */
import { createRequire } from 'node:module';
import type {
  EngineLogger,
  JsonRpcParams,
  McpCall,
  McpObserver,
  McpServer,
} from '@mcpkit/protocol';
import type { Context, Span, TextMapGetter } from '@opentelemetry/api';

/** The `_meta` keys a trace context travels in (W3C Trace Context names, as MCP tools use them). */
export const TRACE_META = { traceparent: 'traceparent', tracestate: 'tracestate' } as const;

/**
 * Set once tracing is started: until then the hot paths pay one boolean read, and the
 * OpenTelemetry API is not even loaded.
 */
let active = false;

const require = createRequire(import.meta.url);
let api: typeof import('@opentelemetry/api') | undefined;
/**
 * `@opentelemetry/api`, loaded on first use rather than with the package: every app imports this
 * module through runCli, traces are off unless asked for, and the import costs ~40 ms of a start.
 */
function otel(): typeof import('@opentelemetry/api') {
  api ??= require('@opentelemetry/api') as typeof import('@opentelemetry/api');
  return api;
}

/** Whether {@link startTracing} has started the SDK in this process. */
export function tracingActive(): boolean {
  return active;
}

/**
 * Whether the environment asks for traces (the OpenTelemetry SDK's variables): an OTLP endpoint
 * (`OTEL_EXPORTER_OTLP_ENDPOINT` or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`) or
 * `OTEL_TRACES_EXPORTER=otlp` — unless `OTEL_SDK_DISABLED=true` or `OTEL_TRACES_EXPORTER=none`.
 */
export function tracingRequested(env: NodeJS.ProcessEnv = process.env): boolean {
  if ((env.OTEL_SDK_DISABLED ?? '').trim().toLowerCase() === 'true') return false;
  const exporters = (env.OTEL_TRACES_EXPORTER ?? '')
    .split(',')
    .map((e) => e.trim().toLowerCase())
    .filter(Boolean);
  if (exporters.includes('none')) return false;
  return (
    exporters.includes('otlp') ||
    Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim()) ||
    Boolean(env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim())
  );
}

/** What {@link startTracing} needs to name the service. */
export interface TracingOptions {
  /** `service.name` unless `OTEL_SERVICE_NAME` (or `OTEL_RESOURCE_ATTRIBUTES`) says otherwise. */
  serviceName: string;
  /** `service.version`. */
  serviceVersion?: string;
  /** Where a failed export is reported (once per kind of failure). */
  logger?: EngineLogger;
}

/** A started tracer: flush and stop it before the process ends. */
export interface Tracing {
  /** Send the spans still buffered and stop. */
  shutdown(): Promise<void>;
}

/**
 * Start the OpenTelemetry SDK for this process: spans batched to the OTLP/HTTP exporter (JSON
 * encoding; endpoint, headers, timeout from `OTEL_EXPORTER_OTLP_*`), W3C trace context, async
 * context tracking, the service named by `options` or `OTEL_SERVICE_NAME`. The SDK is loaded
 * only here: a process that never traces never loads it. Call once; `runCli` does when
 * {@link tracingRequested} says so.
 */
export async function startTracing(options: TracingOptions): Promise<Tracing> {
  const [
    {
      TracerProvider,
      BatchSpanProcessor,
      AlwaysOnSampler,
      AlwaysOffSampler,
      ParentBasedSampler,
      TraceIdRatioBasedSampler,
    },
    { OTLPTraceExporter },
    resources,
    { AsyncLocalStorageContextManager },
    { W3CTraceContextPropagator },
  ] = await Promise.all([
    import('@opentelemetry/sdk-trace'),
    import('@opentelemetry/exporter-trace-otlp-http'),
    import('@opentelemetry/resources'),
    import('@opentelemetry/context-async-hooks'),
    import('@opentelemetry/core'),
  ]);
  const resource = resources
    .defaultResource()
    .merge(
      resources.resourceFromAttributes({
        'service.name': options.serviceName,
        ...(options.serviceVersion ? { 'service.version': options.serviceVersion } : {}),
      }),
    )
    .merge(resources.detectResources({ detectors: [resources.envDetector] }));
  const choice = samplerFromEnv();
  const ratio = () => new TraceIdRatioBasedSampler(choice.ratio);
  const root =
    choice.kind === 'always_off'
      ? new AlwaysOffSampler()
      : choice.kind === 'ratio'
        ? ratio()
        : new AlwaysOnSampler();
  const provider = new TracerProvider({
    resource,
    sampler: choice.parentBased ? new ParentBasedSampler({ root }) : root,
    spanProcessors: [
      new BatchSpanProcessor({ exporter: new OTLPTraceExporter(), ...batchOptions() }),
    ],
  });
  const { context, propagation, trace } = otel();
  const manager = new AsyncLocalStorageContextManager().enable();
  context.setGlobalContextManager(manager);
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  trace.setGlobalTracerProvider(provider);
  active = true;
  return {
    shutdown: async () => {
      active = false;
      await provider.shutdown().catch((err: unknown) => {
        options.logger?.warn(
          { err: (err as Error)?.message ?? err },
          'trace export failed at shutdown',
        );
      });
      trace.disable();
      propagation.disable();
      context.disable();
    },
  };
}

/** What `OTEL_TRACES_SAMPLER` / `OTEL_TRACES_SAMPLER_ARG` ask for (see {@link samplerFromEnv}). */
export interface SamplerChoice {
  /** Sample every root span, none, or a ratio of them. */
  kind: 'always_on' | 'always_off' | 'ratio';
  /** Follow the caller's decision when there is a parent (the `parentbased_*` samplers). */
  parentBased: boolean;
  /** The ratio of `traceidratio` samplers, 0..1. */
  ratio: number;
}

/**
 * The sampler of the standard variables (the SDK leaves them to the app): `always_on`,
 * `always_off`, `traceidratio`, `parentbased_always_on` (the default), `parentbased_always_off`,
 * `parentbased_traceidratio`, with `OTEL_TRACES_SAMPLER_ARG` the ratio (default 1; a value that
 * is not a number from 0 to 1 is 1). An unknown name is the default.
 */
export function samplerFromEnv(env: NodeJS.ProcessEnv = process.env): SamplerChoice {
  const name = (env.OTEL_TRACES_SAMPLER ?? '').trim().toLowerCase();
  const arg = Number(env.OTEL_TRACES_SAMPLER_ARG);
  const ratio =
    env.OTEL_TRACES_SAMPLER_ARG !== undefined &&
    env.OTEL_TRACES_SAMPLER_ARG.trim() !== '' &&
    arg >= 0 &&
    arg <= 1
      ? arg
      : 1;
  switch (name) {
    case 'always_on':
      return { kind: 'always_on', parentBased: false, ratio };
    case 'always_off':
      return { kind: 'always_off', parentBased: false, ratio };
    case 'traceidratio':
      return { kind: 'ratio', parentBased: false, ratio };
    case 'parentbased_always_off':
      return { kind: 'always_off', parentBased: true, ratio };
    case 'parentbased_traceidratio':
      return { kind: 'ratio', parentBased: true, ratio };
    default:
      return { kind: 'always_on', parentBased: true, ratio };
  }
}

/** The batch settings of the standard `OTEL_BSP_*` variables (the SDK's defaults otherwise). */
function batchOptions(env: NodeJS.ProcessEnv = process.env): Record<string, number> {
  const options: Record<string, number> = {};
  const read = (name: string, key: string) => {
    const value = Number(env[name]);
    if (env[name] !== undefined && env[name] !== '' && Number.isInteger(value) && value > 0)
      options[key] = value;
  };
  read('OTEL_BSP_SCHEDULE_DELAY', 'scheduledDelayMillis');
  read('OTEL_BSP_EXPORT_TIMEOUT', 'exportTimeoutMillis');
  read('OTEL_BSP_MAX_QUEUE_SIZE', 'maxQueueSize');
  read('OTEL_BSP_MAX_EXPORT_BATCH_SIZE', 'maxExportBatchSize');
  return options;
}

const metaGetter: TextMapGetter<Record<string, unknown>> = {
  keys: (carrier) => Object.keys(carrier),
  get: (carrier, key) => {
    const value = carrier[key];
    return typeof value === 'string' ? value : undefined;
  },
};

/**
 * The context a request continues: its `_meta` trace context when it carries one, else the
 * active context (which the HTTP server set from the request's `traceparent` header).
 */
export function requestContext(params: JsonRpcParams | undefined): Context {
  const { context, propagation, ROOT_CONTEXT } = otel();
  const meta = (params as { _meta?: unknown } | undefined)?._meta;
  if (
    typeof meta === 'object' &&
    meta !== null &&
    typeof (meta as Record<string, unknown>).traceparent === 'string'
  ) {
    return propagation.extract(ROOT_CONTEXT, meta as Record<string, unknown>, metaGetter);
  }
  return context.active();
}

/**
 * Runs `fn` in the trace an HTTP request's `traceparent`/`tracestate` headers carry (a request
 * whose `_meta` carries one continues that instead); just runs it while tracing is off.
 */
export function withHttpContext<T>(
  headers: Record<string, string | string[] | undefined>,
  fn: () => T,
): T {
  if (!active) return fn();
  const { context, propagation, ROOT_CONTEXT } = otel();
  return context.with(propagation.extract(ROOT_CONTEXT, headers), fn);
}

/**
 * `fn` bound to the trace context active now, so a callback a request schedules (the end of its
 * body) runs in the request's trace; `fn` itself while tracing is off.
 */
export function bindActiveContext<F extends (...args: never[]) => unknown>(fn: F): F {
  if (!active) return fn;
  const { context } = otel();
  return context.bind(context.active(), fn);
}

/**
 * Params with the active trace context in `_meta` (`traceparent`, `tracestate`), replacing any
 * the caller had — so the server's span is a child of this process's, not of whoever called it.
 * Unchanged when tracing is off or no span is active.
 */
export function withTraceContext<P extends JsonRpcParams | undefined>(params: P): P {
  if (!active || Array.isArray(params)) return params;
  const { context, propagation } = otel();
  const carrier: Record<string, string> = {};
  propagation.inject(context.active(), carrier);
  if (carrier.traceparent === undefined) return params;
  const own = (params as Record<string, unknown> | undefined)?._meta;
  const meta =
    typeof own === 'object' && own !== null ? { ...(own as Record<string, unknown>) } : {};
  delete meta.tracestate;
  return { ...(params as Record<string, unknown>), _meta: { ...meta, ...carrier } } as unknown as P;
}

/**
 * Trace every request `server` answers: a SERVER span named `<method>` (`tools/call <tool>` for
 * a registered tool), child of the caller's trace, with `rpc.*` and `mcp.*` attributes and an
 * error status for JSON-RPC errors; the handler runs inside it (the calls it makes continue the
 * trace). Returns the function that stops.
 */
export function traceServer(server: McpServer, tracerName = 'mcpkit'): () => void {
  const { context, SpanKind, SpanStatusCode, trace } = otel();
  const tracer = trace.getTracer(tracerName);
  const observer: McpObserver = {
    begin: (call) => {
      if (!active) return undefined;
      const parent = requestContext(call.params);
      const name = call.tool
        ? `${call.method} ${call.tool}`
        : call.known
          ? call.method
          : 'unknown method';
      const span = tracer.startSpan(
        name,
        {
          kind: SpanKind.SERVER,
          attributes: {
            'rpc.system': 'jsonrpc',
            'rpc.method': call.known ? call.method : 'other',
            'mcp.method.name': call.known ? call.method : 'other',
            'mcp.era': call.era,
            ...(call.tool ? { 'gen_ai.tool.name': call.tool } : {}),
            ...(call.extra.auth?.subject ? { 'enduser.id': call.extra.auth.subject } : {}),
          },
        },
        parent,
      );
      return { span, ctx: trace.setSpan(parent, span), call, named: call.tool !== undefined };
    },
    run: (token, fn) => {
      if (token === undefined) return fn();
      return context.with((token as { ctx: Context }).ctx, fn);
    },
    end: (token, outcome) => {
      if (token === undefined) return;
      const { span, call, named } = token as { span: Span; call: McpCall; named: boolean };
      // A tool registered while the call waited (a gateway's backends starting) names it now.
      if (!named && call.tool !== undefined) {
        span.updateName(`${call.method} ${call.tool}`);
        span.setAttribute('gen_ai.tool.name', call.tool);
      }
      if (outcome.status === 'error') {
        span.setAttribute('rpc.jsonrpc.error_code', outcome.code ?? 0);
        span.setStatus({ code: SpanStatusCode.ERROR });
      } else if (outcome.status === 'tool_error') {
        span.setAttribute('mcp.tool.is_error', true);
      } else if (outcome.status === 'none') {
        span.setAttribute('mcp.cancelled', true);
      }
      span.end();
    },
  };
  return server.observe(observer);
}
