/** zod schemas of the params of MCP requests the server core answers. */
import { z } from 'zod';

const meta = z
  .looseObject({ progressToken: z.union([z.string(), z.number()]).optional() })
  .optional();
const cursor = z.string().optional();

export const InitializeParams = z.looseObject({
  protocolVersion: z.string(),
  capabilities: z.looseObject({}).optional(),
  clientInfo: z.looseObject({ name: z.string(), version: z.string() }).optional(),
  _meta: meta,
});
export const PaginatedParams = z.looseObject({ cursor, _meta: meta }).optional();
export const CallToolParams = z.looseObject({
  name: z.string(),
  arguments: z.record(z.string(), z.unknown()).optional(),
  _meta: meta,
});
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
