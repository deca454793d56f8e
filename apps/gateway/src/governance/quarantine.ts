/**
 * The gateway's side of pinned tool definitions: which of a backend's tools its registry may
 * list (see pins.ts), what is held back and why (for gateway_status, a call's error and the
 * event log), and an operator's approval.
 */
import { ErrorCode, RpcError } from '@mcpkit/protocol';
import type { Backend } from '../backends/backend.js';
import type { GatewayConfig } from '../config.js';
import type { EventLog } from '../events.js';
import { advertisedName } from '../names.js';
import { type PinMode, type PinRows, type Quarantined, SqlitePinRows, ToolPins } from './pins.js';

/**
 * Where approved definitions are kept: a file, memory (for the process's life), or rows already
 * open (a fleet's PostgreSQL table, see postgres-pins.ts).
 */
export type PinsLocation = string | ':memory:' | PinRows;

/** The held-back tools of every backend, and the pins they are held to. */
export class ToolQuarantine {
  readonly #location: PinsLocation;
  readonly #events: EventLog;
  readonly #source: string;
  #pins: ToolPins | undefined;
  /** Held-back tools by backend name. */
  readonly #held = new Map<string, Quarantined[]>();

  /** `changed`: another instance changed a backend's approvals (the lists must be rebuilt). */
  constructor(
    location: PinsLocation,
    events: EventLog,
    source: string,
    changed?: (backend: string) => void,
  ) {
    this.#location = location;
    this.#events = events;
    this.#source = source;
    if (typeof location !== 'string') {
      this.#pins = new ToolPins(location);
      if (changed) location.watch?.(changed);
    }
  }

  /**
   * The entries of `backend`'s tools that may be listed and called; the rest are held back.
   * Opens the pins file the first time a backend is pinned.
   */
  allowed<E extends Readonly<Record<string, unknown>>>(backend: Backend, tools: readonly E[]): E[] {
    const mode: PinMode = backend.config.pin ?? 'off';
    if (mode === 'off') {
      this.#held.delete(backend.name);
      return [...tools];
    }
    this.#pins ??= new ToolPins(new SqlitePinRows(this.#location as string));
    const review = this.#pins.review(backend.name, mode, tools);
    this.#held.set(backend.name, review.quarantined);
    for (const { type, detail } of review.news) {
      this.#events.record({
        event_type: type,
        status: type === 'tool.pinned' ? 'success' : 'failure',
        source: this.#source,
        backend: backend.name,
        tool: detail.tool,
        data: {
          mode,
          reason: detail.reason,
          fields: detail.fields,
          ...(typeof detail.approved?.description === 'string'
            ? { approved_description: detail.approved.description.slice(0, 2000) }
            : {}),
          ...(typeof detail.offered.description === 'string'
            ? { offered_description: detail.offered.description.slice(0, 2000) }
            : {}),
        },
      });
    }
    return tools.filter((t) => typeof t.name === 'string' && review.allowed.has(t.name));
  }

  /** What `backend` holds back now. */
  held(backend: string): readonly Quarantined[] {
    return this.#held.get(backend) ?? [];
  }

  /** The held-back tool of `backend` named `tool`, if it is. */
  find(backend: string, tool: string): Quarantined | undefined {
    return this.#held.get(backend)?.find((q) => q.tool === tool);
  }

  /**
   * The error of a call to `name` (an advertised name) when it is a held-back tool: said as
   * such, not "not found", with what changed — so the person asks an operator, not retries.
   */
  refusal(
    name: string,
    backends: Iterable<Backend>,
    mode: GatewayConfig['gateway']['tool_names'],
  ): RpcError | undefined {
    for (const backend of backends) {
      for (const held of this.held(backend.name)) {
        if (advertisedName(backend.namespace, held.tool, mode) !== name) continue;
        const what =
          held.reason === 'new'
            ? 'has not been approved'
            : `changed since it was approved (${held.fields.join(', ')})`;
        return new RpcError(
          ErrorCode.MethodNotFound,
          `Tool ${name} is quarantined: its definition ${what}; an operator approves it with approve_tool`,
          { backend: backend.name, tool: held.tool, quarantined: true, fields: held.fields },
        );
      }
    }
    return undefined;
  }

  /**
   * Approve what `backend` offers now for its held-back `tool` (or all of them): they are listed
   * at the next registry rebuild. The names approved.
   */
  approve(backend: Backend, by: string, tool?: string): string[] {
    const held = this.held(backend.name).filter((q) => tool === undefined || q.tool === tool);
    if (held.length === 0 || !this.#pins) return [];
    const approved = this.#pins.approve(
      backend.name,
      held.map((q) => q.offered),
    );
    for (const name of approved) {
      this.#events.record({
        event_type: 'tool.approved',
        status: 'success',
        source: this.#source,
        backend: backend.name,
        tool: name,
        data: { by },
      });
    }
    return approved;
  }

  close(): void | Promise<void> {
    return this.#pins?.close();
  }
}
