/**
 * The request metadata headers a client sends over Streamable HTTP (MCP 2026-07-28
 * `basic/transports/streamable-http` §Request Metadata): `Mcp-Method`, `Mcp-Name`, and for a
 * `tools/call` the `Mcp-Param-*` headers its tool declares. Values travel by the spec's Value
 * Encoding, the one encoder the server side uses too (`http/headers.ts`).
 */
import { encodeHeaderValue, paramHeaders } from '../mcp/http-headers.js';
import type { HeaderParam } from '../mcp/tool.js';

export { encodeHeaderValue };

/** Where `Mcp-Name` comes from, per method. */
const NAME_SOURCE: Readonly<Record<string, 'name' | 'uri' | 'taskId'>> = {
  'tools/call': 'name',
  'prompts/get': 'name',
  'resources/read': 'uri',
  // The tasks extension (SEP-2663 §Streamable HTTP: Routing Headers): a task's requests name it.
  'tasks/get': 'taskId',
  'tasks/update': 'taskId',
  'tasks/cancel': 'taskId',
};

/** A tool's `x-mcp-header` declarations, by tool name; undefined for a tool that has none. */
export type ToolHeaderLookup = (tool: string) => readonly HeaderParam[] | undefined;

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The metadata headers of one message: `Mcp-Method` always; `Mcp-Name` for `tools/call`,
 * `prompts/get` and `resources/read` (from `params.name` or `params.uri`) and for the task
 * methods (`params.taskId`); for a `tools/call`
 * whose tool `toolHeaders` knows, an `Mcp-Param-<name>` for each declared argument present.
 */
export function requestHeaders(
  method: string,
  params: Record<string, unknown> | undefined,
  toolHeaders?: ToolHeaderLookup,
): Record<string, string> {
  const headers: Record<string, string> = { 'mcp-method': method };
  const source = NAME_SOURCE[method];
  const name = source === undefined ? undefined : params?.[source];
  if (typeof name !== 'string') return headers;
  headers['mcp-name'] = encodeHeaderValue(name);
  const declared = method === 'tools/call' ? toolHeaders?.(name) : undefined;
  if (declared === undefined || declared.length === 0) return headers;
  const args = isObject(params?.arguments) ? params.arguments : undefined;
  return { ...headers, ...paramHeaders(declared, args) };
}
