/**
 * A calculator served over stdio: the JSON-RPC methods used by the specification's examples.
 * Run it and type one request per line, e.g. {"jsonrpc":"2.0","method":"subtract","params":[42,23],"id":1}
 */
import {
  createJsonRpcServer,
  InvalidParamsError,
  method,
  serveJsonRpcStdio,
} from '@mcpkit/protocol';
import { createLogger } from '../index.js';

function num(value: unknown, name: string): number {
  if (typeof value !== 'number' || !Number.isFinite(value)) {
    throw new InvalidParamsError('Invalid params', {
      param: name,
      reason: 'must be a finite number',
    });
  }
  return value;
}

function numbers(params: unknown): number[] {
  const values = Array.isArray(params) ? params : Object.values(params ?? {});
  return values.map((v, i) => num(v, String(i)));
}

const log = createLogger({
  name: 'calculator',
  level: (process.env.LOG_LEVEL as 'info') ?? 'info',
});

const calculator = createJsonRpcServer(
  method(
    'subtract',
    ['minuend', 'subtrahend'],
    ({ minuend, subtrahend }) => num(minuend, 'minuend') - num(subtrahend, 'subtrahend'),
  ),
  method('add', ['a', 'b'], ({ a, b }) => num(a, 'a') + num(b, 'b')),
  method('sum', (params) => numbers(params).reduce((acc, n) => acc + n, 0)),
  method('get_data', () => ['hello', 5]),
  method('echo', (params) => params ?? null),
  method('update', (params) => {
    log.info({ params }, 'update');
  }),
  method('notify_hello', (params) => {
    log.info({ params }, 'hello');
  }),
  method('notify_sum', (params) => {
    log.info({ sum: numbers(params).reduce((acc, n) => acc + n, 0) }, 'sum');
  }),
);

if (process.stdin.isTTY) {
  log.info('calculator on stdio: type one JSON-RPC request per line, Ctrl-D to quit');
}
await serveJsonRpcStdio(calculator, { logger: log });
