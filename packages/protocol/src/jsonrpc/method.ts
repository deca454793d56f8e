import type { StandardSchemaV1 } from '@standard-schema/spec';
import { InvalidParamsError } from './errors.js';
import type { JsonRpcId, JsonRpcParams } from './types.js';

/** What a handler learns about the call it serves. */
export interface RequestContext<E = unknown> {
  /** The request id, or undefined when the call is a notification. */
  readonly id: JsonRpcId | undefined;
  /** The method called. */
  readonly method: string;
  /** Aborted when the caller cancels the request or the connection closes. */
  readonly signal: AbortSignal;
  /** Whether `signal` was made and has been aborted — without making it. */
  readonly aborted: boolean;
  /** Whatever the transport attached to this call (caller identity, connection, …). */
  readonly extra: E;
}

/** A value, or a promise of it: what handlers may return. */
export type MaybePromise<T> = T | Promise<T>;

/** A registered method: how to turn wire params into handler input, and the handler. */
export interface MethodDefinition<E = unknown> {
  /** The method name callers use. */
  readonly name: string;
  /** Throws (or rejects with) an InvalidParamsError when the params do not fit. */
  readonly parseParams: (params: JsonRpcParams | undefined) => MaybePromise<unknown>;
  /** Serves a call with parsed params; its return value (or promise) is the result. */
  readonly handler: (params: unknown, ctx: RequestContext<E>) => unknown;
}

/** `'b?'` → `'b'`: a declared param name without its optional mark. */
type StripOptional<K extends string> = K extends `${infer Base}?` ? Base : K;
/** `['a', 'b?']` → `{ a: unknown; b: unknown }`. */
export type NamedParams<N extends readonly string[]> = {
  [K in N[number] as StripOptional<K>]: unknown;
};

const hasOwn = Object.prototype.hasOwnProperty;

/**
 * Whether `value` is a thenable: how a handler's answer is told apart from a promise of one, so a
 * synchronous answer is sent without waiting a microtask.
 */
export function isPromiseLike<T>(value: unknown): value is PromiseLike<T> {
  return (
    value !== null &&
    (typeof value === 'object' || typeof value === 'function') &&
    typeof (value as { then?: unknown }).then === 'function'
  );
}

function invalidParams(detail: string, extra?: Record<string, unknown>): InvalidParamsError {
  return new InvalidParamsError('Invalid params', { detail, ...extra });
}

interface ParamSpec {
  readonly name: string;
  readonly optional: boolean;
}

/**
 * Map params given by position or by name onto declared names. With `strict`, every required
 * name must be present and no unknown name may appear (JSON-RPC 2.0 §4.2: names match exactly).
 */
function byNames(specs: readonly ParamSpec[], strict: boolean) {
  const known = new Set(specs.map((s) => s.name));
  return (params: JsonRpcParams | undefined): Record<string, unknown> => {
    const out: Record<string, unknown> = {};
    if (Array.isArray(params)) {
      if (params.length > specs.length) {
        throw invalidParams(
          `expected at most ${specs.length} positional params, got ${params.length}`,
        );
      }
      for (let i = 0; i < specs.length; i++) {
        const spec = specs[i] as ParamSpec;
        if (i < params.length) out[spec.name] = params[i];
        else if (strict && !spec.optional)
          throw invalidParams(`missing param '${spec.name}'`, { param: spec.name });
      }
      return out;
    }
    const named = (params ?? {}) as Record<string, unknown>;
    if (!strict) return named;
    for (const key in named) {
      if (hasOwn.call(named, key) && !known.has(key))
        throw invalidParams(`unknown param '${key}'`, { param: key });
    }
    for (const spec of specs) {
      if (hasOwn.call(named, spec.name)) out[spec.name] = named[spec.name];
      else if (!spec.optional)
        throw invalidParams(`missing param '${spec.name}'`, { param: spec.name });
    }
    return out;
  };
}

function formatPath(path: StandardSchemaV1.Issue['path']): string {
  if (!path || path.length === 0) return '';
  return path
    .map((seg) => (typeof seg === 'object' && seg !== null ? seg.key : seg))
    .map(String)
    .join('.');
}

/** Turn a Standard Schema result into the value, or an InvalidParamsError naming each issue. */
export function unwrapValidation<T>(result: StandardSchemaV1.Result<T>): T {
  if (result.issues === undefined) return result.value;
  throw new InvalidParamsError('Invalid params', {
    issues: result.issues.map((issue) => ({
      path: formatPath(issue.path),
      message: issue.message,
    })),
  });
}

/** Key order of a zod-style object schema, so positional params can be mapped onto it. */
function schemaKeys(schema: StandardSchemaV1): string[] | undefined {
  const shape = (schema as { shape?: unknown }).shape;
  return typeof shape === 'object' && shape !== null ? Object.keys(shape) : undefined;
}

/**
 * A method whose handler receives params exactly as sent (an array, an object or undefined).
 * The other forms declare param names or a schema; every form's handler gets the call's
 * {@link RequestContext} second and returns the result (or a promise of it). Throw an
 * {@link RpcError} to answer with an error of your own.
 *
 * @example
 * ```ts
 * const server = createJsonRpcServer(
 *   method('echo', (params) => params ?? null),
 *   // [42, 23] or {"minuend": 42, "subtrahend": 23}
 *   method('subtract', ['minuend', 'subtrahend'], ({ minuend, subtrahend }) =>
 *     Number(minuend) - Number(subtrahend),
 *   ),
 *   method('add', z.object({ a: z.number(), b: z.number() }), ({ a, b }) => a + b),
 * );
 * ```
 */
export function method<E = unknown>(
  name: string,
  handler: (params: JsonRpcParams | undefined, ctx: RequestContext<E>) => unknown,
): MethodDefinition<E>;
/**
 * A method with declared parameter names: callers may pass them by position or by name; the
 * handler always receives an object. A name ending in `?` is optional.
 */
export function method<const N extends readonly string[], E = unknown>(
  name: string,
  params: N,
  handler: (params: NamedParams<N>, ctx: RequestContext<E>) => unknown,
): MethodDefinition<E>;
/**
 * A method whose params are validated by a Standard Schema (zod, valibot, arktype …). Positional
 * params are mapped onto an object schema's keys in declaration order.
 */
export function method<S extends StandardSchemaV1, E = unknown>(
  name: string,
  schema: S,
  handler: (params: StandardSchemaV1.InferOutput<S>, ctx: RequestContext<E>) => unknown,
): MethodDefinition<E>;
export function method(
  name: string,
  specOrHandler: unknown,
  maybeHandler?: unknown,
): MethodDefinition<unknown> {
  if (typeof name !== 'string' || name.length === 0)
    throw new TypeError('method name must be a non-empty string');
  if (typeof specOrHandler === 'function') {
    return { name, parseParams: (p) => p, handler: specOrHandler as MethodDefinition['handler'] };
  }
  if (typeof maybeHandler !== 'function')
    throw new TypeError(`method '${name}': handler must be a function`);
  const handler = maybeHandler as MethodDefinition['handler'];

  if (Array.isArray(specOrHandler)) {
    const specs = (specOrHandler as string[]).map((n) =>
      n.endsWith('?') ? { name: n.slice(0, -1), optional: true } : { name: n, optional: false },
    );
    return { name, parseParams: byNames(specs, true), handler };
  }

  const schema = specOrHandler as StandardSchemaV1;
  if (typeof schema !== 'object' || schema === null || !('~standard' in schema)) {
    throw new TypeError(`method '${name}': expected a list of param names or a Standard Schema`);
  }
  const keys = schemaKeys(schema);
  // The schema decides optionality and unknown keys; the names only order positional params.
  const toObject = keys
    ? byNames(
        keys.map((k) => ({ name: k, optional: true })),
        false,
      )
    : undefined;
  const parseParams = (params: JsonRpcParams | undefined): MaybePromise<unknown> => {
    let input: unknown = params ?? {};
    if (Array.isArray(params)) {
      if (!toObject) throw invalidParams('this method takes params by name');
      input = toObject(params);
    }
    const result = schema['~standard'].validate(input);
    return result instanceof Promise ? result.then(unwrapValidation) : unwrapValidation(result);
  };
  return { name, parseParams, handler };
}
