// The MCP shapes the server core produces and consumes (legacy era, 2024-11-05 … 2025-11-25).

/** An MCP log level (the RFC 5424 severities) of `logging/setLevel` and `notifications/message`. */
export type LoggingLevel =
  | 'debug'
  | 'info'
  | 'notice'
  | 'warning'
  | 'error'
  | 'critical'
  | 'alert'
  | 'emergency';
/** The MCP log levels (`logging/setLevel`, `notifications/message`), least severe first. */
export const MCP_LOGGING_LEVELS: readonly LoggingLevel[] = [
  'debug',
  'info',
  'notice',
  'warning',
  'error',
  'critical',
  'alert',
  'emergency',
];

/** An icon a client may show for a server, tool, resource or prompt (MCP 2025-11-25). */
export interface Icon {
  /** An `https:` or `data:` URI of the image. */
  src: string;
  /** Its MIME type, e.g. `image/png`, when the URI does not say. */
  mimeType?: string;
  /** The sizes it fits, e.g. `['48x48']` or `['any']` for a scalable image. */
  sizes?: string[];
  /** The background it is made for. */
  theme?: 'light' | 'dark';
}

/** Who a server or client is: `serverInfo` / `clientInfo` in `initialize`. */
export interface Implementation {
  /** Programmatic name, e.g. `system-info`. */
  name: string;
  /** Its version (of the implementation, not of the protocol). */
  version: string;
  /** Display name for people. */
  title?: string;
  /** One or two sentences about it. */
  description?: string;
  /** Where to read more about it. */
  websiteUrl?: string;
  /** Icons a client may show for it. */
  icons?: Icon[];
}

/** What a client said it can do in `initialize`: the server may send only what is declared. */
export interface ClientCapabilities {
  /** The client runs `sampling/createMessage` for the server. */
  sampling?: Record<string, unknown>;
  /** The client answers `elicitation/create` (asks its user). */
  elicitation?: Record<string, unknown>;
  /** The client answers `roots/list`; `listChanged` when it notifies changes. */
  roots?: { listChanged?: boolean };
  /** Non-standard capabilities, by name. */
  experimental?: Record<string, unknown>;
  /** Capabilities of newer protocol versions, kept as sent. */
  [key: string]: unknown;
}

/** Hints for the client about a content block or resource: who it is for, how much it matters. */
export interface Annotations {
  /** Who the content is meant for: the user, the model, or both. */
  audience?: ('user' | 'assistant')[];
  /** 0 (optional) … 1 (required) importance. */
  priority?: number;
  /** When it last changed, ISO 8601. */
  lastModified?: string;
}

/** A text content block. */
export interface TextContent {
  /** Always `'text'`. */
  type: 'text';
  /** The text. */
  text: string;
  /** Audience and priority hints. */
  annotations?: Annotations;
  /** Free-form metadata. */
  _meta?: Record<string, unknown>;
}
/** An image content block, base64-encoded. */
export interface ImageContent {
  /** Always `'image'`. */
  type: 'image';
  /** The image bytes, base64. */
  data: string;
  /** E.g. `image/png`. */
  mimeType: string;
  /** Audience and priority hints. */
  annotations?: Annotations;
  /** Free-form metadata. */
  _meta?: Record<string, unknown>;
}
/** An audio content block, base64-encoded. */
export interface AudioContent {
  /** Always `'audio'`. */
  type: 'audio';
  /** The audio bytes, base64. */
  data: string;
  /** E.g. `audio/wav`. */
  mimeType: string;
  /** Audience and priority hints. */
  annotations?: Annotations;
  /** Free-form metadata. */
  _meta?: Record<string, unknown>;
}
/** The contents of a text resource (`resources/read`). */
export interface TextResourceContents {
  /** The resource's URI. */
  uri: string;
  /** E.g. `application/json`. */
  mimeType?: string;
  /** The text. */
  text: string;
  /** Free-form metadata. */
  _meta?: Record<string, unknown>;
}
/** The contents of a binary resource (`resources/read`), base64-encoded. */
export interface BlobResourceContents {
  /** The resource's URI. */
  uri: string;
  /** E.g. `image/png`. */
  mimeType?: string;
  /** The bytes, base64. */
  blob: string;
  /** Free-form metadata. */
  _meta?: Record<string, unknown>;
}
/** One item of a `resources/read` result: text or binary. */
export type ResourceContents = TextResourceContents | BlobResourceContents;
/** A resource's contents inside a tool result or prompt message. */
export interface EmbeddedResource {
  /** Always `'resource'`. */
  type: 'resource';
  /** The contents. */
  resource: ResourceContents;
  /** Audience and priority hints. */
  annotations?: Annotations;
  /** Free-form metadata. */
  _meta?: Record<string, unknown>;
}
/** A link to a resource the client can read with `resources/read`, instead of its contents. */
export interface ResourceLink {
  /** Always `'resource_link'`. */
  type: 'resource_link';
  /** The resource's URI. */
  uri: string;
  /** Programmatic name. */
  name: string;
  /** Display name. */
  title?: string;
  /** What it is. */
  description?: string;
  /** E.g. `text/markdown`. */
  mimeType?: string;
  /** Audience and priority hints. */
  annotations?: Annotations;
  /** Free-form metadata. */
  _meta?: Record<string, unknown>;
}
/** Any content block of a tool result, prompt message or sampling message. */
export type ContentBlock =
  | TextContent
  | ImageContent
  | AudioContent
  | EmbeddedResource
  | ResourceLink;

/** The result of `tools/call`. */
export interface CallToolResult {
  /** What the model reads: text, images, audio, resources. */
  content: ContentBlock[];
  /** The same answer as JSON, shaped by the tool's `outputSchema` when it has one. */
  structuredContent?: Record<string, unknown>;
  /** The tool failed; `content` says why, for the model to read. */
  isError?: boolean;
  /** Free-form metadata. */
  _meta?: Record<string, unknown>;
}

/** Hints about a tool's behaviour for clients (never trusted for security decisions). */
export interface ToolAnnotations {
  /** Display name. */
  title?: string;
  /** It changes nothing. */
  readOnlyHint?: boolean;
  /** Its changes may destroy something (meaningful when not read-only). */
  destructiveHint?: boolean;
  /** Calling it twice with the same arguments does no more than once. */
  idempotentHint?: boolean;
  /** It reaches beyond the server's own world (the web, other systems). */
  openWorldHint?: boolean;
}

/** One message of a prompt (`prompts/get`). */
export interface PromptMessage {
  /** Who says it. */
  role: 'user' | 'assistant';
  /** What is said. */
  content: ContentBlock;
}

/** The result of `prompts/get`. */
export interface GetPromptResult {
  /** What this prompt is for. */
  description?: string;
  /** The messages, with the arguments filled in. */
  messages: PromptMessage[];
  /** Free-form metadata. */
  _meta?: Record<string, unknown>;
}

/** The result of `resources/read`. */
export interface ReadResourceResult {
  /** The resource's contents (one item, or more for a resource with parts). */
  contents: ResourceContents[];
  /** Free-form metadata. */
  _meta?: Record<string, unknown>;
}

/** A client's answer to `sampling/createMessage`: what the model said. */
export interface CreateMessageResult {
  /** Normally `'assistant'`. */
  role: 'user' | 'assistant';
  /** The model's message. */
  content: ContentBlock;
  /** The model that answered. */
  model: string;
  /** Why it stopped, e.g. `endTurn`, `maxTokens`. */
  stopReason?: string;
  /** Fields of newer protocol versions, kept as sent. */
  [key: string]: unknown;
}

/** A client's answer to `elicitation/create`: what the user did. */
export interface ElicitResult {
  /** The user submitted, declined, or dismissed the request. */
  action: 'accept' | 'decline' | 'cancel';
  /** The submitted values (with `accept`), shaped by the requested schema. */
  content?: Record<string, unknown>;
  /** Fields of newer protocol versions, kept as sent. */
  [key: string]: unknown;
}
