/**
 * The stdio client transport alone: what a launcher needs to spawn its MCP servers before it
 * loads the rest of the engine (zod, the schemas, the server and client halves). The gateway's
 * cold start spawns its backends through this entry point, then loads the gateway
 * (apps/gateway/src/prestart.ts). The classes are the main entry point's own, not copies.
 *
 * @packageDocumentation
 */

export {
  defaultServerEnv,
  type ProcessExit,
  type StdioClientOptions,
  StdioClientTransport,
} from './client/stdio.js';
export type { ClientTransport } from './client/transport.js';
export type { FrameSink, FrameTransport } from './jsonrpc/transport.js';
export type { JsonRpcId } from './jsonrpc/types.js';
export type { HeaderParam } from './mcp/tool.js';
