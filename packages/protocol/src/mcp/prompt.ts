import type { z } from 'zod';
import type { McpContext } from './context.js';
import type { Completer } from './resource.js';
import type { GetPromptResult, Icon, PromptMessage } from './types.js';

/** A zod object schema whose fields are strings (prompt arguments are strings in MCP). */
type StringArgs = z.ZodType<Record<string, string | undefined>, Record<string, unknown>>;

/** What {@link definePrompt} takes. */
export interface PromptSpec<A extends StringArgs> {
  /** Programmatic name, unique on the server. */
  name: string;
  /** Display name. */
  title?: string;
  /** What the prompt is for. */
  description?: string;
  /**
   * A zod object of string fields; optional fields are optional arguments. Each field's
   * `.describe()` text is the argument's description in `prompts/list`.
   */
  arguments?: A;
  /** Completers per argument, for `completion/complete`. */
  complete?: Readonly<Record<string, Completer>>;
  /** Icons a client may show. */
  icons?: Icon[];
  /** Free-form metadata. */
  _meta?: Record<string, unknown>;
  /**
   * Scopes a caller must hold to see and use it, as a tool's `requiredScopes`: a caller without
   * them finds it in no list, and reading, getting, completing or subscribing to it answers as
   * if it did not exist.
   */
  requiredScopes?: readonly string[];
  /**
   * Build the messages from the validated arguments: a string (one user message), messages, or a
   * whole `GetPromptResult`.
   */
  get: (
    args: z.output<A>,
    ctx: McpContext,
  ) =>
    | GetPromptResult
    | PromptMessage[]
    | string
    | Promise<GetPromptResult | PromptMessage[] | string>;
}

/** A prompt made by {@link definePrompt}, ready for `server.addPrompt`. */
export interface Prompt {
  /** Programmatic name. */
  readonly name: string;
  /** The arguments' schema, if it takes any. */
  readonly arguments: StringArgs | undefined;
  /** What `prompts/list` shows of it. */
  readonly listEntry: Readonly<Record<string, unknown>>;
  /** Completers per argument. */
  readonly complete: Readonly<Record<string, Completer>>;
  /** Builds the messages from validated arguments. */
  readonly get: (args: Record<string, string | undefined>, ctx: McpContext) => unknown;
  /** Scopes a caller must hold to see and get it (see {@link PromptSpec.requiredScopes}). */
  readonly requiredScopes?: readonly string[];
}

interface ShapeField {
  description?: string;
  isOptional?: () => boolean;
  unwrap?: () => { description?: string };
}

/**
 * A prompt template: `prompts/get` validates the arguments with `arguments` and returns what
 * `get` builds. Throws a `TypeError` for a completer of an argument the schema does not have.
 *
 * @example
 * ```ts
 * const review = definePrompt({
 *   name: 'review',
 *   description: 'Review a piece of code',
 *   arguments: z.object({ code: z.string().describe('The code to review') }),
 *   get: ({ code }) => `Please review this code:\n\n${code}`,
 * });
 * server.addPrompt(review);
 * ```
 */
export function definePrompt<A extends StringArgs = StringArgs>(spec: PromptSpec<A>): Prompt {
  if (!spec.name) throw new TypeError('a prompt needs a name');
  const entry: Record<string, unknown> = { name: spec.name };
  if (spec.title !== undefined) entry.title = spec.title;
  if (spec.description !== undefined) entry.description = spec.description;
  const shape = (spec.arguments as unknown as { shape?: Record<string, ShapeField> } | undefined)
    ?.shape;
  if (shape) {
    entry.arguments = Object.entries(shape).map(([name, field]) => {
      const arg: Record<string, unknown> = { name };
      // `.describe()` before `.optional()` leaves the text on the inner schema.
      const description = field.description ?? field.unwrap?.().description;
      if (description) arg.description = description;
      arg.required = !(field.isOptional?.() ?? false);
      return arg;
    });
  }
  if (spec.icons) entry.icons = spec.icons;
  if (spec._meta) entry._meta = spec._meta;
  for (const name of Object.keys(spec.complete ?? {})) {
    if (!shape || !Object.hasOwn(shape, name))
      throw new TypeError(`prompt '${spec.name}' has no argument '${name}' to complete`);
  }
  return {
    name: spec.name,
    arguments: spec.arguments,
    listEntry: Object.freeze(entry),
    complete: spec.complete ?? {},
    get: spec.get as Prompt['get'],
    ...(spec.requiredScopes?.length ? { requiredScopes: [...spec.requiredScopes] } : {}),
  };
}

export function toPromptResult(output: unknown): GetPromptResult {
  if (typeof output === 'string')
    return { messages: [{ role: 'user', content: { type: 'text', text: output } }] };
  if (Array.isArray(output)) return { messages: output as PromptMessage[] };
  return output as GetPromptResult;
}
