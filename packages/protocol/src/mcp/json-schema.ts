import { z } from 'zod';

export type JsonSchema = Record<string, unknown>;

const SAFE_BOUNDS = new Set([Number.MAX_SAFE_INTEGER, Number.MIN_SAFE_INTEGER]);

/** Drop what zod adds that says nothing to a client: the root `$schema`, ±2^53 integer bounds. */
function tidy(node: unknown, root = false): unknown {
  if (Array.isArray(node)) return node.map((n) => tidy(n));
  if (typeof node !== 'object' || node === null) return node;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    if (root && key === '$schema') continue;
    if ((key === 'minimum' || key === 'maximum') && SAFE_BOUNDS.has(value as number)) continue;
    out[key] = tidy(value);
  }
  return out;
}

/**
 * JSON Schema (2020-12) of a zod schema for `tools/list`. Object schemas always carry
 * `properties` and `required`, as clients and the specification's examples expect.
 */
export function toJsonSchema(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
  const json = tidy(z.toJSONSchema(schema, { io, unrepresentable: 'any' }), true) as JsonSchema;
  if (json.type === 'object') {
    json.properties ??= {};
    json.required ??= [];
  }
  return json;
}

/** One line per zod issue: `path: message`. */
export function describeIssues(error: z.ZodError): string {
  return error.issues
    .map(
      (issue) =>
        `${issue.path.length > 0 ? issue.path.map(String).join('.') : '(root)'}: ${issue.message}`,
    )
    .join('; ');
}

export function issueList(error: z.ZodError): { path: string; message: string }[] {
  return error.issues.map((issue) => ({
    path: issue.path.map(String).join('.'),
    message: issue.message,
  }));
}

/**
 * Parse synchronously when the schema allows it (no promise per call on the hot path), and
 * asynchronously only for schemas with async refinements.
 */
export function safeParseFast<T extends z.ZodType>(
  schema: T,
  value: unknown,
): z.ZodSafeParseResult<z.output<T>> | Promise<z.ZodSafeParseResult<z.output<T>>> {
  try {
    return schema.safeParse(value);
  } catch (err) {
    if (err instanceof z.core.$ZodAsyncError) return schema.safeParseAsync(value);
    throw err;
  }
}
