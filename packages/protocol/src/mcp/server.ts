import { Dispatcher, type EngineLogger } from '../jsonrpc/dispatcher.js';
import { RpcError } from '../jsonrpc/errors.js';
import type { MethodDefinition } from '../jsonrpc/method.js';
import type { JsonRpcParams } from '../jsonrpc/types.js';
import type { McpCallExtra, McpContext } from './context.js';
import { completionMethods } from './handlers/completion.js';
import { lifecycleMethods } from './handlers/lifecycle.js';
import { promptMethods } from './handlers/prompts.js';
import { resourceMethods } from './handlers/resources.js';
import { toolMethods } from './handlers/tools.js';
import type { Prompt } from './prompt.js';
import type { Resource, ResourceTemplate } from './resource.js';
import { McpSession, type OutboundChannel } from './session.js';
import type { Tool } from './tool.js';
import type { Icon, Implementation } from './types.js';

export interface McpServerOptions {
  name: string;
  version: string;
  title?: string;
  description?: string;
  websiteUrl?: string;
  icons?: Icon[];
  /** Sent in the initialize result: how a model should use this server. */
  instructions?: string;
  /** Items per page of every list. Default 100. */
  pageSize?: number;
  /**
   * Scopes this server enables. A caller's scopes (from its token) are intersected with them:
   * a token can hold fewer, never more. Undefined: no server-wide restriction.
   */
  scopes?: Iterable<string>;
  /** The error for a tool whose scope the caller lacks. */
  scopeError?: (tool: string, scope: string) => RpcError;
  /** The error for `resources/read` of an unknown URI. Default -32002 "Resource not found". */
  resourceNotFound?: (uri: string) => RpcError;
  /**
   * The JSON-RPC error for tool arguments that fail their schema. Default: none — the failure
   * is a tool result with `isError: true` (MCP 2025-11-25), which the model can read and fix.
   */
  argumentError?: (
    tool: string,
    issues: { path: string; message: string }[],
  ) => RpcError | undefined;
  /** Another name a tool may be called by (a gateway's `ns:tool`); return the registered name. */
  toolAlias?: (name: string) => string | undefined;
  /**
   * Told when a client subscribes to a resource: throw (an RpcError) to refuse the subscription
   * (the caller may not read it); a gateway subscribes upstream here.
   */
  onSubscribe?: (uri: string, ctx: McpContext) => void | Promise<void>;
  /** The error for tools/call of an unknown tool. Default -32602 "Unknown tool: <name>". */
  unknownToolError?: (name: string) => RpcError;
  /** `tools/list` shows only the tools the caller may call. Default false: all are listed. */
  listPermittedToolsOnly?: boolean;
  logger?: EngineLogger;
}

const defaultScopeError = (tool: string, scope: string) =>
  new RpcError(-32600, `Tool '${tool}' requires scope '${scope}' which is not granted`, {
    tool,
    scope,
  });
const defaultResourceNotFound = (uri: string) =>
  new RpcError(-32002, 'Resource not found', { uri });

/**
 * The MCP server core: registries of tools, resources and prompts, the sessions of connected
 * clients, and one dispatcher that answers every MCP method. Transports hand it frames with a
 * session attached; the server itself is created once and shared by all of them.
 */
export class McpServer {
  readonly info: Implementation;
  readonly instructions: string | undefined;
  readonly pageSize: number;
  readonly logger: EngineLogger | undefined;
  readonly scopeError: (tool: string, scope: string) => RpcError;
  readonly resourceNotFound: (uri: string) => RpcError;
  readonly listPermittedToolsOnly: boolean;
  readonly argumentError: McpServerOptions['argumentError'];
  readonly toolAlias: McpServerOptions['toolAlias'];
  readonly onSubscribe: McpServerOptions['onSubscribe'];
  readonly unknownToolError: (name: string) => RpcError;
  readonly #scopes: ReadonlySet<string> | undefined;
  readonly tools = new Map<string, Tool>();
  readonly resources = new Map<string, Resource>();
  readonly templates: ResourceTemplate[] = [];
  readonly prompts = new Map<string, Prompt>();
  readonly sessions = new Set<McpSession>();
  readonly dispatcher: Dispatcher<McpCallExtra>;

  constructor(options: McpServerOptions) {
    const info: Implementation = { name: options.name, version: options.version };
    if (options.title) info.title = options.title;
    if (options.description) info.description = options.description;
    if (options.websiteUrl) info.websiteUrl = options.websiteUrl;
    if (options.icons) info.icons = options.icons;
    this.info = info;
    this.instructions = options.instructions;
    this.pageSize = options.pageSize ?? 100;
    this.logger = options.logger;
    this.scopeError = options.scopeError ?? defaultScopeError;
    this.resourceNotFound = options.resourceNotFound ?? defaultResourceNotFound;
    this.listPermittedToolsOnly = options.listPermittedToolsOnly ?? false;
    this.argumentError = options.argumentError;
    this.toolAlias = options.toolAlias;
    this.onSubscribe = options.onSubscribe;
    this.unknownToolError =
      options.unknownToolError ??
      ((name) => new RpcError(-32602, `Unknown tool: ${name}`, { tool: name }));
    this.#scopes = options.scopes ? new Set(options.scopes) : undefined;
    this.dispatcher = new Dispatcher<McpCallExtra>(
      options.logger ? { logger: options.logger } : {},
    );
    this.dispatcher.register(
      ...lifecycleMethods(this),
      ...toolMethods(this),
      ...resourceMethods(this),
      ...promptMethods(this),
      ...completionMethods(this),
    );
  }

  /** Add JSON-RPC methods of your own beside the MCP ones. */
  addMethods(...methods: MethodDefinition<McpCallExtra>[]): this {
    this.dispatcher.register(...methods);
    return this;
  }

  addTool(...tools: Tool[]): this {
    for (const tool of tools) {
      if (this.tools.has(tool.name)) throw new Error(`tool '${tool.name}' is already registered`);
      this.tools.set(tool.name, tool);
    }
    this.#listChanged('tools');
    return this;
  }

  /** The tool registered under `name`, or under the name its alias resolves to. */
  findTool(name: string): Tool | undefined {
    const tool = this.tools.get(name);
    if (tool || !this.toolAlias) return tool;
    const target = this.toolAlias(name);
    return target === undefined ? undefined : this.tools.get(target);
  }

  removeTool(name: string): boolean {
    const removed = this.tools.delete(name);
    if (removed) this.#listChanged('tools');
    return removed;
  }

  addResource(...resources: Resource[]): this {
    for (const resource of resources) {
      if (this.resources.has(resource.uri))
        throw new Error(`resource '${resource.uri}' is already registered`);
      this.resources.set(resource.uri, resource);
    }
    this.#listChanged('resources');
    return this;
  }

  removeResource(uri: string): boolean {
    const removed = this.resources.delete(uri);
    if (removed) this.#listChanged('resources');
    return removed;
  }

  removeResourceTemplate(uriTemplate: string): boolean {
    const index = this.templates.findIndex((t) => t.template.template === uriTemplate);
    if (index === -1) return false;
    this.templates.splice(index, 1);
    this.#listChanged('resources');
    return true;
  }

  addResourceTemplate(...templates: ResourceTemplate[]): this {
    this.templates.push(...templates);
    this.#listChanged('resources');
    return this;
  }

  addPrompt(...prompts: Prompt[]): this {
    for (const prompt of prompts) {
      if (this.prompts.has(prompt.name))
        throw new Error(`prompt '${prompt.name}' is already registered`);
      this.prompts.set(prompt.name, prompt);
    }
    this.#listChanged('prompts');
    return this;
  }

  removePrompt(name: string): boolean {
    const removed = this.prompts.delete(name);
    if (removed) this.#listChanged('prompts');
    return removed;
  }

  /** Capabilities derived from what is registered. */
  capabilities(): Record<string, unknown> {
    const caps: Record<string, unknown> = { logging: {} };
    caps.tools = { listChanged: true };
    if (this.resources.size > 0 || this.templates.length > 0)
      caps.resources = { subscribe: true, listChanged: true };
    if (this.prompts.size > 0) caps.prompts = { listChanged: true };
    const completable =
      this.templates.some((t) => Object.keys(t.complete).length > 0) ||
      [...this.prompts.values()].some((p) => Object.keys(p.complete).length > 0);
    if (completable) caps.completions = {};
    return caps;
  }

  /** The scopes a call may use, or undefined when nothing restricts it. */
  grantedScopes(extra: McpCallExtra): ReadonlySet<string> | undefined {
    const server = this.#scopes;
    const caller = extra.auth?.scopes;
    if (!caller) return server;
    if (!server) return caller;
    return new Set([...caller].filter((s) => server.has(s)));
  }

  /** The first required scope of `tool` the call lacks, if any. */
  missingScope(tool: Tool, extra: McpCallExtra): string | undefined {
    if (tool.requiredScopes.length === 0) return undefined;
    const granted = this.grantedScopes(extra);
    if (!granted) return undefined;
    return tool.requiredScopes.find((s) => !granted.has(s));
  }

  openSession(channel?: OutboundChannel): McpSession {
    const session = new McpSession(channel);
    this.sessions.add(session);
    return session;
  }

  closeSession(session: McpSession): void {
    session.closed = true;
    session.cancellation.abortAll(() => new Error('session closed'));
    this.sessions.delete(session);
  }

  /**
   * Tell the clients subscribed to `uri` that it changed — only those `audience` accepts, when
   * the same URI means different data to different callers (a user's own project list).
   */
  resourceUpdated(uri: string, audience?: (session: McpSession) => boolean): number {
    let told = 0;
    for (const session of this.sessions) {
      if (session.subscriptions.has(uri) && session.channel && (!audience || audience(session))) {
        this.#send(session, 'notifications/resources/updated', { uri });
        told++;
      }
    }
    return told;
  }

  #listChanged(kind: 'tools' | 'resources' | 'prompts'): void {
    for (const session of this.sessions) {
      if (session.initialized && session.channel)
        this.#send(session, `notifications/${kind}/list_changed`);
    }
  }

  #send(session: McpSession, method: string, params?: JsonRpcParams): void {
    try {
      session.channel?.notify(method, params);
    } catch (err) {
      this.logger?.debug({ err, method }, 'notification to a closed session dropped');
    }
  }
}
