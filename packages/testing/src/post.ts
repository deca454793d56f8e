/** How {@link postJson} sends: credentials, headers, content type, method, deadline. */
export interface PostOptions {
  /** Sent as `Authorization: Bearer <token>`. */
  token?: string;
  /** More headers; they win over the defaults. */
  headers?: Record<string, string>;
  /** Default `application/json`; `''` sends no Content-Type at all. */
  contentType?: string;
  /** Default POST; any other method is sent without a body. */
  method?: string;
  /** Abort the request after this long. Default 10 000 ms. */
  timeoutMs?: number;
}

/** An HTTP answer, read to the end. */
export interface PostReply<B = unknown> {
  /** The HTTP status. */
  status: number;
  /** The response headers. */
  headers: Headers;
  /** The body as sent. */
  text: string;
  /** The body parsed as JSON; undefined when it is empty or not JSON. */
  body: B | undefined;
}

/**
 * POST one JSON-RPC message (or batch, or any text) to a plain JSON-RPC endpoint and read the
 * whole answer: for tests of the wire — status codes, headers, the exact error bodies. A string
 * `message` is sent as is (malformed JSON included); anything else is JSON-encoded.
 *
 * @example
 * ```ts
 * const { status, body } = await postJson(`${url}/`, UPTIME_CALL, { token });
 * expect(status).toBe(200);
 * ```
 */
export async function postJson<B = unknown>(
  url: string | URL,
  message: unknown,
  options: PostOptions = {},
): Promise<PostReply<B>> {
  const method = options.method ?? 'POST';
  const headers: Record<string, string> = {};
  const contentType = options.contentType ?? 'application/json';
  if (contentType !== '') headers['content-type'] = contentType;
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  const res = await fetch(url, {
    method,
    headers: { ...headers, ...options.headers },
    ...(method === 'POST' && message !== undefined
      ? { body: typeof message === 'string' ? message : JSON.stringify(message) }
      : {}),
    signal: AbortSignal.timeout(options.timeoutMs ?? 10_000),
  });
  const text = await res.text();
  let body: B | undefined;
  try {
    body = text ? (JSON.parse(text) as B) : undefined;
  } catch {
    body = undefined;
  }
  return { status: res.status, headers: res.headers, text, body };
}

/** The MCP revision {@link postModernCall} speaks. */
const MODERN = '2026-07-28';

/**
 * POST one stateless 2026-07-28 `tools/call` to a Streamable HTTP endpoint, the way a modern
 * client sends it — the request metadata in `_meta` and in the `Mcp-Protocol-Version`,
 * `Mcp-Method` and `Mcp-Name` headers — and read the whole answer (see {@link postJson}).
 *
 * @example
 * ```ts
 * const { status, headers } = await postModernCall(`${url}/mcp`, 'get_uptime', {}, { token });
 * expect(status).toBe(403);
 * ```
 */
export function postModernCall<B = unknown>(
  url: string | URL,
  name: string,
  args: Record<string, unknown> = {},
  options: PostOptions = {},
): Promise<PostReply<B>> {
  return postJson<B>(
    url,
    {
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: {
        name,
        arguments: args,
        _meta: {
          'io.modelcontextprotocol/protocolVersion': MODERN,
          'io.modelcontextprotocol/clientCapabilities': {},
          'io.modelcontextprotocol/clientInfo': { name: 'mcpkit-test', version: '1' },
        },
      },
    },
    {
      ...options,
      headers: {
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': MODERN,
        'mcp-method': 'tools/call',
        'mcp-name': name,
        ...options.headers,
      },
    },
  );
}
