import { defineTool, ErrorCode, RpcError } from '@mcpkit/protocol';
import { z } from 'zod';
import type { Gateway } from '../gateway.js';

/** The scope a token needs to restart backends (the `--token` and stdio callers have all). */
export const ADMIN_SCOPE = 'gateway:admin';

/**
 * An operator's restart of one backend — the one that was given up after a crash loop, or one
 * that misbehaves — without editing the config or restarting the gateway and every other backend.
 */
export const restartBackend = (gateway: Gateway) =>
  defineTool({
    name: 'restart_backend',
    description:
      'Restart one backend of the gateway now (a failed one, or a running one that misbehaves); answers with its state afterwards',
    inputSchema: z.object({
      backend: z.string().min(1).max(200).describe('its name in the config (see gateway_status)'),
    }),
    annotations: { destructiveHint: false, idempotentHint: false, openWorldHint: false },
    requiredScopes: [ADMIN_SCOPE],
    handler: async ({ backend }) => {
      const outcome = await gateway.restartBackend(backend);
      if (outcome === undefined) {
        throw new RpcError(ErrorCode.InvalidParams, `No enabled backend '${backend}'`, {
          field: 'backend',
          backends: [...gateway.backends.keys()],
        });
      }
      return {
        content: [{ type: 'text' as const, text: JSON.stringify(outcome) }],
        structuredContent: { ...outcome },
        ...(outcome.state === 'running' ? {} : { isError: true }),
      };
    },
  });
