// @mcpkit/testing: the shared kit for testing MCP servers built with this package — and
// for benchmarking them. Not for production code: it favours being easy to inspect over being
// fast. One concern per module:

// In-process: an McpClient, or a raw JSON-RPC peer, on `server.connect()` over an in-memory pair.
export {
  type ConnectClientOptions,
  connectClient,
  connectRaw,
  initializeRequest,
  type RawErrorObject,
  type RawMessage,
  type RawPeer,
  type RawPeerOptions,
  type RawReply,
} from '@mcpkit/protocol/testing';
// OAuth: a real authorization server (oidc-provider) on 127.0.0.1, to mint and forge tokens.
export {
  type AuthorizationServerOptions,
  startAuthorizationServer,
  type TestAuthorizationServer,
} from './authorization-server.js';
// Headless Chromium for browser tests (Playwright's launch options; no Playwright dependency).
export {
  CHROMIUM_PATH,
  type ChromiumLaunchOptions,
  chromiumLaunchOptions,
  haveChromium,
  type PngStats,
  pngStats,
  requireChromium,
} from './browser.js';
// The MCP Registry's contracts (server.json schema, registry API), and a CLI's --help options.
export { type CliHelpOption, parseCliHelp } from './cli-help.js';
// A person's browser at an authorization server's sign-in and consent forms.
export { type FormBrowser, formBrowser } from './form-browser.js';
// HTTP: a server in a child process; plain JSON-RPC POSTs read to the end (an McpServer on a
// free port in this process is @mcpkit/node's `serveHttp`).
export { type HttpProcess, type HttpProcessOptions, spawnHttpServer } from './http-process.js';
// A child's memory (/proc), after a full GC; a raw listen to hold a stream open.
export { GC_ON_SIGNAL, procMemoryMb, rssAfterGc } from './memory.js';
export { freePort } from './ports.js';
export { type PostOptions, type PostReply, postJson, postModernCall } from './post.js';
export { isAlive, killGroup, killSpawned, waitGone } from './processes.js';
// Prometheus: a strict parser of the text format, to test a /metrics endpoint.
export {
  type PromFamily,
  type PromSample,
  parsePrometheusText,
  sampleValue,
} from './prometheus.js';
export { seededRandom } from './random.js';
export { openRawListen } from './raw-listen.js';
export { type RawProcess, spawnRaw } from './raw-process.js';
export {
  registryResponseProblems,
  SERVER_JSON_SCHEMA,
  serverJsonProblems,
} from './registry.js';
export { type RunOptions, type RunResult, runProcess } from './run.js';
export {
  connectSignedIn,
  SIGN_IN_REDIRECT,
  type SignedInOptions,
  signInAs,
} from './sign-in-client.js';
export type { ProcessOptions } from './spawn.js';
// Child processes: a server with an McpClient on its stdio, raw stdio, HTTP, run-to-completion.
export { type SpawnedServer, type SpawnServerOptions, spawnServer } from './stdio-server.js';
export { runSteps } from './steps.js';
export { removeTempDirs, tempDir } from './temp.js';
// Waiting, scratch space and repeatable data.
export { sleep, TimeoutError, waitFor, within } from './wait.js';
// MCP on the wire: a message checked against the published JSON schema of its revision.
export {
  connectWire,
  type WireClient,
  type WireClientOptions,
  type WireEra,
  type WireReply,
} from './wire-client.js';
export { type SchemaRevision, schemaProblems, wireProblems } from './wire-schema.js';
