import { redact } from '@mcpkit/node';
import { defineTool } from '@mcpkit/protocol';
import { z } from 'zod';
import {
  query,
  READ_ONLY,
  SENSITIVE,
  sampledAt,
  type ToolDeps,
  unavailableReason,
} from './common.js';

export const getAuthLogs = (deps: ToolDeps) =>
  defineTool({
    name: 'get_auth_logs',
    title: 'Authentication log',
    description:
      'Returns recent authentication events (logins, sudo, SSH) from the auth log or the journal, with secrets redacted. Requires scope sensitive.',
    inputSchema: z.object({
      lines: z
        .number()
        .int()
        .min(1)
        .max(500)
        .optional()
        .describe('How many recent lines (default 50, at most 500)'),
    }),
    outputSchema: z.object({
      source: z.string().nullable(),
      lines: z.array(z.string()),
      unavailable_reason: unavailableReason,
      sampled_at: sampledAt,
    }),
    annotations: { title: 'Authentication log', ...READ_ONLY },
    requiredScopes: SENSITIVE,
    handler: async ({ lines }) => {
      const log = await query(deps, 'authLog');
      return {
        source: log.value.source,
        lines: log.value.lines.slice(-(lines ?? 50)).map(redact),
        unavailable_reason:
          log.value.source === null
            ? 'no readable auth log (/var/log/auth.log, /var/log/secure) and no journal'
            : null,
        sampled_at: log.sampledAt,
      };
    },
  });
