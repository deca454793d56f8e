import { redact } from '@mcpkit/node';
import { type CallToolResult, defineTool } from '@mcpkit/protocol';
import { z } from 'zod';
import { DASHBOARD_TOOL_META } from '../dashboard.js';
import type { ProcessInfo } from '../sampler/collectors.js';
import { CORE, query, READ_ONLY, round, sampledAt, type ToolDeps } from './common.js';

const SORTS = ['cpu', 'memory', 'pid', 'name'] as const;
type Sort = (typeof SORTS)[number];

const ORDER: Record<Sort, (a: ProcessInfo, b: ProcessInfo) => number> = {
  cpu: (a, b) => b.cpu_percent - a.cpu_percent || a.pid - b.pid,
  memory: (a, b) => b.memory_rss_bytes - a.memory_rss_bytes || a.pid - b.pid,
  pid: (a, b) => a.pid - b.pid,
  name: (a, b) => a.name.localeCompare(b.name) || a.pid - b.pid,
};

export const processShape = z.object({
  pid: z.number().int(),
  ppid: z.number().int(),
  name: z.string(),
  user: z.string(),
  state: z.string(),
  cpu_percent: z.number(),
  memory_percent: z.number(),
  memory_rss_bytes: z.number(),
  started: z.string().nullable(),
  command: z.string().optional().describe('Command line with secrets redacted (include_cmdline)'),
});

export function topProcesses(
  list: readonly ProcessInfo[],
  sort: Sort,
  top: number,
  withCmdline: boolean,
) {
  return [...list]
    .sort(ORDER[sort])
    .slice(0, top)
    .map(({ command, ...p }) => ({
      ...p,
      cpu_percent: round(p.cpu_percent) ?? 0,
      memory_percent: round(p.memory_percent) ?? 0,
      ...(withCmdline ? { command: redact(command) } : {}),
    }));
}

export const getProcesses = (deps: ToolDeps) =>
  defineTool({
    name: 'get_processes',
    title: 'Processes',
    description:
      'Lists running processes sorted by CPU, memory, pid or name. Command lines are omitted unless include_cmdline is true, and then have secrets redacted.',
    inputSchema: z.object({
      top: z
        .number()
        .int()
        .min(1)
        .max(1000)
        .optional()
        .describe('How many processes to return (default 10)'),
      limit: z.number().int().min(1).max(1000).optional().describe('Alias of top'),
      sort_by: z.enum(SORTS).optional().describe('Sort order (default cpu)'),
      include_cmdline: z.boolean().optional().describe('Include redacted command lines'),
    }),
    outputSchema: z.object({
      processes: z.array(processShape),
      total: z.number().int(),
      running: z.number().int(),
      sort_by: z.enum(SORTS),
      sampled_at: sampledAt,
    }),
    annotations: { title: 'Processes', ...READ_ONLY },
    // MCP Apps hosts draw the live dashboard beside the result; others ignore it.
    _meta: DASHBOARD_TOOL_META,
    requiredScopes: CORE,
    handler: async ({ top, limit, sort_by, include_cmdline }): Promise<CallToolResult> => {
      const sample = await query(deps, 'processes');
      const sort = sort_by ?? 'cpu';
      const processes = topProcesses(
        sample.value.list,
        sort,
        top ?? limit ?? 10,
        include_cmdline ?? false,
      );
      const structured = {
        processes,
        total: sample.value.total,
        running: sample.value.running,
        sort_by: sort,
        sampled_at: sample.sampledAt,
      };
      // As in MCP System Info's JSON-RPC API, the text block is the list itself;
      // structuredContent carries the whole answer.
      return {
        content: [{ type: 'text', text: JSON.stringify(processes) }],
        structuredContent: structured,
        isError: false,
      };
    },
  });
