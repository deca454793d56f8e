// @mcpkit/protocol/testing: helpers for testing MCP servers built with this package. Not for
// production code: they favour being easy to inspect over being fast.

// A raw JSON-RPC client over an in-memory channel: send frames as text, read replies as text.
export {
  connectRaw,
  type RawMessage,
  type RawPeer,
  type RawPeerOptions,
  type RawReply,
} from './raw.js';
