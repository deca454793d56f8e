/**
 * What an MCP client receives from a server (MCP 2025-11-25 `schema.ts`, the legacy-era shapes).
 * Fields a server may add beyond these are kept: every shape is open (`[key: string]: unknown`).
 */
import type { ContentBlock, Icon, Implementation, ToolAnnotations } from '../mcp/types.js';

/** Fields a server adds beyond the known ones are kept. */
type Open = { [key: string]: unknown };

/** What a server said about itself in its initialize result. */
export interface InitializeResult extends Open {
  /** The version the server settled on. */
  protocolVersion: string;
  /** What the server can do. */
  capabilities: ServerCapabilities;
  /** Who the server is. */
  serverInfo: Implementation;
  /** How a model should use the server, if it says. */
  instructions?: string;
}

/**
 * What a modern (MCP 2026-07-28) server says about itself in answer to `server/discover`: the
 * versions it speaks, what it can do, how to use it. Kept as it came, cache hints included.
 */
export interface DiscoverResult extends Open {
  /** The protocol versions the server speaks. */
  supportedVersions: string[];
  /** What the server can do. */
  capabilities: ServerCapabilities;
  /** How a model should use the server, if it says. */
  instructions?: string;
  /** `'complete'` (absent means the same). */
  resultType?: string;
  /** How long the result may be cached, in ms. */
  ttlMs?: number;
  /** Whom a cached copy may be shared with. */
  cacheScope?: 'public' | 'private';
  /** Result metadata; `io.modelcontextprotocol/serverInfo` says who the server is. */
  _meta?: Record<string, unknown>;
}

/** What a server said it can do in initialize: only declared features may be used. */
export interface ServerCapabilities extends Open {
  /** It serves tools; `listChanged` when it notifies changes. */
  tools?: { listChanged?: boolean };
  /** It serves resources; `subscribe` when updates can be subscribed to. */
  resources?: { subscribe?: boolean; listChanged?: boolean };
  /** It serves prompts; `listChanged` when it notifies changes. */
  prompts?: { listChanged?: boolean };
  /** It sends log messages (`logging/setLevel`). */
  logging?: Record<string, unknown>;
  /** It answers `completion/complete`. */
  completions?: Record<string, unknown>;
  /** Non-standard capabilities, by name. */
  experimental?: Record<string, unknown>;
}

/** One entry of `tools/list`. */
export interface ToolInfo extends Open {
  /** The name to call it by. */
  name: string;
  /** Display name. */
  title?: string;
  /** What it does, for the model. */
  description?: string;
  /** JSON Schema of its arguments. */
  inputSchema: { type: 'object'; [key: string]: unknown };
  /** JSON Schema of its `structuredContent`, if declared. */
  outputSchema?: { type: 'object'; [key: string]: unknown };
  /** Behaviour hints (read-only, destructive …). */
  annotations?: ToolAnnotations;
  /** Icons to show. */
  icons?: Icon[];
  /** Free-form metadata. */
  _meta?: Record<string, unknown>;
}

/** One entry of `resources/list`. */
export interface ResourceInfo extends Open {
  /** The URI to read it by. */
  uri: string;
  /** Programmatic name. */
  name: string;
  /** Display name. */
  title?: string;
  /** What it holds. */
  description?: string;
  /** The MIME type of its contents. */
  mimeType?: string;
  /** Its size in bytes, if known. */
  size?: number;
  /** Free-form metadata. */
  _meta?: Record<string, unknown>;
}

/** One entry of `resources/templates/list`. */
export interface ResourceTemplateInfo extends Open {
  /** The RFC 6570 template of its URIs. */
  uriTemplate: string;
  /** Programmatic name. */
  name: string;
  /** Display name. */
  title?: string;
  /** What its resources hold. */
  description?: string;
  /** The MIME type of their contents. */
  mimeType?: string;
  /** Free-form metadata. */
  _meta?: Record<string, unknown>;
}

/** One entry of `prompts/list`. */
export interface PromptInfo extends Open {
  /** The name to get it by. */
  name: string;
  /** Display name. */
  title?: string;
  /** What it is for. */
  description?: string;
  /** The arguments it takes (all strings). */
  arguments?: { name: string; description?: string; required?: boolean }[];
  /** Free-form metadata. */
  _meta?: Record<string, unknown>;
}

/** The result of `completion/complete`. */
export interface CompleteResult extends Open {
  /** Suggested values (at most 100), how many there are in all, and whether more exist. */
  completion: { values: string[]; total?: number; hasMore?: boolean };
}

/** What `completion/complete` completes: an argument of a prompt or of a resource template. */
export type CompletionRef =
  | { type: 'ref/prompt'; name: string }
  | { type: 'ref/resource'; uri: string };

/** One root the client exposes to the server (`roots/list`). */
export interface Root {
  /** A `file://` URI. */
  uri: string;
  /** Display name. */
  name?: string;
}

/** `sampling/createMessage` params as a server sends them. */
export interface CreateMessageRequest extends Open {
  /** The conversation to continue. */
  messages: { role: 'user' | 'assistant'; content: ContentBlock }[];
  /** The most tokens to generate. */
  maxTokens: number;
  /** A system prompt the server asks for. */
  systemPrompt?: string;
}

/** `elicitation/create` params as a server sends them (form or URL mode). */
export interface ElicitRequest extends Open {
  /** What to ask the user. */
  message: string;
  /** A form (default) or a URL to open. */
  mode?: 'form' | 'url';
  /** Form mode: the JSON Schema of the answer (flat, primitive fields). */
  requestedSchema?: Record<string, unknown>;
  /** URL mode: where to send the user. */
  url?: string;
}

/** `notifications/progress` params. */
export interface Progress {
  /** The token of the request this is about. */
  progressToken: string | number;
  /** How far along; increases with every notification. */
  progress: number;
  /** The total, when known. */
  total?: number;
  /** What is happening now. */
  message?: string;
}

/** `notifications/message` params. */
export interface LogMessage {
  /** Its MCP log level. */
  level: string;
  /** Which part of the server logged it. */
  logger?: string;
  /** Anything JSON: a string or an object. */
  data: unknown;
}

/**
 * What a `subscriptions/listen` asks to hear about (MCP 2026-07-28,
 * `basic/patterns/subscriptions`), and what the server acknowledged it honours.
 */
export interface ListenFilter {
  /** `notifications/tools/list_changed`. */
  toolsListChanged?: boolean;
  /** `notifications/prompts/list_changed`. */
  promptsListChanged?: boolean;
  /** `notifications/resources/list_changed`. */
  resourcesListChanged?: boolean;
  /** `notifications/resources/updated` for these URIs. */
  resourceSubscriptions?: string[];
}

/**
 * A task of the MCP tasks extension (`io.modelcontextprotocol/tasks`) as `tasks/get` tells it:
 * flat, its outcome inlined once it has one.
 */
export interface TaskInfo extends Open {
  /** The task's id. */
  taskId: string;
  /** `working`, `input_required`, `completed`, `failed` or `cancelled`. */
  status: 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled';
  /** What it is doing now, for people. */
  statusMessage?: string;
  /** ISO 8601. */
  createdAt: string;
  /** ISO 8601. */
  lastUpdatedAt: string;
  /** How long after its creation the server keeps it, ms; null: no limit. */
  ttlMs: number | null;
  /** How often to ask, ms. */
  pollIntervalMs?: number;
  /** The tool's result, once `completed`. */
  result?: Record<string, unknown>;
  /** The error, once `failed`. */
  error?: { code: number; message: string; data?: unknown };
  /** What it waits for, while `input_required`: requests by key. */
  inputRequests?: Record<string, { method: string; params?: Record<string, unknown> }>;
}
