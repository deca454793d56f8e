#!/usr/bin/env node
/**
 * `pnpm auth:dev` (dist/bin/auth-server.js): the test kit's authorization server (oidc-provider) as a program, for
 * trying an app's OAuth sign-in on one machine without an identity provider. It prints one JSON
 * line on stdout — the issuer, a client-credentials access token for `--resource` with
 * `--scope`, and the introspection client — then serves until Ctrl-C. Never for production: its
 * keys and grants live in memory and every sign-in is the account `alice`.
 */
import { parseArgs } from 'node:util';
import { startAuthorizationServer } from '../authorization-server.js';

const USAGE = `usage: pnpm auth:dev [--port 9400] [--scopes core,sensitive] [--opaque]
                        [--resource http://127.0.0.1:3000/mcp] [--scope "core sensitive"]`;

async function main(): Promise<number> {
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({
      options: {
        port: { type: 'string', default: '9400' },
        scopes: { type: 'string', default: 'core,sensitive' },
        opaque: { type: 'boolean', default: false },
        resource: { type: 'string', default: 'http://127.0.0.1:3000/mcp' },
        scope: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    }));
  } catch (err) {
    process.stderr.write(`auth:dev: ${(err as Error).message}\n${USAGE}\n`);
    return 2;
  }
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) {
    process.stderr.write(`auth:dev: --port ${String(values.port)} is not a port\n`);
    return 2;
  }
  const scopes = String(values.scopes).split(',').filter(Boolean);
  const as = await startAuthorizationServer(scopes, {
    port,
    accessTokenFormat: values.opaque ? 'opaque' : 'jwt',
  });
  const resource = String(values.resource);
  const token = await as.token(resource, (values.scope as string | undefined) ?? scopes.join(' '));
  process.stdout.write(
    `${JSON.stringify({ issuer: as.issuer, resource, token, introspector: as.introspector })}\n`,
  );
  process.stderr.write(
    `authorization server at ${as.issuer} (Ctrl-C to stop); a token for ${resource} is on stdout\n`,
  );
  const stop = () => {
    as.close().then(() => process.exit(0));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  return -1;
}

main().then(
  (code) => {
    if (code >= 0) process.exitCode = code;
  },
  (err: unknown) => {
    process.stderr.write(`auth:dev: ${(err as Error).message}\n`);
    process.exitCode = 1;
  },
);
