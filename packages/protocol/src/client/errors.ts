import { hasBrand } from '../jsonrpc/brand.js';

const VERSION_BRAND = Symbol.for('mcpkit.UnsupportedVersionError');
const TRANSPORT_BRAND = Symbol.for('mcpkit.TransportError');

/** The server answered initialize with a protocol version this client does not speak. */
export class UnsupportedVersionError extends Error {
  /** Marks an UnsupportedVersionError from any copy of this package. */
  readonly [VERSION_BRAND] = true;

  constructor(
    /** The version the client asked for. */
    readonly requested: string,
    /** The version the server answered with. */
    readonly offered: string,
  ) {
    super(`server offered protocol version '${offered}', which this client does not speak`);
    this.name = 'UnsupportedVersionError';
  }

  /** Whether `value` is an UnsupportedVersionError, from this copy of the package or another. */
  static is(value: unknown): value is UnsupportedVersionError {
    return hasBrand(value, VERSION_BRAND);
  }
}

/**
 * The transport failed beneath a request: an HTTP status that carries no JSON-RPC answer, a
 * stream that ended without one, a session the server no longer knows.
 */
export class TransportError extends Error {
  /** Marks a TransportError from any copy of this package. */
  readonly [TRANSPORT_BRAND] = true;

  constructor(
    message: string,
    /** The HTTP status, when there was one. */
    readonly status?: number,
  ) {
    super(message);
    this.name = 'TransportError';
  }

  /** Whether `value` is a TransportError, from this copy of the package or another. */
  static is(value: unknown): value is TransportError {
    return hasBrand(value, TRANSPORT_BRAND);
  }
}
