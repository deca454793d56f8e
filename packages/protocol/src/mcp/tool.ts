import type { StandardSchemaV1 } from '@standard-schema/spec';
import type { McpContext } from './context.js';
import { hasJsonSchema, type JsonSchema, toJsonSchema } from './json-schema.js';
import type { CallToolResult, ContentBlock, Icon, ToolAnnotations } from './types.js';

/**
 * A schema of an object, from any Standard Schema library: zod 3 or 4 (any copy, not only the
 * one this package depends on), valibot, arktype …
 */
export type ObjectSchema = StandardSchemaV1<Record<string, unknown>, Record<string, unknown>>;

/** What {@link defineTool} takes. */
export interface ToolSpec<I extends ObjectSchema, O extends ObjectSchema | undefined> {
  /** `snake_case`; 1–128 of `A–Z a–z 0–9 _ - .` (MCP 2025-11-25). */
  name: string;
  /** Display name. */
  title?: string;
  /** What the tool does and when to use it: the model reads this to choose it. Required. */
  description: string;
  /**
   * A Standard Schema of the arguments (zod, valibot, arktype …; async refinements work). Omit
   * for a tool without arguments. Listed as JSON Schema: zod 4 and Standard JSON Schema
   * libraries describe themselves; for others (zod 3, valibot) give `inputJsonSchema`.
   */
  inputSchema?: I;
  /**
   * The JSON Schema to list instead of the one derived from `inputSchema` (for features zod does
   * not express, such as `$defs`, or a schema library without JSON Schema output). Arguments
   * are still validated by `inputSchema` if given.
   */
  inputJsonSchema?: JsonSchema;
  /** A Standard Schema of `structuredContent`; the handler then returns that object. */
  outputSchema?: O;
  /** The JSON Schema to list instead of the one derived from `outputSchema`. */
  outputJsonSchema?: JsonSchema;
  /** Hints for clients: read-only, destructive, idempotent, open-world. */
  annotations?: ToolAnnotations;
  /** Every scope the caller must hold. */
  requiredScopes?: readonly string[];
  /** Icons a client may show. */
  icons?: Icon[];
  /** Free-form metadata, listed in `tools/list`. */
  _meta?: Record<string, unknown>;
  /**
   * Whether a call may run as a task (MCP tasks extension, `io.modelcontextprotocol/tasks`): a
   * 2026-07-28 client that declared the extension in the request then gets a task
   * (`CreateTaskResult`) to poll with `tasks/get` instead of waiting for the result. `forbidden`
   * (default): always an ordinary call. `optional`: a task for a client that declared the
   * extension, an ordinary call for any other. `required`: a client that did not declare it is
   * refused (-32021) — except a 2025-era session, which has no tasks and gets an ordinary call.
   * Not listed in `tools/list` (the extension has no Tool field): the server decides.
   */
  taskSupport?: TaskSupport;
  /**
   * When a call becomes a task: `call` (default) before the handler runs; `handler` when the
   * handler says so with `ctx.runAsTask()` — after gathering input in multi round-trip rounds,
   * so the task starts with everything it needs. A handler that finishes without saying so
   * answers at once (`optional`) or as a task already completed (`required`).
   */
  taskStart?: 'call' | 'handler';
  /**
   * Run the tool with validated arguments. Return a string (one text block), an object
   * (structured content plus the same JSON as text; with `outputSchema`, its shape) or a whole
   * `CallToolResult`. Throw {@link ToolError} for a failure the model should read.
   */
  handler: (
    args: StandardSchemaV1.InferOutput<I>,
    ctx: McpContext,
  ) => O extends ObjectSchema
    ?
        | StandardSchemaV1.InferInput<O>
        | CallToolResult
        | Promise<StandardSchemaV1.InferInput<O> | CallToolResult>
    : unknown;
}

/** Whether a tool's calls may, must or must not run as tasks (see {@link ToolSpec.taskSupport}). */
export type TaskSupport = 'forbidden' | 'optional' | 'required';

/** A tool ready to register: its definition plus the `tools/list` entry, computed once. */
export interface Tool {
  /** Its name. */
  readonly name: string;
  /** Validates the arguments, if the tool takes any. */
  readonly inputSchema: ObjectSchema | undefined;
  /** The shape of its structured content, if declared. */
  readonly outputSchema: ObjectSchema | undefined;
  /** Every scope the caller must hold. */
  readonly requiredScopes: readonly string[];
  /** What `tools/list` shows of it. */
  readonly listEntry: Readonly<Record<string, unknown>>;
  /** Runs it with validated arguments. */
  readonly handler: (args: Record<string, unknown>, ctx: McpContext) => unknown;
  /**
   * The handler's return value is the CallToolResult, sent exactly as is (a gateway forwarding
   * a backend's result: content types, `_meta` and all).
   */
  readonly raw?: boolean;
  /**
   * The arguments its `inputSchema` mirrors into `Mcp-Param-*` headers (`x-mcp-header`, MCP
   * 2026-07-28 Streamable HTTP): a modern HTTP request must carry each one present in its
   * arguments, equal to the body's value.
   */
  readonly headerParams?: readonly HeaderParam[];
  /** Whether its calls may run as tasks (absent: forbidden). */
  readonly taskSupport?: Exclude<TaskSupport, 'forbidden'>;
  /** When a call becomes a task (absent: before the handler runs). */
  readonly taskStart?: 'handler';
}

/** One argument a tool mirrors into a header: `Mcp-Param-<name>` carries the value at `path`. */
export interface HeaderParam {
  /** The `x-mcp-header` value: the header is `Mcp-Param-<name>` (compared case-insensitively). */
  readonly name: string;
  /** The chain of `properties` keys from the schema root to the argument. */
  readonly path: readonly string[];
  /** Its JSON Schema type: how the header's text is compared with the body's value. */
  readonly type: 'string' | 'integer' | 'boolean';
}

/** An HTTP field-name token (RFC 9110 §5.1: `1*tchar`). */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const HEADER_TYPES = new Set(['string', 'integer', 'boolean']);
/** Keywords whose values are data, not schemas: an `x-mcp-header` key in them is not one. */
const DATA_KEYWORDS = new Set(['enum', 'const', 'default', 'examples', 'example']);

/**
 * The `x-mcp-header` declarations of a tool's input JSON Schema (spec streamable-http §Custom
 * Headers from Tool Parameters), or a TypeError naming the tool: a name that is empty, not an
 * HTTP token, or not case-insensitively unique; a parameter that is not a string, integer or
 * boolean; an annotation not statically reachable from the root through `properties` alone.
 */
export function headerParamsOf(tool: string, schema: unknown): HeaderParam[] {
  const params: HeaderParam[] = [];
  const seen = new Set<string>();
  const fail = (path: readonly string[], why: string): never => {
    throw new TypeError(`tool '${tool}': x-mcp-header at '${path.join('.') || '(root)'}' ${why}`);
  };
  const walk = (node: unknown, path: string[], reachable: boolean): void => {
    if (Array.isArray(node)) {
      for (const item of node) walk(item, path, false);
      return;
    }
    if (!isPlainObject(node)) return;
    if (Object.hasOwn(node, 'x-mcp-header')) {
      const name = node['x-mcp-header'];
      if (!reachable || path.length === 0) {
        fail(path, 'is not on a property reachable from the root through properties alone');
      }
      if (typeof name !== 'string' || !TOKEN.test(name)) {
        fail(path, `must be a non-empty HTTP token, not ${JSON.stringify(name)}`);
      }
      const type = primitiveType(node.type);
      if (type === undefined) {
        fail(
          path,
          `needs a string, integer or boolean parameter, not ${JSON.stringify(node.type)}`,
        );
      }
      const key = (name as string).toLowerCase();
      if (seen.has(key)) fail(path, `repeats the header name '${name as string}'`);
      seen.add(key);
      params.push({ name: name as string, path: [...path], type: type as HeaderParam['type'] });
    }
    for (const [key, value] of Object.entries(node)) {
      if (key === 'x-mcp-header' || DATA_KEYWORDS.has(key)) continue;
      if (key === 'properties' && isPlainObject(value)) {
        for (const [prop, child] of Object.entries(value)) {
          walk(child, [...path, prop], reachable);
        }
      } else walk(value, path, false);
    }
  };
  walk(schema, [], true);
  return params;
}

/** `"string"`, or `["string", "null"]`: the one primitive type a header may mirror. */
function primitiveType(type: unknown): string | undefined {
  const types = Array.isArray(type) ? type.filter((t) => t !== 'null') : [type];
  return types.length === 1 && HEADER_TYPES.has(types[0] as string)
    ? (types[0] as string)
    : undefined;
}

/** What a tool name may be (MCP 2025-11-25): 1–128 of `A–Z a–z 0–9 _ - .`. */
export const TOOL_NAME = /^[A-Za-z0-9_.-]{1,128}$/;
const TASK_SUPPORT: ReadonlySet<string> = new Set(['forbidden', 'optional', 'required']);
const EMPTY_INPUT: JsonSchema = { type: 'object', properties: {}, required: [] };

/**
 * Define a tool: one shape for every tool of every app. Throws a `TypeError` for an invalid name,
 * a missing description, a schema that cannot be listed as JSON Schema, or an invalid
 * `x-mcp-header` declaration (see {@link Tool.headerParams}).
 *
 * @example
 * ```ts
 * export const add = defineTool({
 *   name: 'add',
 *   description: 'Add two numbers',
 *   inputSchema: z.object({ a: z.number(), b: z.number() }),
 *   outputSchema: z.object({ sum: z.number() }),
 *   annotations: { readOnlyHint: true },
 *   handler: ({ a, b }) => ({ sum: a + b }),
 * });
 * server.addTool(add);
 * ```
 */
export function defineTool<
  I extends ObjectSchema = ObjectSchema,
  O extends ObjectSchema | undefined = undefined,
>(spec: ToolSpec<I, O>): Tool {
  if (!TOOL_NAME.test(spec.name)) {
    throw new TypeError(`tool name '${spec.name}' must be 1–128 characters of A–Z a–z 0–9 _ - .`);
  }
  if (typeof spec.description !== 'string' || spec.description.length === 0) {
    throw new TypeError(`tool '${spec.name}' needs a description`);
  }
  const entry: Record<string, unknown> = { name: spec.name };
  if (spec.title !== undefined) entry.title = spec.title;
  entry.description = spec.description;
  entry.inputSchema =
    spec.inputJsonSchema ??
    (spec.inputSchema ? listedSchema(spec.name, spec.inputSchema, 'input') : EMPTY_INPUT);
  const output =
    spec.outputJsonSchema ??
    (spec.outputSchema ? listedSchema(spec.name, spec.outputSchema, 'output') : undefined);
  if (output) entry.outputSchema = output;
  if (spec.annotations) entry.annotations = spec.annotations;
  if (spec.icons) entry.icons = spec.icons;
  if (spec._meta) entry._meta = spec._meta;
  const headerParams = headerParamsOf(spec.name, entry.inputSchema);
  const tool: {
    -readonly [K in keyof Tool]: Tool[K];
  } = {
    name: spec.name,
    inputSchema: spec.inputSchema,
    outputSchema: spec.outputSchema,
    requiredScopes: spec.requiredScopes ?? [],
    listEntry: Object.freeze(entry),
    handler: spec.handler as Tool['handler'],
  };
  if (headerParams.length > 0) tool.headerParams = headerParams;
  const support = spec.taskSupport ?? 'forbidden';
  if (!TASK_SUPPORT.has(support)) {
    throw new TypeError(
      `tool '${spec.name}': taskSupport must be forbidden, optional or required, not ${JSON.stringify(support)}`,
    );
  }
  if (support !== 'forbidden') tool.taskSupport = support;
  if (spec.taskStart === 'handler') tool.taskStart = 'handler';
  return tool;
}

/** The JSON Schema `tools/list` shows, or a TypeError naming the tool and the way out. */
function listedSchema(tool: string, schema: ObjectSchema, io: 'input' | 'output'): JsonSchema {
  if (!hasJsonSchema(schema)) {
    const vendor = schema['~standard']?.vendor ?? 'unknown';
    throw new TypeError(
      `tool '${tool}': its ${io}Schema (${vendor}) cannot be listed as JSON Schema; ` +
        `give ${io}JsonSchema too, or use zod 4 or a Standard JSON Schema library`,
    );
  }
  return toJsonSchema(schema, io);
}

// A registry-wide brand instead of `instanceof`, so a ToolError thrown by an app that resolved a
// second copy of this package (two versions in one node_modules tree) is still recognised.
const BRAND = Symbol.for('mcpkit.ToolError');

/** A failure the model should see: answered as a tool result with `isError: true`. */
export class ToolError extends Error {
  /** Marks a ToolError from any copy of this package (see {@link ToolError.is}). */
  readonly [BRAND] = true;

  /**
   * @param message - The text block the model reads.
   * @param structuredContent - Structured details of the failure, sent as `structuredContent`.
   */
  constructor(
    message: string,
    /** Structured details of the failure, sent as `structuredContent`. */
    readonly structuredContent?: Record<string, unknown>,
  ) {
    super(message);
    this.name = 'ToolError';
  }

  /** Whether `value` is a ToolError from any copy of this package. */
  static is(value: unknown): value is ToolError {
    return (
      typeof value === 'object' &&
      value !== null &&
      (value as { [BRAND]?: unknown })[BRAND] === true
    );
  }
}

const CONTENT_TYPES = new Set(['text', 'image', 'audio', 'resource', 'resource_link']);

/** Whether `value` is shaped like a `CallToolResult` (a `content` array of known block types). */
export function isCallToolResult(value: unknown): value is CallToolResult {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const content = (value as { content?: unknown }).content;
  return (
    Array.isArray(content) &&
    content.every(
      (c) =>
        typeof c === 'object' &&
        c !== null &&
        CONTENT_TYPES.has((c as { type?: unknown }).type as string),
    )
  );
}

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** A text content block. */
export const text = (value: string): ContentBlock => ({ type: 'text', text: value });

/**
 * Turn what a handler returned into a CallToolResult. Structured results also travel as a JSON
 * text block, so clients without `structuredContent` support see the same data.
 */
export function toCallToolResult(value: unknown, tool: Tool): CallToolResult {
  if (isCallToolResult(value))
    return value.isError === undefined ? { ...value, isError: false } : value;
  if (value === undefined) return { content: [], isError: false };
  if (typeof value === 'string' && !tool.outputSchema)
    return { content: [text(value)], isError: false };
  const json = JSON.stringify(value);
  const result: CallToolResult = { content: [text(json ?? 'null')], isError: false };
  if (isPlainObject(value)) result.structuredContent = value;
  return result;
}

/** A tool result with `isError: true`: `message` as text, plus structured details if given. */
export function toolErrorResult(
  message: string,
  structuredContent?: Record<string, unknown>,
): CallToolResult {
  const result: CallToolResult = { content: [text(message)], isError: true };
  if (structuredContent) result.structuredContent = structuredContent;
  return result;
}
