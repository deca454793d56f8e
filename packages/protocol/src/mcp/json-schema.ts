import type { StandardJSONSchemaV1, StandardSchemaV1 } from '@standard-schema/spec';
import { z } from 'zod';
import { isPromiseLike } from '../jsonrpc/method.js';

/** A JSON Schema document (draft 2020-12), as `tools/list` shows a tool's input and output. */
export type JsonSchema = Record<string, unknown>;

/**
 * What {@link safeParseFast} answers for any schema library. It is zod's own `safeParse` result
 * shape, so a zod schema's result is passed on as it is, without a wrapper object per call.
 */
export type ParseResult<T> =
  | { readonly success: true; readonly data: T; readonly error?: undefined }
  | {
      readonly success: false;
      readonly data?: undefined;
      readonly error: { readonly issues: readonly StandardSchemaV1.Issue[] };
    };

/** One validation issue as clients and `argumentError` see it: a dotted path and a message. */
export interface SchemaIssue {
  /** Where: dotted, e.g. `items.0.name`; empty for the value itself. */
  path: string;
  /** What is wrong, in the schema library's words. */
  message: string;
}

/**
 * A {@link SchemaIssue} of tool arguments, as `argumentError` receives it. `missing` is set when
 * the arguments have no value at the issue's path, so an app can say "required" without
 * reading the (library- and locale-specific) message.
 */
export interface ArgumentIssue extends SchemaIssue {
  /** The arguments have no value at `path`. */
  missing?: true;
}

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

interface Zod4Internals {
  _zod: { def: unknown; version: { major: number } };
  meta?: () => Record<string, unknown> | undefined;
}

/** A zod 4 schema (classic or mini) from any copy of zod: they all carry `_zod.def`. */
function isZod4(schema: object): schema is Zod4Internals {
  const internals = (schema as Partial<Zod4Internals>)._zod;
  return (
    typeof internals === 'object' &&
    internals !== null &&
    typeof internals.def === 'object' &&
    internals.version?.major === 4
  );
}

/**
 * Metadata (descriptions, titles …) of a schema from another zod copy. Newer copies share one
 * registry on `globalThis`; older ones (4.0) keep their own, which only the schema's `meta()`
 * reads. zod's generator only ever calls `get` on the registry it is given.
 */
const anyCopyMetadata = {
  get(schema: z.core.$ZodType): Record<string, unknown> | undefined {
    return (
      z.globalRegistry.get(schema) ??
      (typeof (schema as Zod4Internals).meta === 'function'
        ? (schema as Zod4Internals).meta?.()
        : undefined)
    );
  },
} as unknown as z.core.$ZodRegistry<z.core.GlobalMeta>;

function standardJsonSchema(schema: object): StandardJSONSchemaV1.Converter | undefined {
  const converter = (schema as Partial<StandardJSONSchemaV1>)['~standard']?.jsonSchema;
  return typeof converter?.input === 'function' && typeof converter.output === 'function'
    ? converter
    : undefined;
}

/** Whether {@link toJsonSchema} can describe the schema (else a tool needs `inputJsonSchema`). */
export function hasJsonSchema(schema: StandardSchemaV1): boolean {
  return isZod4(schema) || standardJsonSchema(schema) !== undefined;
}

/**
 * JSON Schema (2020-12) of a schema for `tools/list`: zod 4 schemas of any zod copy through
 * `z.toJSONSchema`, other libraries through their Standard JSON Schema (`~standard.jsonSchema`).
 * Object schemas always carry `properties` and `required`, as clients and the specification's
 * examples expect. Throws a TypeError for a schema that cannot describe itself (zod 3, valibot …).
 */
export function toJsonSchema(schema: StandardSchemaV1, io: 'input' | 'output'): JsonSchema {
  let raw: unknown;
  if (isZod4(schema)) {
    const zod = schema as unknown as z.core.$ZodType;
    // Our own copy of zod converts with its own registry; another copy's metadata lives in that
    // copy's registry.
    raw =
      schema._zod.version === z.core.version
        ? z.toJSONSchema(zod, { io, unrepresentable: 'any' })
        : z.toJSONSchema(zod, { io, unrepresentable: 'any', metadata: anyCopyMetadata });
  } else {
    const converter = standardJsonSchema(schema);
    if (!converter) {
      const vendor = (schema as Partial<StandardSchemaV1>)['~standard']?.vendor ?? 'unknown';
      throw new TypeError(
        `a '${vendor}' schema cannot be turned into JSON Schema (it is neither zod 4 nor a Standard JSON Schema)`,
      );
    }
    raw = converter[io]({ target: 'draft-2020-12' });
  }
  const json = tidy(raw, true) as JsonSchema;
  if (json.type === 'object') {
    json.properties ??= {};
    json.required ??= [];
  }
  return json;
}

type Issues = { readonly issues: readonly StandardSchemaV1.Issue[] };

/** A Standard Schema path (keys or `{ key }` segments) as `a.0.b`; the root is `''`. */
function formatPath(path: StandardSchemaV1.Issue['path']): string {
  if (!path || path.length === 0) return '';
  return path
    .map((seg) => String(typeof seg === 'object' && seg !== null ? seg.key : seg))
    .join('.');
}

/** One line per issue: `path: message`. */
export function describeIssues(error: Issues): string {
  return error.issues
    .map((issue) => `${formatPath(issue.path) || '(root)'}: ${issue.message}`)
    .join('; ');
}

export function issueList(error: Issues): SchemaIssue[] {
  return error.issues.map((issue) => ({ path: formatPath(issue.path), message: issue.message }));
}

/** {@link issueList} with `missing` set where `input` has no value at the issue's path. */
export function argumentIssues(error: Issues, input: unknown): ArgumentIssue[] {
  return error.issues.map((issue) => {
    const entry: ArgumentIssue = { path: formatPath(issue.path), message: issue.message };
    let value = input;
    for (const seg of issue.path ?? []) {
      if (typeof value !== 'object' || value === null) {
        value = undefined;
        break;
      }
      const key = typeof seg === 'object' && seg !== null ? seg.key : seg;
      value = (value as Record<PropertyKey, unknown>)[key];
    }
    if (value === undefined) entry.missing = true;
    return entry;
  });
}

interface ZodLike {
  safeParse(value: unknown): ParseResult<unknown>;
  safeParseAsync(value: unknown): Promise<ParseResult<unknown>>;
}

/**
 * zod 3 or zod 4 classic from any copy. Checked by shape, not `instanceof`: an app's own zod
 * is a different copy from ours. Both versions share the `safeParse` result shape.
 */
function isZodLike(schema: object): boolean {
  const s = schema as Partial<ZodLike>;
  return (
    typeof s.safeParse === 'function' &&
    typeof s.safeParseAsync === 'function' &&
    ('_zod' in schema || '_def' in schema)
  );
}

function fromStandard<T>(result: StandardSchemaV1.Result<T>): ParseResult<T> {
  return result.issues === undefined
    ? { success: true, data: result.value }
    : { success: false, error: { issues: result.issues } };
}

/**
 * Validate with any Standard Schema (zod of any version or copy, valibot, arktype …).
 *
 * zod is parsed synchronously when the schema allows it (no promise and no extra object per
 * call on the hot path), and asynchronously only for schemas with async refinements. Other
 * libraries go through `~standard.validate`, awaited only when it returns a promise.
 */
export function safeParseFast<S extends StandardSchemaV1>(
  schema: S,
  value: unknown,
):
  | ParseResult<StandardSchemaV1.InferOutput<S>>
  | Promise<ParseResult<StandardSchemaV1.InferOutput<S>>> {
  type Out = ParseResult<StandardSchemaV1.InferOutput<S>>;
  if (isZodLike(schema)) {
    const zod = schema as unknown as ZodLike;
    try {
      return zod.safeParse(value) as Out;
    } catch {
      // A sync parse throws on a promise from an async refinement; no copy-independent way to
      // tell that error apart, so like zod's own `~standard.validate` we retry asynchronously,
      // which also rethrows (as a rejection) whatever else a refinement threw.
      return zod.safeParseAsync(value) as Promise<Out>;
    }
  }
  const result = schema['~standard'].validate(value);
  return isPromiseLike<StandardSchemaV1.Result<StandardSchemaV1.InferOutput<S>>>(result)
    ? Promise.resolve(result).then(fromStandard)
    : fromStandard(result as StandardSchemaV1.Result<StandardSchemaV1.InferOutput<S>>);
}
