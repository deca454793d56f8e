/**
 * The SDK v2 client's OAuth side for the e2e tests: an OAuthClientProvider that keeps everything
 * in memory and records where it sent the user (the tests play the user's browser).
 */
import type {
  OAuthClientMetadata,
  OAuthClientProvider,
  OAuthDiscoveryState,
  StoredOAuthClientInformation,
  StoredOAuthTokens,
} from '@modelcontextprotocol/client';

/** Nothing listens here: the tests' browsers stop at the redirect to it. */
export const REDIRECT = 'http://127.0.0.1:9/callback';

/** An OAuthClientProvider that keeps everything in memory and records where it sent the user. */
export class MemoryOAuthProvider implements OAuthClientProvider {
  /** Every authorization URL the SDK sent the user to, in order. */
  readonly authorizations: URL[] = [];
  /** Every state handed out, in order. */
  readonly states: string[] = [];
  private info: StoredOAuthClientInformation | undefined;
  private saved: StoredOAuthTokens | undefined;
  private verifier: string | undefined;
  private discovery: OAuthDiscoveryState | undefined;

  get redirectUrl(): string {
    return REDIRECT;
  }
  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'mcpkit e2e (SDK v2)',
      redirect_uris: [REDIRECT],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }
  state(): string {
    const state = `state-${this.states.length + 1}-${Math.random().toString(36).slice(2)}`;
    this.states.push(state);
    return state;
  }
  clientInformation(): StoredOAuthClientInformation | undefined {
    return this.info;
  }
  saveClientInformation(info: StoredOAuthClientInformation): void {
    this.info = info;
  }
  tokens(): StoredOAuthTokens | undefined {
    return this.saved;
  }
  saveTokens(tokens: StoredOAuthTokens): void {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL): void {
    this.authorizations.push(url);
  }
  saveCodeVerifier(verifier: string): void {
    this.verifier = verifier;
  }
  codeVerifier(): string {
    if (!this.verifier) throw new Error('no code verifier saved');
    return this.verifier;
  }
  saveDiscoveryState(state: OAuthDiscoveryState): void {
    this.discovery = state;
  }
  discoveryState(): OAuthDiscoveryState | undefined {
    return this.discovery;
  }
}
