import { defineTool, ErrorCode, RpcError } from '@mcpkit/protocol';
import { z } from 'zod';
import type { Gateway } from '../gateway.js';
import { ADMIN_SCOPE } from './restart-backend.js';

/**
 * An operator approves the definitions a pinned backend offers now for its held-back tools (a
 * changed description, a new tool in `block` mode): they are pinned as they are and listed
 * again, and clients hear `list_changed`. gateway_status shows what is held back and what changed.
 */
export const approveTool = (gateway: Gateway) =>
  defineTool({
    name: 'approve_tool',
    description:
      "Approve a pinned backend's held-back tool definitions (see gateway_status: quarantined); answers with the tools approved",
    inputSchema: z.object({
      backend: z.string().min(1).max(200).describe('its name in the config'),
      tool: z
        .string()
        .min(1)
        .max(200)
        .optional()
        .describe("the backend's own name of the tool; all of its held-back tools without it"),
    }),
    annotations: { destructiveHint: false, idempotentHint: true, openWorldHint: false },
    requiredScopes: [ADMIN_SCOPE],
    handler: ({ backend, tool }, ctx) => {
      const approved = gateway.approveTools(backend, ctx.auth?.subject ?? 'stdio', tool);
      if (approved === undefined) {
        throw new RpcError(ErrorCode.InvalidParams, `No enabled backend '${backend}'`, {
          field: 'backend',
          backends: [...gateway.backends.keys()],
        });
      }
      if (approved.length === 0) {
        throw new RpcError(
          ErrorCode.InvalidParams,
          tool
            ? `Backend '${backend}' holds no tool '${tool}' back`
            : `Backend '${backend}' holds no tool back`,
          { field: tool ? 'tool' : 'backend' },
        );
      }
      return {
        content: [{ type: 'text' as const, text: JSON.stringify({ approved }) }],
        structuredContent: { approved },
      };
    },
  });
