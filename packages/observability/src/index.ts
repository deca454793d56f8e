// Metrics: Prometheus, served at /metrics by @mcpkit/node
export { DEFAULT_BUCKETS, McpMetrics, type McpMetricsOptions } from './metrics.js';
export {
  CounterSeries,
  HistogramSeries,
  LabelledCounter,
  LabelledHistogram,
  type SeriesOptions,
} from './series.js';
// Traces: OpenTelemetry, off unless the OTEL_* variables ask for them
export {
  bindActiveContext,
  type SamplerChoice,
  samplerFromEnv,
  startTracing,
  TRACE_META,
  type Tracing,
  type TracingOptions,
  traceServer,
  tracingActive,
  tracingRequested,
  withHttpContext,
  withTraceContext,
} from './tracing.js';
