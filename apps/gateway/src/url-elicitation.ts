import { type CallToolResult, type McpContext, RpcError } from '@mcpkit/protocol';

/** URL elicitation required: a 2025-11-25 server's way to send the user to a URL mid-call. */
const URL_ELICITATION_REQUIRED = -32042;
/** The input-request keys of URLs the gateway asks for: `gateway.url.<elicitationId>`. */
const KEY_PREFIX = 'gateway.url.';
/** At most this many URLs of one error are put to the client (the rest are dropped). */
const MAX_URLS = 8;

/** One URL a backend asks the user to open (`data.elicitations[]` of its -32042). */
interface UrlElicitation {
  elicitationId: string;
  url: string;
  message: string;
}

/** The URL elicitations of a -32042 error; undefined for any other error or a malformed one. */
export function urlElicitationsOf(err: unknown): UrlElicitation[] | undefined {
  if (!RpcError.is(err) || err.code !== URL_ELICITATION_REQUIRED) return undefined;
  const data = err.data as { elicitations?: unknown } | undefined;
  if (typeof data !== 'object' || data === null || !Array.isArray(data.elicitations)) {
    return undefined;
  }
  const found: UrlElicitation[] = [];
  for (const e of data.elicitations.slice(0, MAX_URLS)) {
    const { mode, elicitationId, url, message } = (e ?? {}) as Record<string, unknown>;
    if (mode !== 'url' || typeof elicitationId !== 'string' || typeof message !== 'string') {
      continue;
    }
    if (typeof url !== 'string' || !URL.canParse(url)) continue;
    found.push({ elicitationId, url, message });
  }
  return found.length > 0 ? found : undefined;
}

/**
 * A 2025 backend's -32042 for a 2026-07-28 client, which must not hear that code (its
 * `basic/index` §Error Codes): each URL becomes an `elicitation/create` input request in URL
 * mode (2026-07-28 `client/elicitation` §URL Mode Flow), and the retry that says the user went
 * there calls the backend again — what a 2025-11-25 client does after the URL interaction ("the
 * client retries the original request"; a refusal is {@link refusedUrls}). A client that cannot
 * open URLs, or a backend that asks again for a URL the user already accepted, gets the
 * backend's error (sent as -32603).
 */
export async function askForUrls(
  err: unknown,
  elicitations: readonly UrlElicitation[],
  ctx: McpContext,
): Promise<CallToolResult> {
  let answers: { action?: unknown }[];
  try {
    answers = await Promise.all(
      elicitations.map(({ elicitationId, url, message }) =>
        ctx.elicit(
          { mode: 'url', elicitationId, url, message },
          { key: `${KEY_PREFIX}${elicitationId}` },
        ),
      ),
    );
  } catch (asked) {
    // Not answerable by this client: the backend's own error. Otherwise the asks are open and
    // this round's answer is input_required, whatever is thrown.
    throw RpcError.is(asked) ? err : asked;
  }
  const refused = elicitations.filter((_, i) => answers[i]?.action !== 'accept');
  if (refused.length === 0) throw err;
  return notCompleted(refused.map((e) => e.elicitationId));
}

/**
 * A retry whose answers decline or cancel a URL this gateway asked for: the call ends here, as a
 * tool error the model can read, without calling the backend again (a 2025-11-25 client does not
 * retry a request whose URL interaction the user refused). Undefined otherwise.
 */
export function refusedUrls(ctx: McpContext): CallToolResult | undefined {
  const refused: string[] = [];
  for (const [key, answer] of Object.entries(ctx.inputResponses)) {
    if (!key.startsWith(KEY_PREFIX)) continue;
    if ((answer as { action?: unknown } | null)?.action !== 'accept') {
      refused.push(key.slice(KEY_PREFIX.length));
    }
  }
  return refused.length > 0 ? notCompleted(refused) : undefined;
}

function notCompleted(elicitationIds: readonly string[]): CallToolResult {
  return {
    content: [
      {
        type: 'text',
        text: `The user did not complete the URL interaction the tool needs (${elicitationIds.join(', ')}); the tool did not run.`,
      },
    ],
    isError: true,
  };
}
