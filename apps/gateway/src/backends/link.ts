import type { JsonRpcParams, RequestOptions } from '@mcpkit/protocol';

export interface LinkExit {
  code: number | null;
  signal: string | null;
  error?: string;
}

/** A live connection to one started backend, stdio or HTTP. */
export interface BackendLink {
  readonly pid: number | undefined;
  request<R = unknown>(
    method: string,
    params?: JsonRpcParams,
    options?: RequestOptions,
  ): Promise<R>;
  notify(method: string, params?: JsonRpcParams): void;
  /** Resolves once, when the backend is gone (exit, crash, closed connection). */
  readonly exited: Promise<LinkExit>;
  /** Stop the backend and reap it; resolves when it is gone. */
  close(): Promise<void>;
}

export interface LinkEvents {
  notification(method: string, params: Record<string, unknown> | undefined): void;
  /** A request the backend sends the gateway (sampling, elicitation): resolves to its result. */
  request(method: string, params: Record<string, unknown> | undefined): Promise<unknown>;
  /** A line on stdout that is not JSON-RPC (a banner, a stray print). */
  noise(text: string): void;
  stderr(text: string): void;
}

/** Keeps the last `max` lines of a backend's stderr. */
export class RingBuffer {
  readonly #lines: string[] = [];
  #partial = '';
  constructor(readonly max = 200) {}

  push(chunk: string): void {
    const parts = (this.#partial + chunk).split('\n');
    this.#partial = parts.pop() ?? '';
    // A single runaway line is cut, not kept whole.
    if (this.#partial.length > 8192) this.#partial = this.#partial.slice(-8192);
    for (const line of parts) {
      this.#lines.push(line.length > 2000 ? `${line.slice(0, 2000)}…` : line);
      if (this.#lines.length > this.max) this.#lines.shift();
    }
  }

  tail(n = 20): string[] {
    const lines = this.#partial ? [...this.#lines, this.#partial] : this.#lines;
    return lines.slice(-n);
  }
}
