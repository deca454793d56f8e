import { defineTool } from '@mcpkit/protocol';
import { z } from 'zod';
import { DOCKER_SOCKET } from '../sampler/collectors.js';
import { CORE, query, READ_ONLY, sampledAt, type ToolDeps, unavailableReason } from './common.js';

export const getDockerContainers = (deps: ToolDeps) =>
  defineTool({
    name: 'get_docker_containers',
    title: 'Docker containers',
    description:
      'Returns Docker containers (running and stopped), or the reason Docker cannot be reached.',
    outputSchema: z.object({
      containers: z
        .array(
          z.object({
            id: z.string(),
            name: z.string(),
            image: z.string(),
            state: z.string(),
            started: z.string().nullable(),
          }),
        )
        .nullable(),
      unavailable_reason: unavailableReason,
      sampled_at: sampledAt,
    }),
    annotations: { title: 'Docker containers', ...READ_ONLY },
    requiredScopes: CORE,
    handler: async () => {
      const c = await query(deps, 'containers');
      return {
        containers: c.value,
        unavailable_reason: c.value === null ? `no Docker engine at ${DOCKER_SOCKET}` : null,
        sampled_at: c.sampledAt,
      };
    },
  });
