import { Dispatcher, type DispatcherOptions } from './dispatcher.js';
import type { MethodDefinition } from './method.js';

/**
 * A JSON-RPC server (a dispatcher, no MCP) built from named methods, the way the Python JSON-RPC
 * tutorial's `Server(Method('add', add), …)` builds one.
 *
 * @example
 * ```ts
 * const server = createJsonRpcServer(
 *   method('add', ['a', 'b'], ({ a, b }) => Number(a) + Number(b)),
 *   method('subtract', ['minuend', 'subtrahend'], ({ minuend, subtrahend }) =>
 *     Number(minuend) - Number(subtrahend),
 *   ),
 * );
 * await serveJsonRpcStdio(server);
 * ```
 */
export function createJsonRpcServer<E = unknown>(...methods: MethodDefinition<E>[]): Dispatcher<E> {
  return new Dispatcher<E>().register(...methods);
}

/** `createJsonRpcServer` with dispatcher options (batch limit, logger …). */
export function createJsonRpcServerWith<E = unknown>(
  options: DispatcherOptions,
  ...methods: MethodDefinition<E>[]
): Dispatcher<E> {
  return new Dispatcher<E>(options).register(...methods);
}
