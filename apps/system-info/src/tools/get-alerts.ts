import { defineTool } from '@mcpkit/protocol';
import { z } from 'zod';
import type { AlertEngine } from '../alerts/engine.js';
import { CORE, READ_ONLY, sampledAt, type ToolDeps } from './common.js';

export const alertShape = z.object({
  id: z.number().int(),
  rule: z.string(),
  metric: z.string(),
  severity: z.enum(['warning', 'critical']),
  summary: z.string(),
  state: z.enum(['firing', 'resolved']),
  started_at: z.string().describe('When the breach began'),
  raised_at: z.string().describe('When the breach had lasted long enough to raise'),
  resolved_at: z.string().nullable(),
  threshold: z.number(),
  clear: z.number().describe('The value it must get back past to clear'),
  value_at_raise: z.number(),
  peak: z.number(),
  value: z.number().describe('The latest value seen while it was tracked'),
});

export const ruleShape = z.object({
  id: z.string(),
  metric: z.string(),
  above: z.number().optional(),
  below: z.number().optional(),
  for_seconds: z.number(),
  clear: z.number(),
  clear_for_seconds: z.number(),
  severity: z.enum(['warning', 'critical']),
});

/** Active alerts, recent history and the rules: what the tool and `sysinfo://alerts` answer. */
export function alertsReport(alerts: AlertEngine, limit = 50) {
  return {
    active: alerts.active(),
    history: alerts.history().slice(0, limit),
    rules: alerts.rules.map(({ summary: _summary, ...rule }) => rule),
    sampled_at: new Date().toISOString(),
  };
}

export const getAlerts = (deps: ToolDeps) =>
  defineTool({
    name: 'get_alerts',
    title: 'Alerts',
    description:
      'Alerts raised on this machine: those firing now and the recent ones (raised and resolved), with the rules that raise them (CPU above 90 % for 5 min, a filesystem above 90 %, memory pressure, swap storms by default). Subscribe to sysinfo://alerts to hear of changes.',
    inputSchema: z.object({
      limit: z
        .number()
        .int()
        .min(0)
        .max(200)
        .optional()
        .describe('How many of the recent alerts to return (default 50)'),
    }),
    outputSchema: z.object({
      active: z.array(alertShape),
      history: z.array(alertShape).describe('Newest first, firing and resolved'),
      rules: z.array(ruleShape),
      sampled_at: sampledAt,
    }),
    annotations: { title: 'Alerts', ...READ_ONLY },
    requiredScopes: CORE,
    handler: async ({ limit }) => alertsReport(deps.alerts, limit ?? 50),
  });
