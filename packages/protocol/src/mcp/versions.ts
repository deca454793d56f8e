/** Protocol revisions this server speaks, newest first. */
export const SUPPORTED_PROTOCOL_VERSIONS = [
  '2025-11-25',
  '2025-06-18',
  '2025-03-26',
  '2024-11-05',
] as const;
/** A protocol revision this package speaks, e.g. `'2025-11-25'`. */
export type ProtocolVersion = (typeof SUPPORTED_PROTOCOL_VERSIONS)[number];
/** The newest revision: what a client asks for and a server offers by default. */
export const LATEST_PROTOCOL_VERSION: ProtocolVersion = SUPPORTED_PROTOCOL_VERSIONS[0];
/** What Streamable HTTP assumes when a request carries no MCP-Protocol-Version header. */
export const DEFAULT_HTTP_PROTOCOL_VERSION: ProtocolVersion = '2025-03-26';

/**
 * The revisions of the modern era (MCP 2026-07-28 and later): no initialize handshake, every
 * request carries its version and the client's capabilities in `_meta` (spec
 * `basic/versioning`). A request claiming one of these is served statelessly beside the
 * sessions of the 2025 era.
 */
export const MODERN_PROTOCOL_VERSIONS = ['2026-07-28'] as const;
/** A modern-era revision this package speaks. */
export type ModernProtocolVersion = (typeof MODERN_PROTOCOL_VERSIONS)[number];

/**
 * Every revision a server of this package serves, modern first: what `server/discover` lists in
 * `supportedVersions` and -32022 in `supported`. A dual-era server names its 2025 revisions too
 * (spec `basic/versioning`'s own example lists `2025-11-25`): a client that picks one of them
 * speaks it through `initialize`.
 */
export const SERVED_PROTOCOL_VERSIONS: readonly string[] = [
  ...MODERN_PROTOCOL_VERSIONS,
  ...SUPPORTED_PROTOCOL_VERSIONS,
];

/** Whether `version` is a modern-era revision this package speaks. */
export function isModernVersion(version: string): version is ModernProtocolVersion {
  return (MODERN_PROTOCOL_VERSIONS as readonly string[]).includes(version);
}

/** Whether this package speaks `version` in the 2025 era (through initialize). */
export function isSupportedVersion(version: string): version is ProtocolVersion {
  return (SUPPORTED_PROTOCOL_VERSIONS as readonly string[]).includes(version);
}

/** Echo the client's version when we speak it; otherwise offer our newest (no error). */
export function negotiateVersion(requested: string): ProtocolVersion {
  return isSupportedVersion(requested) ? requested : LATEST_PROTOCOL_VERSION;
}
