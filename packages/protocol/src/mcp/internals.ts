import type { EngineLogger } from '../jsonrpc/dispatcher.js';
import type { RpcError } from '../jsonrpc/errors.js';
import type { McpCallExtra, McpContext } from './context.js';
import type { ArgumentIssue } from './json-schema.js';
import type { Prompt } from './prompt.js';
import type { Resource, ResourceTemplate } from './resource.js';
import type { ScopeDeniedBy } from './server.js';
import type { AuthInfo } from './session.js';
import type { TaskRunner } from './tasks/runner.js';
import type { Tool } from './tool.js';
import type { Implementation } from './types.js';

/**
 * What the MCP method handlers (`handlers/*.ts`) see of their server: its registries read-only,
 * its options with defaults applied, and the lookups they share. McpServer builds it once and
 * passes it to each handler factory; it is not part of the package's API.
 */
export interface ServerInternals {
  readonly info: Implementation;
  readonly instructions: string | undefined;
  readonly pageSize: number;
  readonly logger: EngineLogger | undefined;
  readonly tools: ReadonlyMap<string, Tool>;
  readonly resources: ReadonlyMap<string, Resource>;
  readonly templates: readonly ResourceTemplate[];
  readonly prompts: ReadonlyMap<string, Prompt>;
  /** `errors.scopeDenied`, or the MCP default. */
  readonly scopeError: (tool: string, scope: string, deniedBy: ScopeDeniedBy) => RpcError;
  /** `errors.resourceNotFound`, or the MCP default. */
  readonly resourceNotFound: (uri: string) => RpcError;
  /** `errors.unknownTool`, or the MCP default. */
  readonly unknownToolError: (name: string) => RpcError;
  /** `errors.invalidArguments`: undefined keeps the MCP default (an `isError` result). */
  readonly argumentError:
    | ((tool: string, issues: ArgumentIssue[]) => RpcError | undefined)
    | undefined;
  readonly onSubscribe: ((uri: string, ctx: McpContext) => void | Promise<void>) | undefined;
  readonly listPermittedToolsOnly: boolean;
  /** `McpServerOptions.listFilter`. */
  readonly listFilter: ((tool: Tool, auth: AuthInfo | undefined) => boolean) | undefined;
  /**
   * What lists and tool calls wait for first (see `McpServer.holdLists`); undefined
   * once nothing is held — the usual case, answered without a wait.
   */
  held(): Promise<unknown> | undefined;
  /** The tasks of this server (made on first use). */
  tasks(): TaskRunner;
  /** Capabilities derived from what is registered. */
  capabilities(): Record<string, unknown>;
  /** The tool registered under `name`, or under the name its alias resolves to. */
  findTool(name: string): Tool | undefined;
  /** The first required scope of `tool` (or a resource, template, prompt) the call lacks, if any. */
  missingScope(
    tool: Scoped,
    extra: McpCallExtra,
  ): { scope: string; deniedBy: ScopeDeniedBy } | undefined;
  /**
   * Whether the caller may see and use the resource at `uri` (its resource's or matching
   * template's scopes); true for a URI no resource or template claims.
   */
  resourceAllowed(uri: string, extra: McpCallExtra): boolean;
}

/** Anything that may require scopes of its caller. */
export interface Scoped {
  readonly requiredScopes?: readonly string[] | undefined;
}
