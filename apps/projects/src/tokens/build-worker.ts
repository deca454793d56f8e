/**
 * The worker thread that runs design-token builds (./builder.ts): one build at a time, each
 * message answered by one reply with its id. A build's problem is an answer, not a crash.
 */
import { parentPort } from 'node:worker_threads';
import { buildTokens, TokenBuildError } from './build.js';
import type { BuildReply, BuildRequest } from './builder.js';

const port = parentPort;
if (!port) throw new Error('build-worker.js runs in a worker thread');

port.on('message', async ({ id, doc, platform, options }: BuildRequest) => {
  let reply: BuildReply;
  try {
    reply = { id, ok: true, files: await buildTokens(doc, platform, options) };
  } catch (error) {
    reply = {
      id,
      ok: false,
      message: error instanceof Error ? error.message : String(error),
      ...(TokenBuildError.is(error) && error.path !== undefined ? { path: error.path } : {}),
    };
  }
  port.postMessage(reply);
});
