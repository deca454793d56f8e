/**
 * The CommonJS dependencies only some processes use, loaded on first use instead of when the
 * package is imported: pino (the process's own log, which runCli creates), prom-client (/metrics),
 * the OpenTelemetry API (traces, off unless `OTEL_*` ask) and rate-limiter-flexible (HTTP rate
 * limits, fleet stores). Together they were ~50 ms of every import of `@mcpkit/protocol` — a third
 * of a plain stdio server's start, which uses none of them.
 *
 * `require` of a CommonJS package returns the very module an `import` of it gets (Node keeps one
 * cache for both, and these packages resolve to the same file either way), so an app that imports
 * one of them itself shares its classes and globals with this package as before.
 */
import { createRequire } from 'node:module';

type OpenTelemetryApi = typeof import('@opentelemetry/api');
type Pino = typeof import('pino');
type PromClient = typeof import('prom-client');
type RateLimiterFlexible = typeof import('rate-limiter-flexible');

const require = createRequire(import.meta.url);

let otelApi: OpenTelemetryApi | undefined;
let pinoModule: Pino | undefined;
let promClientModule: PromClient | undefined;
let rateLimiterModule: RateLimiterFlexible | undefined;

/** `@opentelemetry/api`. */
export function otel(): OpenTelemetryApi {
  otelApi ??= require('@opentelemetry/api') as OpenTelemetryApi;
  return otelApi;
}

/** `pino`. */
export function pino(): Pino {
  pinoModule ??= require('pino') as Pino;
  return pinoModule;
}

/** `prom-client`. */
export function promClient(): PromClient {
  promClientModule ??= require('prom-client') as PromClient;
  return promClientModule;
}

/** `rate-limiter-flexible`. */
export function rateLimiters(): RateLimiterFlexible {
  rateLimiterModule ??= require('rate-limiter-flexible') as RateLimiterFlexible;
  return rateLimiterModule;
}
