/**
 * The gateway's built-in hooks (see hooks.ts): `redact` — secrets in a result's text and
 * structured content become `[REDACTED]` (the platform's `redact`, which system-info applies to
 * command lines and log lines) — and `size_caps` — arguments and results over a size in bytes
 * are refused before they reach the backend, or replaced by an error result the model can act on.
 */
import { isSecretName, REDACTED, redact } from '@mcpkit/node';
import { type ContentBlock, ErrorCode, RpcError } from '@mcpkit/protocol';
import type { CallHook, HookConfig } from './hooks.js';

type Builtin = Extract<HookConfig, { use: string }>;

/** The built-in hook an entry names. */
export function builtinHook(entry: Builtin): CallHook {
  if (entry.use === 'redact') return redactHook();
  return sizeCaps(entry.max_args_bytes, entry.max_result_bytes);
}

/** `value` with every string in it redacted; the same object when nothing was. */
function redactDeep(value: unknown): unknown {
  if (typeof value === 'string') {
    const out = redact(value);
    return out === value ? value : out;
  }
  if (Array.isArray(value)) {
    let changed = false;
    const out = value.map((v) => {
      const r = redactDeep(v);
      if (r !== v) changed = true;
      return r;
    });
    return changed ? out : value;
  }
  if (value && typeof value === 'object') {
    let changed = false;
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      // `"password": "…"`: the field names the secret, whatever its value looks like.
      const r =
        typeof v === 'string' && v !== REDACTED && isSecretName(k) ? REDACTED : redactDeep(v);
      if (r !== v) changed = true;
      out[k] = r;
    }
    return changed ? out : value;
  }
  return value;
}

/** A content block with its text redacted; the same block when nothing was. */
function redactBlock(block: ContentBlock): ContentBlock {
  if (block.type === 'text') {
    const text = redact(block.text);
    return text === block.text ? block : { ...block, text };
  }
  if (block.type === 'resource' && 'text' in block.resource) {
    const text = redact(block.resource.text);
    return text === block.resource.text
      ? block
      : { ...block, resource: { ...block.resource, text } };
  }
  return block;
}

/**
 * Secrets in what the model reads: text blocks, embedded resources' text and structured content
 * (images, audio, blobs and `_meta` pass as they are). A result with none comes back untouched.
 */
function redactHook(): CallHook {
  return {
    name: 'redact',
    after: (_call, result) => {
      const content = result.content.map(redactBlock);
      const structured =
        result.structuredContent === undefined ? undefined : redactDeep(result.structuredContent);
      const changed =
        content.some((b, i) => b !== result.content[i]) || structured !== result.structuredContent;
      if (!changed) return undefined;
      return {
        ...result,
        content,
        ...(structured === undefined
          ? {}
          : { structuredContent: structured as Record<string, unknown> }),
      };
    },
  };
}

/** Arguments and results at most so many bytes (their JSON, UTF-8). */
function sizeCaps(maxArgs: number | undefined, maxResult: number | undefined): CallHook {
  return {
    name: 'size_caps',
    before: (call) => {
      if (maxArgs === undefined) return undefined;
      const size = Buffer.byteLength(JSON.stringify(call.args));
      if (size <= maxArgs) return undefined;
      throw new RpcError(
        ErrorCode.InvalidParams,
        `The arguments of '${call.tool}' are ${size} bytes, over the gateway's cap of ${maxArgs}`,
        { tool: call.tool, size, limit: maxArgs },
      );
    },
    after: (call, result) => {
      if (maxResult === undefined) return undefined;
      const size = Buffer.byteLength(JSON.stringify(result));
      if (size <= maxResult) return undefined;
      // A tool error, not a protocol one: the model reads it and can ask for less.
      return {
        isError: true,
        content: [
          {
            type: 'text',
            text: `The result of '${call.tool}' was ${size} bytes, over the gateway's cap of ${maxResult}: it was not passed on. Ask for less (a filter, a limit, a page).`,
          },
        ],
      };
    },
  };
}
