/**
 * The event log's SQLite connection, in a worker thread: batches are inserted, pruned and queried
 * here, so a flush (a transaction of up to a few thousand rows, a WAL checkpoint with its fsync)
 * never stalls the gateway's event loop. Messages are handled one at a time, in order: a query
 * sent after an append sees its rows. See sqlite-sink.ts for the other side.
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { WorkerReply, WorkerRequest, WorkerSetup } from './sqlite-sink.js';
import { openDatabase, SqliteEventStore } from './sqlite-store.js';

const port = parentPort;
if (!port) throw new Error('sqlite-worker.js runs as a worker thread of the event log');

const setup = workerData as WorkerSetup;
let store: SqliteEventStore | undefined;
let failure: string | undefined;
try {
  store = new SqliteEventStore(openDatabase(setup.path), setup.retentionMs, setup.maxEvents);
} catch (err) {
  failure = `cannot open the event log at ${setup.path}: ${err instanceof Error ? err.message : String(err)}`;
}

function handle(message: WorkerRequest): unknown {
  if (!store) throw new Error(failure ?? 'the event log is closed');
  switch (message.op) {
    case 'append':
      store.insert(message.rows, message.now);
      return undefined;
    case 'query':
      return store.query(message.filter);
    case 'explain':
      return store.explain(message.filter);
    case 'count':
      return store.count();
    case 'prune':
      return store.prune(message.now);
    case 'close': {
      const open = store;
      store = undefined;
      failure = 'the event log is closed';
      try {
        if (message.rows.length > 0) open.insert(message.rows, message.now);
      } finally {
        open.close();
      }
      return undefined;
    }
  }
}

port.on('message', (message: WorkerRequest) => {
  let reply: WorkerReply;
  try {
    reply = { id: message.id, ok: true, value: handle(message) };
  } catch (err) {
    reply = { id: message.id, ok: false, error: err instanceof Error ? err.message : String(err) };
  }
  if (message.op === 'close' && message.done) {
    // closeSync: the main thread is blocked in Atomics.wait and reads no message; 1 = stored.
    const flag = new Int32Array(message.done);
    Atomics.store(flag, 0, reply.ok ? 1 : 2);
    Atomics.notify(flag, 0);
  }
  port.postMessage(reply);
  if (message.op === 'close') port.close();
});
