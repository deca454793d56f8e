import type { FrameTransport } from '../jsonrpc/transport.js';
import type { JsonRpcId } from '../jsonrpc/types.js';
import type { HeaderParam } from '../mcp/tool.js';

/**
 * A channel from an MCP client to one server. Any {@link FrameTransport} will do (an in-memory
 * pair, a child's stdio); transports that carry protocol state of their own (Streamable HTTP:
 * session id, `MCP-Protocol-Version` header, a GET stream) implement the optional hooks, which
 * `McpClient` calls during the lifecycle.
 */
export interface ClientTransport extends FrameTransport {
  /**
   * Which binding's rules tell a server's era when `McpClient` probes it with `server/discover`
   * (`protocol: 'auto'`; MCP 2026-07-28 `basic/versioning` §Backward Compatibility). `'stdio'`
   * (the default): a server that does not answer within `probeTimeoutMs` is a 2025 one. `'http'`
   * (Streamable HTTP): every POST is answered — a 2025 server refuses the probe with a 4xx — so a
   * slow answer is only slow, and the probe waits for it as long as any request.
   */
  readonly eraDetection?: 'stdio' | 'http';
  /** The version initialize settled on (HTTP sends it as `MCP-Protocol-Version` from now on). */
  setProtocolVersion?(version: string): void;
  /**
   * The era the client speaks from now on: `'modern'` (MCP 2026-07-28 and later, with the
   * `version` every request declares) before its first modern request, `'legacy'` when it falls
   * back to initialize. HTTP: a modern request carries `MCP-Protocol-Version`, `Mcp-Method` and
   * `Mcp-Name` headers, no session, no GET stream, and is cancelled by aborting its POST.
   */
  setEra?(era: 'legacy' | 'modern', version?: string): void;
  /**
   * Called by the client on connect, on a transport that mirrors tool arguments into headers
   * (Streamable HTTP, MCP 2026-07-28 §Custom Headers from Tool Parameters): from then on a
   * modern `tools/call` carries an `Mcp-Param-<name>` header for each argument the tool declares
   * with `x-mcp-header`, as `lookup` gives the declarations (the client's from its last
   * `tools/list`). A transport with this hook is one whose client drops tools with invalid
   * declarations from `listTools()`; stdio has none and ignores the annotations, as it may.
   */
  mirrorToolHeaders?(lookup: (tool: string) => readonly HeaderParam[] | undefined): void;
  /** Resolves once every frame sent so far has reached the server (HTTP: its POST answered). */
  flush?(): Promise<void>;
  /** The session is initialized: open what the server may use to reach us (HTTP: GET stream). */
  opened?(): void;
  /**
   * Set by the client before `start`: fail one request with an error that is not a JSON-RPC
   * answer (an HTTP status, a stream that ended without the response).
   */
  onRequestError?: ((id: JsonRpcId, error: Error) => void) | undefined;
}
