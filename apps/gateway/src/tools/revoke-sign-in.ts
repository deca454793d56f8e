import { defineTool } from '@mcpkit/protocol';
import { z } from 'zod';
import type { AuthStore } from '../auth/store.js';
import type { EventLog } from '../events.js';
import { ADMIN_SCOPE } from './restart-backend.js';

/**
 * An operator's revocation of a person's sign-in at the gateway's authorization server (to one
 * client, or to every client): their grants and refresh tokens go, and their access tokens are
 * refused from the next request on, on every gateway sharing the store.
 */
export const revokeSignIn = (store: AuthStore, events: EventLog) =>
  defineTool({
    name: 'revoke_sign_in',
    description:
      "Revoke a person's sign-in at this gateway: to one client (client_id) or to all; their tokens stop working at once",
    inputSchema: z.object({
      username: z.string().min(1).max(200).describe('the person, as in authorization_server.users'),
      client_id: z.string().min(1).max(400).optional().describe('only this client (default: all)'),
    }),
    annotations: { destructiveHint: true, idempotentHint: true, openWorldHint: false },
    requiredScopes: [ADMIN_SCOPE],
    handler: async ({ username, client_id }, ctx) => {
      const revoked = await store.revokeGrants(username, client_id);
      events.record({
        event_type: 'auth.revoked',
        status: 'success',
        source: 'gateway',
        data: {
          subject: username,
          ...(client_id ? { client_id } : {}),
          grants: revoked,
          by: ctx.auth?.subject ?? 'stdio',
        },
      });
      return {
        content: [
          {
            type: 'text' as const,
            text: `${revoked} sign-in${revoked === 1 ? '' : 's'} of ${username} revoked`,
          },
        ],
        structuredContent: { username, revoked },
      };
    },
  });
