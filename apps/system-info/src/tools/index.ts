import type { Tool } from '@mcpkit/protocol';
import type { ToolDeps } from './common.js';
import { findProcessByPort } from './find-process-by-port.js';
import { getAlerts } from './get-alerts.js';
import { getAuthLogs } from './get-auth-logs.js';
import { getBattery } from './get-battery.js';
import { getCpuInfo } from './get-cpu-info.js';
import { getDiskInfo } from './get-disk-info.js';
import { getDockerContainers } from './get-docker-containers.js';
import { getGpuInfo } from './get-gpu-info.js';
import { getListeningPorts } from './get-listening-ports.js';
import { getMemoryInfo } from './get-memory-info.js';
import { getMetricHistory } from './get-metric-history.js';
import { getNetworkInfo } from './get-network-info.js';
import { getOsInfo } from './get-os-info.js';
import { getProcesses } from './get-processes.js';
import { getSystemSnapshot } from './get-system-snapshot.js';
import { getTemperature } from './get-temperature.js';
import { getUptime } from './get-uptime.js';
import { getUserSessions } from './get-user-sessions.js';
import { measureSystem } from './measure-system.js';
import { topConsumers } from './top-consumers.js';

export function allTools(deps: ToolDeps): Tool[] {
  return [
    getCpuInfo,
    getMemoryInfo,
    getProcesses,
    getUptime,
    getDiskInfo,
    getNetworkInfo,
    getOsInfo,
    getListeningPorts,
    getTemperature,
    getBattery,
    getGpuInfo,
    getDockerContainers,
    getSystemSnapshot,
    getAuthLogs,
    getUserSessions,
    measureSystem,
    getMetricHistory,
    topConsumers,
    findProcessByPort,
    getAlerts,
  ].map((make) => make(deps));
}
