import { Dispatcher, type DispatcherOptions } from './dispatcher.js';
import type { MethodDefinition } from './method.js';

/**
 * A JSON-RPC server built from named methods, in the spirit of `Server(Method('add', add), …)`:
 *
 *     const server = createServer(
 *       method('add', ['a', 'b'], ({ a, b }) => Number(a) + Number(b)),
 *       method('subtract', ['minuend', 'subtrahend'], ({ minuend, subtrahend }) => …),
 *     );
 *     await serveStdio(server);
 */
export function createServer<E = unknown>(...methods: MethodDefinition<E>[]): Dispatcher<E> {
  return new Dispatcher<E>().register(...methods);
}

export function createServerWith<E = unknown>(
  options: DispatcherOptions,
  ...methods: MethodDefinition<E>[]
): Dispatcher<E> {
  return new Dispatcher<E>(options).register(...methods);
}
