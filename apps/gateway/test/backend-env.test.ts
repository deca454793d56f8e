// @module-tag process
/**
 * What a stdio backend sees of the gateway's environment: by default a minimal safe set plus its
 * own `env`; with `inheritEnv` everything — but never the gateway's own settings, so a gateway run
 * as `MCP_TRANSPORT=http MCP_PORT=…` still starts its backends as stdio servers and its token
 * never reaches a third party. The backend is the real server-everything, asked with `get-env`.
 */
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { COMMON_OPTIONS } from '@mcpkit/node';
import { connectClient } from '@mcpkit/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { backendEnv } from '../src/backends/link.js';
import { GATEWAY_VARIABLES } from '../src/backends/spawn.js';
import { parseConfig } from '../src/config.js';
import { EventLog } from '../src/events.js';
import { Gateway } from '../src/gateway.js';
import { GATEWAY_OPTIONS } from '../src/options.js';

const EVERYTHING = join(
  resolve(dirname(fileURLToPath(import.meta.url)), '..'),
  'node_modules',
  '@modelcontextprotocol',
  'server-everything',
  'dist',
  'index.js',
);

/** The gateway's own settings and a secret, as a service manager would set them. */
const GATEWAY_ENV = {
  MCP_TRANSPORT: 'http',
  MCP_PORT: '3009',
  MCP_GATEWAY_TOKEN: 'gateway-secret-token-1234567890',
  AWS_SECRET_ACCESS_KEY: 'aws-secret',
};

const stops: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const stop of stops.splice(0)) await stop();
  for (const key of Object.keys(GATEWAY_ENV)) delete process.env[key];
});

/** The environment server-everything reports, started by a gateway whose own env is GATEWAY_ENV. */
async function backendSees(backend: Record<string, unknown>): Promise<Record<string, string>> {
  Object.assign(process.env, GATEWAY_ENV);
  const gateway = new Gateway(
    parseConfig({
      mcpServers: {
        every: { command: process.execPath, args: [EVERYTHING, 'stdio'], ...backend },
      },
    }),
    { events: EventLog.open(':memory:') },
  );
  await gateway.start();
  const client = await connectClient(gateway.server);
  stops.push(async () => {
    await client.close();
    await gateway.stop();
  });
  // A stdio backend that took MCP_TRANSPORT=http would not be running (or would be on a port).
  expect(gateway.backends.get('every')?.state).toBe('running');
  const result = await client.callTool('every__get-env');
  const text = result.content.map((c) => (c.type === 'text' ? c.text : '')).join('');
  return JSON.parse(text) as Record<string, string>;
}

describe("a stdio backend's environment", () => {
  it('is a minimal safe set plus its own env by default: no secrets, no gateway settings', async () => {
    const env = await backendSees({ env: { ONLY_THIS: '1' } });
    expect(env.ONLY_THIS).toBe('1');
    expect(env.PATH).toBe(process.env.PATH);
    for (const key of Object.keys(GATEWAY_ENV)) expect(env[key]).toBeUndefined();
  });

  it('with inheritEnv is the whole environment — minus the gateway settings and token', async () => {
    const env = await backendSees({ env: { ONLY_THIS: '1' }, inheritEnv: true });
    expect(env.ONLY_THIS).toBe('1');
    expect(env.AWS_SECRET_ACCESS_KEY).toBe('aws-secret');
    expect(env.MCP_TRANSPORT).toBeUndefined();
    expect(env.MCP_PORT).toBeUndefined();
    expect(env.MCP_GATEWAY_TOKEN).toBeUndefined();
  });

  it("passes what the user configured on purpose, even under a gateway setting's name", () => {
    expect(backendEnv({ LOG_LEVEL: 'debug' }, true, { LOG_LEVEL: 'warn', A: '1' })).toEqual({
      A: '1',
      LOG_LEVEL: 'debug',
    });
    expect(backendEnv({}, false, { A: '1' })).toEqual({});
  });

  it('keeps every gateway secret from an inheritEnv backend: the metrics token, Redis URL, OTLP headers', () => {
    const secrets = {
      MCP_METRICS_TOKEN: 'metrics-secret',
      MCP_METRICS_TOKEN_FILE: '/run/secrets/metrics',
      MCP_GATEWAY_TOKEN_FILE: '/run/secrets/gateway',
      MCP_REDIS_URL: 'redis://:password@redis:6379',
      OTEL_EXPORTER_OTLP_HEADERS: 'authorization=Bearer otlp-secret',
      OTEL_EXPORTER_OTLP_TRACES_HEADERS: 'x-api-key=otlp-secret',
      HOME: '/home/ops',
    };
    expect(backendEnv({}, true, secrets)).toEqual({ HOME: '/home/ops' });
  });

  it('names every flag variable of runCli and the gateway as a gateway setting', () => {
    for (const option of [...COMMON_OPTIONS, ...GATEWAY_OPTIONS]) {
      if (option.env) expect(GATEWAY_VARIABLES, option.name).toContain(option.env);
    }
  });
});
