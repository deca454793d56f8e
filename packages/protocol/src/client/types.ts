/**
 * What an MCP client receives from a server (MCP 2025-11-25 `schema.ts`, the legacy-era shapes).
 * Fields a server may add beyond these are kept: every shape is open (`[key: string]: unknown`).
 */
import type { ContentBlock, Icon, Implementation, ToolAnnotations } from '../mcp/types.js';

type Open = { [key: string]: unknown };

/** What a server said about itself in its initialize result. */
export interface InitializeResult extends Open {
  protocolVersion: string;
  capabilities: ServerCapabilities;
  serverInfo: Implementation;
  instructions?: string;
}

export interface ServerCapabilities extends Open {
  tools?: { listChanged?: boolean };
  resources?: { subscribe?: boolean; listChanged?: boolean };
  prompts?: { listChanged?: boolean };
  logging?: Record<string, unknown>;
  completions?: Record<string, unknown>;
  experimental?: Record<string, unknown>;
}

/** One entry of `tools/list`. */
export interface ToolInfo extends Open {
  name: string;
  title?: string;
  description?: string;
  inputSchema: { type: 'object'; [key: string]: unknown };
  outputSchema?: { type: 'object'; [key: string]: unknown };
  annotations?: ToolAnnotations;
  icons?: Icon[];
  _meta?: Record<string, unknown>;
}

/** One entry of `resources/list`. */
export interface ResourceInfo extends Open {
  uri: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
  size?: number;
  _meta?: Record<string, unknown>;
}

/** One entry of `resources/templates/list`. */
export interface ResourceTemplateInfo extends Open {
  uriTemplate: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
  _meta?: Record<string, unknown>;
}

/** One entry of `prompts/list`. */
export interface PromptInfo extends Open {
  name: string;
  title?: string;
  description?: string;
  arguments?: { name: string; description?: string; required?: boolean }[];
  _meta?: Record<string, unknown>;
}

/** The result of `completion/complete`. */
export interface CompleteResult extends Open {
  completion: { values: string[]; total?: number; hasMore?: boolean };
}

/** What `completion/complete` completes: an argument of a prompt or of a resource template. */
export type CompletionRef =
  | { type: 'ref/prompt'; name: string }
  | { type: 'ref/resource'; uri: string };

/** One root the client exposes to the server (`roots/list`). */
export interface Root {
  uri: string;
  name?: string;
}

/** `sampling/createMessage` params as a server sends them. */
export interface CreateMessageRequest extends Open {
  messages: { role: 'user' | 'assistant'; content: ContentBlock }[];
  maxTokens: number;
  systemPrompt?: string;
}

/** `elicitation/create` params as a server sends them (form or URL mode). */
export interface ElicitRequest extends Open {
  message: string;
  mode?: 'form' | 'url';
  requestedSchema?: Record<string, unknown>;
  url?: string;
}

/** `notifications/progress` params. */
export interface Progress {
  progressToken: string | number;
  progress: number;
  total?: number;
  message?: string;
}

/** `notifications/message` params. */
export interface LogMessage {
  level: string;
  logger?: string;
  data: unknown;
}
