import { dirname } from 'node:path';
import type { CliOption } from '@mcpkit/node';
import { defaultEventLogPath } from './events/path.js';

/** The gateway's own flags, besides runCli's common ones (read early by prestart.ts too). */
export const GATEWAY_OPTIONS: readonly CliOption[] = [
  {
    name: 'config',
    env: 'MCP_GATEWAY_CONFIG',
    description: 'JSON config ({"mcpServers": {...}}); default: the sibling apps',
    type: 'string',
  },
  {
    name: 'events',
    env: 'MCP_GATEWAY_EVENTS',
    description: `event log: a SQLite file (default: one per config under ${dirname(defaultEventLogPath())}) or postgres://… shared by a fleet`,
    type: 'string',
  },
  {
    name: 'server',
    env: 'MCP_GATEWAY_SERVER',
    description:
      'serve one virtual server of gateway.servers (its tools only) instead of every backend tool',
    type: 'string',
  },
  {
    name: 'task-after',
    env: 'MCP_GATEWAY_TASK_AFTER',
    description:
      'seconds a call of a client that declared the tasks extension runs before it becomes a task (off: no tasks)',
    type: 'string',
    default: '5',
  },
  {
    name: 'token',
    env: 'MCP_GATEWAY_TOKEN',
    description: 'bearer token required on HTTP',
    type: 'string',
    placeholder: '',
  },
];
