/**
 * A person has not connected a backend that needs their own credential: the call answers with
 * a URL elicitation (MCP 2025-11-25 `client/elicitation` §URL Mode: error -32042 with
 * `data.elicitations`) pointing at the gateway's connect page. A 2026-07-28 client is asked the
 * same through an input request (url-elicitation.ts turns one into the other), and retries.
 */
import { createHash } from 'node:crypto';
import { hasBrand, RpcError } from '@mcpkit/protocol';

/** MCP 2025-11-25: URLElicitationRequiredError. */
const URL_ELICITATION_REQUIRED = -32042;
const NEEDS_CONNECT = Symbol.for('mcpkit.gateway.NeedsConnect');

/** Thrown inside a person's link when its grant cannot be used and they must connect again. */
export class NeedsConnect extends Error {
  /** Marks one from any copy of this package. */
  readonly [NEEDS_CONNECT] = true;
  /** Whether `value` is one, from any copy of this package. */
  static is(value: unknown): value is NeedsConnect {
    return hasBrand(value, NEEDS_CONNECT);
  }
  constructor(readonly backend: string) {
    super(`the sign-in at ${backend} must be done again`);
    this.name = 'NeedsConnect';
  }
}

/**
 * The id of `subject`'s connect elicitation for `backend`: the same for every call until they
 * connect, so a 2026-07-28 client's retry answers the request it was asked (and any instance of
 * a fleet makes the same one). Not a secret: the page checks who is signed in.
 */
export function connectElicitationId(backend: string, subject: string): string {
  const digest = createHash('sha256').update(`${backend}\0${subject}`).digest('base64url');
  return `connect-${backend}-${digest.slice(0, 16)}`;
}

/** The -32042 error that sends `subject` to `url` to connect `backend`. */
export function connectRequired(
  backend: string,
  subject: string,
  url: string,
  message: string,
): RpcError {
  return new RpcError(URL_ELICITATION_REQUIRED, message, {
    elicitations: [
      { mode: 'url', elicitationId: connectElicitationId(backend, subject), url, message },
    ],
  });
}
