// @mcpkit/protocol/testing: an McpServer's in-process peers over an in-memory transport pair, for
// tests of servers built on the engine (the engine's own among them), and a scripted HTTP
// endpoint for tests of clients. The rest of the kit —
// processes, HTTP, Prometheus, Chromium — is @mcpkit/testing, which re-exports these.
export { type ConnectClientOptions, connectClient } from './client.js';
export {
  connectRaw,
  initializeRequest,
  type RawErrorObject,
  type RawMessage,
  type RawPeer,
  type RawPeerOptions,
  type RawReply,
} from './raw.js';
export {
  answerJson,
  MINIMAL_DISCOVER_RESULT,
  type ScriptedHandler,
  type ScriptedRequest,
  scriptHttp,
  stopScriptedHttp,
} from './scripted-http.js';
