import { describe, expect, it } from 'vitest';
import { samplerFromEnv, tracingActive, tracingRequested, withTraceContext } from './tracing.js';

describe('tracingRequested', () => {
  it('is off by default and on for the standard OTEL_* variables', () => {
    expect(tracingRequested({})).toBe(false);
    expect(tracingRequested({ OTEL_SERVICE_NAME: 'x' })).toBe(false);
    expect(tracingRequested({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' })).toBe(true);
    expect(tracingRequested({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://c/v1/traces' })).toBe(
      true,
    );
    expect(tracingRequested({ OTEL_TRACES_EXPORTER: 'otlp' })).toBe(true);
    expect(tracingRequested({ OTEL_TRACES_EXPORTER: 'console, OTLP' })).toBe(true);
    expect(tracingRequested({ OTEL_EXPORTER_OTLP_ENDPOINT: '  ' })).toBe(false);
  });

  it('stays off when the SDK is disabled or the exporter is none', () => {
    const endpoint = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' };
    expect(tracingRequested({ ...endpoint, OTEL_SDK_DISABLED: 'true' })).toBe(false);
    expect(tracingRequested({ ...endpoint, OTEL_SDK_DISABLED: 'TRUE ' })).toBe(false);
    expect(tracingRequested({ ...endpoint, OTEL_SDK_DISABLED: 'false' })).toBe(true);
    expect(tracingRequested({ ...endpoint, OTEL_TRACES_EXPORTER: 'none' })).toBe(false);
  });
});

describe('withTraceContext', () => {
  it('leaves params alone while tracing is off (the same object: nothing copied)', () => {
    expect(tracingActive()).toBe(false);
    const params = { name: 'x', _meta: { traceparent: 'from-the-caller' } };
    expect(withTraceContext(params)).toBe(params);
    expect(withTraceContext(undefined)).toBeUndefined();
  });
});

describe('samplerFromEnv', () => {
  it('reads the standard sampler variables, parent-based always-on by default', () => {
    expect(samplerFromEnv({})).toEqual({ kind: 'always_on', parentBased: true, ratio: 1 });
    expect(samplerFromEnv({ OTEL_TRACES_SAMPLER: 'always_off' })).toMatchObject({
      kind: 'always_off',
      parentBased: false,
    });
    expect(
      samplerFromEnv({
        OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
        OTEL_TRACES_SAMPLER_ARG: '0.1',
      }),
    ).toEqual({ kind: 'ratio', parentBased: true, ratio: 0.1 });
    expect(
      samplerFromEnv({ OTEL_TRACES_SAMPLER: 'TraceIdRatio', OTEL_TRACES_SAMPLER_ARG: '0' }),
    ).toEqual({
      kind: 'ratio',
      parentBased: false,
      ratio: 0,
    });
  });

  it('falls back to the defaults for what it cannot read', () => {
    expect(samplerFromEnv({ OTEL_TRACES_SAMPLER: 'jaeger_remote' })).toEqual({
      kind: 'always_on',
      parentBased: true,
      ratio: 1,
    });
    for (const arg of ['2', '-0.5', 'half', ' ']) {
      expect(
        samplerFromEnv({ OTEL_TRACES_SAMPLER: 'traceidratio', OTEL_TRACES_SAMPLER_ARG: arg }).ratio,
      ).toBe(1);
    }
  });
});
