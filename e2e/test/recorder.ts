/**
 * A real HTTP MCP server that records which credential each call came with: every bearer token
 * is accepted, and its one tool, `whoami`, answers with the token itself (its subject) — so a
 * test sees whose credential a gateway sent, call by call.
 */
import { type ServedHttp, serveHttp } from '@mcpkit/node';
import { defineTool, McpServer } from '@mcpkit/protocol';

/** The server and the `Authorization` header of every request it got, in order. */
export interface Recorder {
  backend: ServedHttp;
  seen: string[];
}

/** Start one on 127.0.0.1 (close it with `backend.close()`). */
export async function startRecorder(): Promise<Recorder> {
  const seen: string[] = [];
  const backend = await serveHttp(
    new McpServer({ name: 'recorder', version: '1' }).addTool(
      defineTool({
        name: 'whoami',
        description: 'The bearer token this call came with',
        handler: (_args, ctx) => ctx.auth?.subject ?? 'nobody',
      }),
    ),
    { auth: { authenticate: (token) => ({ subject: token, scopes: new Set() }) } },
  );
  backend.http.server.prependListener('request', (req) => {
    seen.push(String(req.headers.authorization ?? ''));
  });
  return { backend, seen };
}
