import type { z } from 'zod';
import type { McpContext } from './context.js';
import type { Completer } from './resource.js';
import type { GetPromptResult, Icon, PromptMessage } from './types.js';

type StringArgs = z.ZodType<Record<string, string | undefined>, Record<string, unknown>>;

export interface PromptSpec<A extends StringArgs> {
  name: string;
  title?: string;
  description?: string;
  /** A zod object of string fields; optional fields are optional arguments. */
  arguments?: A;
  /** Per-argument descriptions shown in `prompts/list` (zod `.describe()` works too). */
  complete?: Readonly<Record<string, Completer>>;
  icons?: Icon[];
  _meta?: Record<string, unknown>;
  get: (
    args: z.output<A>,
    ctx: McpContext,
  ) =>
    | GetPromptResult
    | PromptMessage[]
    | string
    | Promise<GetPromptResult | PromptMessage[] | string>;
}

export interface Prompt {
  readonly name: string;
  readonly arguments: StringArgs | undefined;
  readonly listEntry: Readonly<Record<string, unknown>>;
  readonly complete: Readonly<Record<string, Completer>>;
  readonly get: (args: Record<string, string | undefined>, ctx: McpContext) => unknown;
}

interface ShapeField {
  description?: string;
  isOptional?: () => boolean;
  unwrap?: () => { description?: string };
}

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
  };
}

export function toPromptResult(output: unknown): GetPromptResult {
  if (typeof output === 'string')
    return { messages: [{ role: 'user', content: { type: 'text', text: output } }] };
  if (Array.isArray(output)) return { messages: output as PromptMessage[] };
  return output as GetPromptResult;
}
