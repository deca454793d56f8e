/**
 * The engine's HTTP server behind a bearer check, for the OAuth bench: `BENCH_AUTH=static` takes
 * one fixed token (`BENCH_TOKEN`), `BENCH_AUTH=oauth` the JWT access tokens of the authorization
 * server at `BENCH_ISSUER` for the audience `BENCH_AUDIENCE` — the same server otherwise.
 */
import { createMcpHttpServer, createOAuthResourceServer } from '@mcpkit/node';
import { engineServer } from './engine-tools.js';
import { announce } from './http-child.js';

const mode = process.env.BENCH_AUTH;
const auth =
  mode === 'oauth'
    ? {
        oauth: createOAuthResourceServer({
          issuer: process.env.BENCH_ISSUER as string,
          audience: process.env.BENCH_AUDIENCE as string,
        }),
      }
    : { tokens: [{ token: process.env.BENCH_TOKEN as string, subject: 'bench' }] };
const http = createMcpHttpServer(engineServer(), {
  host: '127.0.0.1',
  port: 0,
  streamablePath: '/mcp',
  streamable: { sessions: false },
  auth,
});
const { port } = await http.listen();
announce(port, () => http.close());
