import { ErrorCode, McpErrorCode, RpcError, ToolError } from '@mcpkit/protocol';
import { z } from 'zod';
import type { AlertEngine } from '../alerts/engine.js';
import { formatDuration, parseDuration } from '../history/duration.js';
import type { History } from '../history/history.js';
import type { Collectors } from '../sampler/collectors.js';
import type { Sample, Sampler } from '../sampler/sampler.js';

export type SystemSampler = Sampler<Collectors>;

export interface ToolDeps {
  sampler: SystemSampler;
  /** The recorded past: what the history tools query. */
  history: History;
  /** The alert rules and their alerts. */
  alerts: AlertEngine;
}

/** A window or step as the tools take it: `90s`, `10m`, `6h`, `2d`. */
export const duration = z
  .string()
  .regex(/^\d{1,6}[smhd]$/, 'a whole number and a unit: 90s, 10m, 6h, 2d')
  .refine((v) => parseDuration(v) !== undefined, 'must be more than zero');

/** A duration the schema already checked, in ms. */
export const durationMs = (v: string): number => parseDuration(v) as number;

/**
 * A window the schema already checked, in ms — or a tool error (the model can pick a shorter
 * one) when it reaches back further than the history keeps.
 */
export function windowWithin(deps: ToolDeps, window: string): number {
  const ms = durationMs(window);
  if (ms > deps.history.retentionMs) {
    const retention = formatDuration(deps.history.retentionMs);
    throw new ToolError(`The window ${window} is longer than the history keeps (${retention})`, {
      window,
      retention,
    });
  }
  return ms;
}

/** MCP System Info's -32000 "Query execution error": a collector failed. */
export const QUERY_EXECUTION_ERROR = McpErrorCode.ServerError;

/**
 * An error as a 2026-07-28 request hears it (`McpServerOptions.errors.modernEra`). MCP System
 * Info's -32000 is that API's contract, kept in 2025 sessions; 2026-07-28 (`basic/index` §Error
 * Codes) says implementations SHOULD NOT use -32000…-32019, and a collector that failed is the
 * server's internal error (-32603, as the spec's resources page names it). Message and data stay.
 * The scope refusal (-32600) is a JSON-RPC code already and passes as it is.
 */
export function modernError(error: RpcError): RpcError {
  return error.code === QUERY_EXECUTION_ERROR
    ? new RpcError(ErrorCode.InternalError, error.message, error.data, { cause: error })
    : error;
}

/** A collector's failure as a line of text: what "Query execution error: …" goes on with. */
export const reasonOf = (err: unknown): string =>
  err instanceof Error ? err.message : String(err);

/**
 * A sample, or MCP System Info's "Query execution error: …" when the collector fails. The
 * collector's own error is the RpcError's `cause`, so a tool can tell a timeout from a failure by
 * its class.
 */
export async function query<K extends keyof Collectors>(
  deps: ToolDeps,
  key: K,
): Promise<Sample<Awaited<ReturnType<Collectors[K]>>>> {
  try {
    return await deps.sampler.get(key);
  } catch (err) {
    throw new RpcError(
      QUERY_EXECUTION_ERROR,
      `Query execution error: ${reasonOf(err)}`,
      { collector: key },
      { cause: err },
    );
  }
}

/** What made a {@link query} fail: the collector's own error, or `err` itself if not a query's. */
export const queryCause = (err: unknown): unknown =>
  RpcError.is(err) && 'cause' in err ? err.cause : err;

export const sampledAt = z.string().describe('When the data was collected (ISO 8601)');
export const unavailableReason = z
  .string()
  .nullable()
  .describe('Why values are null: what this machine cannot tell');

export const CORE = ['core'] as const;
export const SENSITIVE = ['sensitive'] as const;
export const READ_ONLY = {
  readOnlyHint: true,
  idempotentHint: true,
  openWorldHint: false,
} as const;

export const round = (n: number | null, digits = 1): number | null =>
  n === null ? null : Math.round(n * 10 ** digits) / 10 ** digits;
