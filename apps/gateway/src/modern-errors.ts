import { ErrorCode, RpcError } from '@mcpkit/protocol';

/** The legacy sub-range of implementation-defined codes (MCP 2026-07-28 `basic/index`). */
const LEGACY_FIRST = -32019;
const LEGACY_LAST = -32000;
/** Resource not found before 2026-07-28: McpServer sends it as -32602 to a modern client. */
const RESOURCE_NOT_FOUND = -32002;
/** URL elicitation required (2025-11-25 only). */
const URL_ELICITATION_REQUIRED = -32042;

/**
 * What a 2026-07-28 client hears where the gateway — or a 2025 backend behind it — answers with
 * a code of the legacy range (-32000…-32019, the gateway's own "backend did not answer"
 * included) or -32042. That revision (`basic/index` §Error Codes) says implementations SHOULD NOT
 * use the legacy range, MUST NOT emit -32042, and receivers MUST NOT read a meaning into
 * either, so the gateway, which speaks both eras, answers the spec's internal error with the
 * message and data kept and the code it replaced in `data.legacyCode`. -32002 keeps its one
 * meaning: McpServer turns it into -32602.
 */
export function modernGatewayError(error: RpcError): RpcError {
  const code = error.code;
  const legacy = code >= LEGACY_FIRST && code <= LEGACY_LAST && code !== RESOURCE_NOT_FOUND;
  if (!legacy && code !== URL_ELICITATION_REQUIRED) return error;
  const data = error.data;
  return new RpcError(
    ErrorCode.InternalError,
    error.message,
    typeof data === 'object' && data !== null && !Array.isArray(data)
      ? { ...data, legacyCode: code }
      : data === undefined
        ? { legacyCode: code }
        : { legacyCode: code, data },
  );
}
