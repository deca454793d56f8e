import type { StandardSchemaV1 } from '@standard-schema/spec';
/** zod schemas of the params of MCP requests the server core answers. */
import { z } from 'zod';

// A progress token beyond 2^53 is decoded as a bigint, to be echoed digit for digit (codec.ts).
const meta = z
  .looseObject({ progressToken: z.union([z.string(), z.number(), z.bigint()]).optional() })
  .optional();
const cursor = z.string().optional();

export const InitializeParams = z.looseObject({
  protocolVersion: z.string(),
  capabilities: z.looseObject({}).optional(),
  clientInfo: z.looseObject({ name: z.string(), version: z.string() }).optional(),
  _meta: meta,
});
export const PaginatedParams = z.looseObject({ cursor, _meta: meta }).optional();
const CallToolParamsSchema = z.looseObject({
  name: z.string(),
  arguments: z.record(z.string(), z.unknown()).optional(),
  _meta: meta,
});

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * tools/call is the hot path: params that are plainly well-formed skip zod (the bench showed
 * its parse as a measurable share of a cheap call); anything else — including every error —
 * goes through the schema, so the answers are the same.
 */
type CallToolParamsOutput = z.output<typeof CallToolParamsSchema>;

export const CallToolParams: StandardSchemaV1<unknown, CallToolParamsOutput> & {
  shape: typeof CallToolParamsSchema.shape;
} = {
  // The key order maps positional params: ["add", {"a": 1}] → { name, arguments }.
  shape: CallToolParamsSchema.shape,
  '~standard': {
    version: 1,
    vendor: 'mcpkit',
    validate(value: unknown) {
      if (isPlainObject(value) && typeof value.name === 'string') {
        const args = value.arguments;
        const m = value._meta;
        const token = isPlainObject(m) ? m.progressToken : undefined;
        if (
          (args === undefined || isPlainObject(args)) &&
          (m === undefined ||
            (isPlainObject(m) &&
              (token === undefined ||
                typeof token === 'string' ||
                typeof token === 'number' ||
                typeof token === 'bigint')))
        ) {
          return { value: value as CallToolParamsOutput };
        }
      }
      return CallToolParamsSchema['~standard'].validate(
        value,
      ) as StandardSchemaV1.Result<CallToolParamsOutput>;
    },
  },
};

export const UriParams = z.looseObject({ uri: z.string().min(1), _meta: meta });
export const GetPromptParams = z.looseObject({
  name: z.string(),
  arguments: z.record(z.string(), z.string()).optional(),
  _meta: meta,
});
export const CompleteParams = z.looseObject({
  ref: z.discriminatedUnion('type', [
    z.looseObject({ type: z.literal('ref/prompt'), name: z.string() }),
    z.looseObject({ type: z.literal('ref/resource'), uri: z.string() }),
  ]),
  argument: z.looseObject({ name: z.string(), value: z.string() }),
  context: z.looseObject({ arguments: z.record(z.string(), z.string()).optional() }).optional(),
  _meta: meta,
});
export const SetLevelParams = z.looseObject({
  level: z.enum(['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency']),
  _meta: meta,
});
export const CancelledParams = z.looseObject({
  requestId: z.union([z.string(), z.number()]),
  reason: z.string().optional(),
});
