import { defineTool } from '@mcpkit/protocol';
import { z } from 'zod';
import { query, READ_ONLY, SENSITIVE, sampledAt, type ToolDeps } from './common.js';

export const getUserSessions = (deps: ToolDeps) =>
  defineTool({
    name: 'get_user_sessions',
    title: 'User sessions',
    description:
      'Returns who is logged in, on which terminal, since when and from where. Requires scope sensitive.',
    outputSchema: z.object({
      sessions: z.array(
        z.object({
          user: z.string(),
          tty: z.string(),
          login_time: z.string().nullable(),
          from: z.string().nullable(),
        }),
      ),
      sampled_at: sampledAt,
    }),
    annotations: { title: 'User sessions', ...READ_ONLY },
    requiredScopes: SENSITIVE,
    handler: async () => {
      const users = await query(deps, 'users');
      return { sessions: users.value, sampled_at: users.sampledAt };
    },
  });
