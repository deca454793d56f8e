import {
  ConnectionClosedError,
  editResultText,
  type GetPromptResult,
  isReservedMetaKey,
  type McpContext,
  McpErrorCode,
  type Prompt,
  type ReadResourceResult,
  RequestTimeoutError,
  type Resource,
  type ResourceTemplate,
  RpcError,
  TransportError,
  UriTemplate,
  withoutReservedMeta,
} from '@mcpkit/protocol';
import type { Backend } from './backends/backend.js';
import { originalUri } from './names.js';

/** Where an advertised name leads: the backend and the name (or URI) it knows. */
export interface Route {
  backend: Backend;
  original: string;
  /**
   * A tool's name on the gateway's own endpoint, where a virtual server lists it under another
   * (rules, quotas and events know a tool by this one).
   */
  key?: string;
}

export type RouteEntry = Route & { entry: Record<string, unknown> };

/*
 * Prompts, resources and templates of a backend as registry entries of the gateway's server:
 * each forwards with the backend's own name, and turns the backend's failures into errors a
 * client can act on.
 */

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The members of a modern result that are the connection's envelope, not the client's. */
const ENVELOPE: ReadonlySet<string> = new Set(['resultType', 'ttlMs', 'cacheScope']);
const ENVELOPE_AND_META: ReadonlySet<string> = new Set([...ENVELOPE, '_meta']);

/**
 * A backend's result as the gateway's own. What a 2026-07-28 backend adds for its hop —
 * `resultType`, cache hints, reserved `_meta` keys such as its server info — is not the
 * client's: a 2025 client must not see them, a modern one gets the gateway's (MCP 2026-07-28,
 * `basic/versioning`: the envelope is per connection). Every other `_meta` key passes; a result
 * without any of them is returned as it came (no copy on the hot path).
 */
export function ownResult<R>(result: R): R {
  if (!isObject(result)) return result;
  const meta = result._meta;
  const reserved = isObject(meta) && Object.keys(meta).some(isReservedMetaKey);
  if (!reserved && !('resultType' in result) && !('ttlMs' in result) && !('cacheScope' in result)) {
    return result;
  }
  const {
    resultType: _type,
    ttlMs: _ttl,
    cacheScope: _scope,
    ...rest
  }: Record<string, unknown> = result;
  // The client's own `_meta` keys, when the backend's hop put reserved ones beside them.
  const kept = reserved ? withoutReservedMeta(meta) : undefined;
  const ownMeta = kept && Object.keys(kept).length > 0 ? kept : undefined;
  if (ownMeta) rest._meta = ownMeta;
  else if (reserved) delete rest._meta;
  // The rest goes out as the backend wrote it (see relayResults in backends/link.ts).
  editResultText(
    result,
    rest,
    reserved ? ENVELOPE_AND_META : ENVELOPE,
    ownMeta && { _meta: ownMeta },
  );
  return rest as R;
}

/** A backend's failure as the client sees it: the backend's own JSON-RPC errors pass through. */
export function clientError(backend: Backend, err: unknown): RpcError {
  if (RpcError.is(err)) return err;
  if (RequestTimeoutError.is(err)) {
    return new RpcError(
      McpErrorCode.ServerError,
      `Backend '${backend.name}' did not answer within ${err.timeoutMs} ms`,
      {
        backend: backend.name,
        timeoutMs: err.timeoutMs,
      },
    );
  }
  // The connection to the backend ended under the call: it exited or closed its end.
  if (ConnectionClosedError.is(err)) {
    return new RpcError(
      McpErrorCode.ServerError,
      `Backend '${backend.name}' exited during the call`,
      {
        backend: backend.name,
        lastError: backend.lastError ?? null,
      },
    );
  }
  // The HTTP exchange with the backend failed (a status without a JSON-RPC answer, a stream that
  // ended without one, a lost session, a refused connection).
  if (TransportError.is(err)) {
    return new RpcError(
      McpErrorCode.ServerError,
      `Backend '${backend.name}' could not be reached: ${err.message}`,
      { backend: backend.name, ...(err.status === undefined ? {} : { status: err.status }) },
    );
  }
  const message = err instanceof Error ? err.message : String(err);
  return new RpcError(McpErrorCode.ServerError, `Backend '${backend.name}' failed: ${message}`, {
    backend: backend.name,
  });
}

export function proxyPrompt(name: string, route: RouteEntry): Prompt {
  const args = Array.isArray(route.entry.arguments)
    ? (route.entry.arguments as { name?: unknown }[])
    : [];
  const complete = Object.fromEntries(
    args
      .map((a) => a.name)
      .filter((n): n is string => typeof n === 'string')
      .map((arg) => [arg, completer(route, { type: 'ref/prompt', name: route.original }, arg)]),
  );
  return {
    name,
    arguments: undefined,
    complete,
    // A backend's scopes guard all it offers, not only its tools.
    requiredScopes: route.backend.config.scopes ?? [],
    listEntry: { ...route.entry, name },
    get: async (args, ctx) => {
      try {
        return ownResult(
          await (await route.backend.via(ctx)).call<GetPromptResult>(
            'prompts/get',
            { name: route.original, arguments: args },
            { cancelledBy: ctx },
          ),
        );
      } catch (err) {
        throw clientError(route.backend, err);
      }
    },
  };
}

export function proxyResource(uri: string, route: RouteEntry): Resource {
  return {
    uri,
    mimeType: undefined,
    requiredScopes: route.backend.config.scopes ?? [],
    listEntry: { ...route.entry, uri },
    read: async (ctx) => {
      try {
        const result = ownResult(
          await (await route.backend.via(ctx)).call<ReadResourceResult>(
            'resources/read',
            { uri: route.original },
            { cancelledBy: ctx },
          ),
        );
        // Contents carry the URI the client asked for.
        return {
          ...result,
          contents: result.contents.map((c) => (c.uri === route.original ? { ...c, uri } : c)),
        };
      } catch (err) {
        throw clientError(route.backend, err);
      }
    },
  };
}

export function proxyTemplate(uriTemplate: string, route: RouteEntry): ResourceTemplate {
  const template = new UriTemplate(uriTemplate);
  const complete = Object.fromEntries(
    template.variableNames.map((variable) => [
      variable,
      completer(route, { type: 'ref/resource', uri: route.original }, variable),
    ]),
  );
  return {
    template,
    requiredScopes: route.backend.config.scopes ?? [],
    name: typeof route.entry.name === 'string' ? route.entry.name : uriTemplate,
    listEntry: { ...route.entry, uriTemplate },
    list: undefined,
    complete,
    mimeType: undefined,
    read: async (uri, _vars, ctx) => {
      // A rewritten template (a second backend's copy) expands to rewritten URIs.
      const rewritten = uriTemplate !== route.original;
      const original = rewritten
        ? originalUri(uri, route.backend.namespace || route.backend.name)
        : uri;
      try {
        const result = ownResult(
          await (await route.backend.via(ctx)).call<ReadResourceResult>(
            'resources/read',
            { uri: original },
            { cancelledBy: ctx },
          ),
        );
        if (!rewritten) return result;
        // Contents carry the URI the client asked for.
        return {
          ...result,
          contents: result.contents.map((c) => (c.uri === original ? { ...c, uri } : c)),
        };
      } catch (err) {
        throw clientError(route.backend, err);
      }
    },
  };
}

/** completion/complete forwarded to the backend, for one argument of a prompt or template. */
export function completer(route: Route, ref: Record<string, string>, argument: string) {
  return async (value: string, ctx: McpContext, context: Readonly<Record<string, string>>) => {
    if (!route.backend.discovered?.capabilities.completions) return [];
    const result = await (await route.backend.via(ctx)).call<{ completion?: { values?: unknown } }>(
      'completion/complete',
      { ref, argument: { name: argument, value }, context: { arguments: context } },
      { cancelledBy: ctx },
    );
    const values = result.completion?.values;
    return Array.isArray(values) ? values.filter((v): v is string => typeof v === 'string') : [];
  };
}
