/**
 * What a server sends, checked against the published JSON schema of the MCP revision it speaks
 * (`schema/<revision>/schema.json` of the spec repository, vendored in this package's `schema/`):
 * a reply by the result type of the method it answers, a notification or server request by the
 * revision's `ServerNotification` / `ServerRequest`, an error by `JSONRPCErrorResponse` — and,
 * for 2026-07-28, its code by that revision's rules (`basic/index` §Error Codes), which a schema
 * cannot say. Compiling both schemas takes a few hundred milliseconds, once per process.
 */
import { readFileSync } from 'node:fs';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';

/** The MCP revisions whose published schema the kit carries: the 2025 era's last, and 2026-07-28. */
export type SchemaRevision = '2025-11-25' | '2026-07-28';

/** The schema definition a result of each method must match (both revisions name them alike). */
const RESULT_OF: Readonly<Record<string, string>> = {
  initialize: 'InitializeResult',
  'server/discover': 'DiscoverResult',
  ping: 'EmptyResult',
  'logging/setLevel': 'EmptyResult',
  'tools/list': 'ListToolsResult',
  'tools/call': 'CallToolResult',
  'resources/list': 'ListResourcesResult',
  'resources/templates/list': 'ListResourceTemplatesResult',
  'resources/read': 'ReadResourceResult',
  'resources/subscribe': 'EmptyResult',
  'resources/unsubscribe': 'EmptyResult',
  'subscriptions/listen': 'SubscriptionsListenResult',
  'prompts/list': 'ListPromptsResult',
  'prompts/get': 'GetPromptResult',
  'completion/complete': 'CompleteResult',
};

/**
 * 2026-07-28 `basic/index` §Error Codes: -32020…-32099 are the spec's (only those it defines),
 * -32002 and -32042 of earlier revisions MUST NOT be emitted, and -32000…-32019 are legacy that
 * implementations SHOULD NOT use.
 */
const MODERN_DEFINED = new Set([-32020, -32021, -32022]);
const MODERN_FORBIDDEN = new Set([-32002, -32042]);

function modernCodeProblem(code: unknown): string | undefined {
  if (typeof code !== 'number') return undefined;
  if (MODERN_FORBIDDEN.has(code)) return `error code ${code} must not be emitted in 2026-07-28`;
  if (code >= -32019 && code <= -32000)
    return `error code ${code} is in the legacy range -32000…-32019 (2026-07-28: SHOULD NOT use)`;
  if (code >= -32099 && code <= -32020 && !MODERN_DEFINED.has(code))
    return `error code ${code} is reserved for the MCP specification and not defined by it`;
  return undefined;
}

interface Compiled {
  readonly ajv: Ajv2020;
  readonly validators: Map<string, ValidateFunction>;
}

const compiled = new Map<SchemaRevision, Compiled>();

function schemaOf(revision: SchemaRevision): Compiled {
  let entry = compiled.get(revision);
  if (!entry) {
    const file = new URL(`../schema/mcp-${revision}.json`, import.meta.url);
    const schema = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
    // Not strict: the published schema carries keywords ajv does not know (descriptions of
    // TypeScript origin); formats on, so `uri` and `uri-template` are checked.
    const ajv = new Ajv2020({ allErrors: true, strict: false });
    addFormats.default(ajv);
    ajv.addSchema({ ...schema, $id: `mcp:${revision}` });
    entry = { ajv, validators: new Map() };
    compiled.set(revision, entry);
  }
  return entry;
}

/** Problems of `value` as the definition `name` of the revision's schema; [] when it fits. */
export function schemaProblems(revision: SchemaRevision, name: string, value: unknown): string[] {
  const { ajv, validators } = schemaOf(revision);
  let validate = validators.get(name);
  if (!validate) {
    validate = ajv.getSchema(`mcp:${revision}#/$defs/${name}`);
    if (!validate) throw new Error(`the ${revision} schema has no definition ${name}`);
    validators.set(name, validate);
  }
  if (validate(value)) return [];
  return (validate.errors ?? []).map(
    (e) => `${name}${e.instancePath || ''}: ${e.message ?? e.keyword} ${JSON.stringify(e.params)}`,
  );
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Problems of one message a server sent, by the schema of `revision`; [] when it is valid.
 * `message` is the parsed message or its text (a batch: each element). `method` is the method of
 * the request a reply answers: its result is checked against that method's result type (without
 * it, against the generic `Result`).
 *
 * @example
 * ```ts
 * const reply = await peer.send({ jsonrpc: '2.0', id: 1, method: 'resources/list' });
 * expect(wireProblems('2025-11-25', reply, 'resources/list')).toEqual([]);
 * ```
 */
export function wireProblems(
  revision: SchemaRevision,
  message: unknown,
  method?: string,
): string[] {
  const parsed: unknown = typeof message === 'string' ? JSON.parse(message) : message;
  if (Array.isArray(parsed)) return parsed.flatMap((m) => wireProblems(revision, m, method));
  if (!isObject(parsed)) return [`not a JSON-RPC message: ${JSON.stringify(parsed)}`];
  if ('method' in parsed) {
    // The modern era has no server-to-client requests: asks travel in input_required results.
    if (revision === '2026-07-28' && 'id' in parsed)
      return [`a 2026-07-28 server sends no requests: ${String(parsed.method)}`];
    const envelope = 'id' in parsed ? 'JSONRPCRequest' : 'JSONRPCNotification';
    const kind = 'id' in parsed ? 'ServerRequest' : 'ServerNotification';
    return [
      ...schemaProblems(revision, envelope, parsed),
      ...schemaProblems(revision, kind, parsed),
    ];
  }
  if ('error' in parsed) {
    const problems = schemaProblems(revision, 'JSONRPCErrorResponse', parsed);
    const code = isObject(parsed.error) ? parsed.error.code : undefined;
    const rule = revision === '2026-07-28' ? modernCodeProblem(code) : undefined;
    return rule ? [...problems, rule] : problems;
  }
  const problems = schemaProblems(revision, 'JSONRPCResultResponse', parsed);
  const inputRequired = isObject(parsed.result) && parsed.result.resultType === 'input_required';
  const result = inputRequired
    ? 'InputRequiredResult'
    : method === undefined
      ? undefined
      : RESULT_OF[method];
  return result ? [...problems, ...schemaProblems(revision, result, parsed.result)] : problems;
}
