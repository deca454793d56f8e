/**
 * An McpClient signed in to an MCP server that is (or fronts) an OAuth authorization server with
 * HTML sign-in pages — the gateway in authorization-server mode — from its MCP URL alone, as a
 * person would: McpClient's OAuthClient, and a browser ({@link formBrowser}) filling the forms.
 */
import {
  McpClient,
  type McpClientOptions,
  MemoryOAuthStore,
  OAuthClient,
  type OAuthStore,
  StreamableHttpClientTransport,
} from '@mcpkit/protocol';
import { type FormBrowser, formBrowser } from './form-browser.js';

/** Where the sign-in tests' clients are sent back to: nothing listens, their browser stops there. */
export const SIGN_IN_REDIRECT = 'http://127.0.0.1:9/callback';

/** How {@link connectSignedIn} connects, and where it shows what happened. */
export interface SignedInOptions {
  /** McpClient's era choice. Default its own. */
  protocol?: 'auto' | 'legacy';
  /** Where the client keeps its registration and tokens. Default a fresh memory store. */
  store?: OAuthStore;
  /** Every page the person was shown, appended in order (also when sign-in fails). */
  pages?: string[];
  /** More of McpClient's options (handlers, capabilities). */
  client?: Omit<McpClientOptions, 'protocol'>;
}

/**
 * McpClient connected to a gateway that is its own authorization server, signed in from the
 * MCP URL alone: McpClient's OAuthClient, and a person's browser (`formBrowser`) filling the
 * gateway's forms with `answer`. Also the authorization URLs the client sent the person to, and
 * the browser (its cookies: the person's session at the server, for their other pages).
 *
 * @example
 * ```ts
 * const { client, browser } = await connectSignedIn(`${url}/mcp`, (html) =>
 *   html.includes('name="password"') ? { username: 'alice', password } : { decision: 'allow' },
 * );
 * ```
 */
export async function connectSignedIn(
  mcpUrl: string,
  answer: (html: string, url: URL) => Record<string, string>,
  options: SignedInOptions = {},
): Promise<{ client: McpClient; asked: URL[]; store: OAuthStore; browser: FormBrowser }> {
  const store = options.store ?? new MemoryOAuthStore();
  const asked: URL[] = [];
  const browser = formBrowser(SIGN_IN_REDIRECT, answer);
  const oauth = new OAuthClient({
    redirectUri: SIGN_IN_REDIRECT,
    authorize: async (url) => {
      asked.push(url);
      try {
        return await browser.visit(url);
      } finally {
        options.pages?.push(...browser.pages.splice(0));
      }
    },
    store,
  });
  const client = await McpClient.connect(
    new StreamableHttpClientTransport({ url: mcpUrl, oauth }),
    {
      ...options.client,
      ...(options.protocol ? { protocol: options.protocol } : {}),
    },
  );
  return { client, asked, store, browser };
}

/**
 * A person's answers at a sign-in page with a password form and a consent page: their name and
 * password where there is a password field, Allow elsewhere.
 */
export function signInAs(
  username: string,
  password: string,
): (html: string) => Record<string, string> {
  return (html): Record<string, string> =>
    html.includes('name="password"') ? { username, password } : { decision: 'allow' };
}
