import { defineTool } from '@mcpkit/protocol';
import { z } from 'zod';
import { DASHBOARD_TOOL_META } from '../dashboard.js';
import { CollectorTimeoutError } from '../sampler/errors.js';
import {
  CORE,
  query,
  queryCause,
  READ_ONLY,
  reasonOf,
  round,
  sampledAt,
  type ToolDeps,
} from './common.js';
import { describeMemory, memoryShape } from './get-memory-info.js';
import { processShape, topProcesses } from './get-processes.js';

const FULL_DISK_PERCENT = 90;

export const getSystemSnapshot = (deps: ToolDeps) =>
  defineTool({
    name: 'get_system_snapshot',
    title: 'Why is this machine slow?',
    description:
      'One call that answers "why is this machine slow": CPU load against the core count, memory pressure, the top CPU and memory processes, and nearly full disks, with plain-language findings.',
    outputSchema: z.object({
      cpu: z.object({
        percent: z.number().nullable(),
        cores: z.number().int(),
        load_average: z.object({ one: z.number(), five: z.number(), fifteen: z.number() }),
      }),
      memory: memoryShape,
      top_cpu: z.array(processShape),
      top_memory: z.array(processShape),
      full_disks: z.array(
        z.object({ mount: z.string(), use_percent: z.number(), available_bytes: z.number() }),
      ),
      findings: z.array(z.string()).describe('What stands out, most pressing first'),
      sampled_at: sampledAt,
    }),
    annotations: { title: 'System snapshot', ...READ_ONLY },
    // MCP Apps hosts draw the live dashboard beside the result; others ignore it.
    _meta: DASHBOARD_TOOL_META,
    requiredScopes: CORE,
    handler: async () => {
      const [info, load, mem, procs] = await Promise.all([
        query(deps, 'cpuStatic'),
        query(deps, 'cpuLoad'),
        query(deps, 'memory'),
        query(deps, 'processes'),
      ]);
      // Disks are optional here: a hung mount must not block the rest of the snapshot.
      let diskProblem: { cause: unknown } | undefined;
      const disks = await query(deps, 'filesystems').catch((err: unknown) => {
        diskProblem = { cause: queryCause(err) };
        return undefined;
      });
      const cores = info.value.cores || 1;
      const [one, five, fifteen] = load.value.load_average;
      const memory = describeMemory(mem.value);
      const topCpu = topProcesses(procs.value.list, 'cpu', 5, false);
      const topMemory = topProcesses(procs.value.list, 'memory', 5, false);
      const fullDisks = (disks?.value ?? [])
        .filter((d) => (d.use_percent ?? 0) >= FULL_DISK_PERCENT && !d.read_only)
        .map((d) => ({
          mount: d.mount,
          use_percent: d.use_percent ?? 0,
          available_bytes: d.available_bytes,
        }));

      const findings: string[] = [];
      if (one > cores * 1.5)
        findings.push(
          `load average ${one} is well above the ${cores} CPU cores: processes are waiting for CPU`,
        );
      else if (one > cores) findings.push(`load average ${one} is above the ${cores} CPU cores`);
      const total = load.value.total_percent;
      if (total !== null && total >= 90) findings.push(`CPU is ${round(total)} % busy`);
      const hog = topCpu[0];
      if (hog && hog.cpu_percent >= 50)
        findings.push(`${hog.name} (pid ${hog.pid}) uses ${hog.cpu_percent} % CPU`);
      if (memory.pressure !== 'low')
        findings.push(`memory pressure is ${memory.pressure}: ${memory.used_percent} % in use`);
      if ((memory.swap_used_percent ?? 0) >= 50)
        findings.push(`${memory.swap_used_percent} % of swap is in use`);
      for (const d of fullDisks) findings.push(`${d.mount} is ${d.use_percent} % full`);
      if (diskProblem !== undefined) {
        findings.push(
          diskProblem.cause instanceof CollectorTimeoutError
            ? 'disk usage could not be read in time (a network mount may be hung)'
            : `disk usage could not be read: ${reasonOf(diskProblem.cause)}`,
        );
      }
      if (findings.length === 0)
        findings.push('nothing stands out: CPU, memory and disks are within normal ranges');

      return {
        cpu: { percent: round(total), cores, load_average: { one, five, fifteen } },
        memory,
        top_cpu: topCpu,
        top_memory: topMemory,
        full_disks: fullDisks,
        findings,
        sampled_at: procs.sampledAt,
      };
    },
  });
