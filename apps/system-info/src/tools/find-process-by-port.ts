import { redact } from '@mcpkit/node';
import { defineTool } from '@mcpkit/protocol';
import { z } from 'zod';
import { CORE, query, READ_ONLY, round, sampledAt, type ToolDeps } from './common.js';

export const findProcessByPort = (deps: ToolDeps) =>
  defineTool({
    name: 'find_process_by_port',
    title: 'Process by port',
    description:
      "Which process listens on a port: the listener(s) with pid, name, user, CPU, memory and start time. Another user's process shows without a pid unless the server runs with the rights to see it.",
    inputSchema: z.object({
      port: z.number().int().min(0).max(65_535).describe('The port number'),
      protocol: z.enum(['tcp', 'udp']).optional().describe('Only this protocol (default both)'),
      include_cmdline: z.boolean().optional().describe('Include the redacted command line'),
    }),
    outputSchema: z.object({
      port: z.number().int(),
      found: z.boolean(),
      listeners: z.array(
        z.object({
          protocol: z.string(),
          address: z.string(),
          pid: z.number().int().nullable(),
          process: z.string().nullable(),
          user: z.string().nullable(),
          cpu_percent: z.number().nullable(),
          memory_rss_bytes: z.number().nullable(),
          started: z.string().nullable(),
          command: z.string().optional(),
        }),
      ),
      note: z.string().nullable().describe('Why a listener has no process details'),
      sampled_at: sampledAt,
    }),
    annotations: { title: 'Process by port', ...READ_ONLY },
    requiredScopes: CORE,
    handler: async ({ port, protocol, include_cmdline }) => {
      const ports = await query(deps, 'listening');
      const matches = ports.value.filter(
        (p) => p.port === port && (protocol === undefined || p.protocol.startsWith(protocol)),
      );
      const procs = matches.some((m) => m.pid !== null)
        ? await query(deps, 'processes')
        : undefined;
      const byPid = new Map(procs?.value.list.map((p) => [p.pid, p]));
      const listeners = matches
        .sort((a, b) => a.protocol.localeCompare(b.protocol) || a.address.localeCompare(b.address))
        .map((m) => {
          const p = m.pid === null ? undefined : byPid.get(m.pid);
          return {
            protocol: m.protocol,
            address: m.address,
            pid: m.pid,
            process: p?.name ?? m.process,
            user: p?.user ?? null,
            cpu_percent: p ? round(p.cpu_percent) : null,
            memory_rss_bytes: p?.memory_rss_bytes ?? null,
            started: p?.started ?? null,
            ...(include_cmdline && p ? { command: redact(p.command) } : {}),
          };
        });
      const hidden = listeners.some((l) => l.pid === null);
      return {
        port,
        found: listeners.length > 0,
        listeners,
        note: hidden
          ? 'The owning process is not visible to this server (it runs as another user; run the server with more rights to see it)'
          : null,
        sampled_at: ports.sampledAt,
      };
    },
  });
