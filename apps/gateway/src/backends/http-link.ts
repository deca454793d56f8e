import {
  type JsonRpcParams,
  type RequestOptions,
  RequestTimeoutError,
  RpcError,
} from '@mcpkit/protocol';
import type { HttpBackendConfig } from '../config.js';
import type { BackendLink, LinkEvents, LinkExit } from './link.js';

type Message = {
  jsonrpc: '2.0';
  id?: string | number | null;
  method?: string;
  params?: Record<string, unknown>;
  result?: unknown;
  error?: { code: number; message: string; data?: unknown };
};

/**
 * A backend reached over Streamable HTTP: each request is a POST answered with JSON or an SSE
 * stream (notifications first, then the response); the session id from initialize is sent back.
 */
export function startHttpLink(config: HttpBackendConfig, events: LinkEvents): BackendLink {
  let sessionId: string | undefined;
  let protocolVersion: string | undefined;
  let nextId = 1;
  let closed = false;
  let resolveExit!: (exit: LinkExit) => void;
  const exited = new Promise<LinkExit>((resolve) => {
    resolveExit = resolve;
  });

  const headers = (): Record<string, string> => ({
    ...config.headers,
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    ...(sessionId ? { 'mcp-session-id': sessionId } : {}),
    ...(protocolVersion ? { 'mcp-protocol-version': protocolVersion } : {}),
  });

  const post = (body: unknown, signal?: AbortSignal) =>
    fetch(config.url, {
      method: 'POST',
      headers: headers(),
      body: JSON.stringify(body),
      ...(signal ? { signal } : {}),
    });

  const handleServerMessage = (message: Message) => {
    if (message.method && message.id === undefined) {
      events.notification(message.method, message.params);
    } else if (message.method && message.id !== undefined) {
      const id = message.id;
      const answer = (body: Record<string, unknown>) =>
        void post({ jsonrpc: '2.0', id, ...body }).catch(() => {});
      if (message.method === 'ping') {
        answer({ result: {} });
      } else if (
        message.method === 'sampling/createMessage' ||
        message.method === 'elicitation/create'
      ) {
        events.request(message.method, message.params).then(
          (result) => answer({ result }),
          (err: unknown) =>
            answer({
              error: RpcError.is(err) ? err.toJSON() : { code: -32603, message: 'Internal error' },
            }),
        );
      } else {
        answer({ error: { code: -32601, message: 'Method not found' } });
      }
    }
  };

  async function readSse(res: Response, id: number): Promise<Message | undefined> {
    if (!res.body) return undefined;
    const decoder = new TextDecoder();
    let buffer = '';
    for await (const chunk of res.body) {
      buffer += decoder.decode(chunk as Uint8Array, { stream: true });
      let end = buffer.indexOf('\n\n');
      while (end !== -1) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const data = block
          .split('\n')
          .filter((l) => l.startsWith('data:'))
          .map((l) => l.slice(5).replace(/^ /, ''))
          .join('\n');
        if (data.trim()) {
          let message: Message;
          try {
            message = JSON.parse(data) as Message;
          } catch {
            events.noise(data);
            end = buffer.indexOf('\n\n');
            continue;
          }
          if (message.id === id && message.method === undefined) return message;
          handleServerMessage(message);
        }
        end = buffer.indexOf('\n\n');
      }
    }
    return undefined;
  }

  return {
    pid: undefined,
    exited,
    async request<R>(
      method: string,
      params?: JsonRpcParams,
      options: RequestOptions = {},
    ): Promise<R> {
      if (closed) throw new Error('link closed');
      const id = nextId++;
      const controller = new AbortController();
      const timeoutMs = options.timeoutMs ?? 0;
      const timer =
        timeoutMs > 0
          ? setTimeout(
              () => controller.abort(new RequestTimeoutError(method, timeoutMs)),
              timeoutMs,
            )
          : undefined;
      const onAbort = () => controller.abort(options.signal?.reason);
      options.signal?.addEventListener('abort', onAbort, { once: true });
      try {
        const res = await post(
          { jsonrpc: '2.0', id, method, ...(params === undefined ? {} : { params }) },
          controller.signal,
        );
        if (method === 'initialize') sessionId = res.headers.get('mcp-session-id') ?? undefined;
        const type = res.headers.get('content-type') ?? '';
        let message: Message | undefined;
        if (type.startsWith('text/event-stream')) message = await readSse(res, id);
        else if (type.startsWith('application/json')) message = (await res.json()) as Message;
        else throw new Error(`backend answered HTTP ${res.status} ${type || '(no content type)'}`);
        if (!message) throw new Error(`backend closed the stream without answering ${method}`);
        if (message.error)
          throw new RpcError(message.error.code, message.error.message, message.error.data);
        if (method === 'initialize') {
          const v = (message.result as { protocolVersion?: unknown }).protocolVersion;
          if (typeof v === 'string') protocolVersion = v;
        }
        return message.result as R;
      } catch (err) {
        if (controller.signal.aborted) {
          // Tell the backend we gave up on it (MCP cancellation).
          void post({
            jsonrpc: '2.0',
            method: 'notifications/cancelled',
            params: { requestId: id },
          }).catch(() => {});
          throw controller.signal.reason ?? err;
        }
        throw err;
      } finally {
        if (timer) clearTimeout(timer);
        options.signal?.removeEventListener('abort', onAbort);
      }
    },
    notify(method, params) {
      void post({ jsonrpc: '2.0', method, ...(params === undefined ? {} : { params }) })
        .then((r) => r.body?.cancel())
        .catch(() => {});
    },
    async close() {
      if (closed) return;
      closed = true;
      if (sessionId) {
        await fetch(config.url, { method: 'DELETE', headers: headers() }).catch(() => {});
      }
      resolveExit({ code: 0, signal: null });
    },
  };
}
