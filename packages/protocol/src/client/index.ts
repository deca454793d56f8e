// The client half of MCP: McpClient and the transports it speaks over.
export {
  type CallOptions,
  type ClientHandlers,
  type ListenOptions,
  McpClient,
  type McpClientOptions,
  type McpRequestOptions,
  type NotificationListener,
  type ServerRequestContext,
  type Subscription,
  type TaskHandling,
} from './client.js';
export {
  InputRequiredError,
  TaskCancelledError,
  TransportError,
  UnsupportedInEraError,
  UnsupportedVersionError,
} from './errors.js';
// Sign-in the MCP way (OAuth 2.1): discovery, registration, PKCE, tokens.
export {
  AuthorizationServerDiscoveryError,
  type AuthorizationServerMetadata,
  authorizationServerMetadataUrls,
  type DiscoveryOptions,
  discoverAuthorizationServer,
  loopbackHttpAllowed,
} from './oauth/discovery.js';
export {
  MemoryOAuthStore,
  OAuthClient,
  type OAuthClientOptions,
  type OAuthClientRegistration,
  OAuthFlowError,
  type OAuthStore,
  type OAuthTokens,
  type PendingSignIn,
} from './oauth/oauth-client.js';
export {
  defaultServerEnv,
  type ProcessExit,
  type StdioClientOptions,
  StdioClientTransport,
} from './stdio.js';
export {
  type ReconnectOptions,
  type StreamableHttpClientOptions,
  StreamableHttpClientTransport,
} from './streamable-http.js';
export type { AwaitTaskOptions } from './tasks.js';
export type { ClientTransport } from './transport.js';
export type * from './types.js';
