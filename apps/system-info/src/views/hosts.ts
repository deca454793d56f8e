/**
 * The Host selector, for a view opened through the mcpkit gateway, where several system-info
 * servers (one per machine) can sit under namespaces of their own. The hosts are found once at
 * start (one `gateway_status` call and one `get_os_info` per running backend) and again when the
 * user goes to a stale list; picking one empties every panel and redraws it from that host's
 * tools.
 */
import { clearAlerts } from './alerts.js';
import { ask, switchHost, toolPrefix } from './calls.js';
import { clearCharts } from './charts.js';
import { $, el, list, str } from './dom.js';
import { refreshDynamic, refreshSemi, running, showStatus, start } from './refresh.js';

/** A system-info server behind the gateway: the prefix of its tools, and what names it. */
interface Host {
  prefix: string;
  namespace: string;
  hostname: string;
}

/** The hosts the selector lists, in the gateway's order. */
let hosts: Host[] = [];
/** When the hosts were last looked for (ms since the epoch); see {@link HOSTS_STALE_MS}. */
let hostsFoundAt = 0;
/** A focus of the selector looks for hosts again once the list is this old. */
const HOSTS_STALE_MS = 30_000;
const hostPicker = $('host-picker');
const hostSelect = $('host-select') as HTMLSelectElement;

/**
 * The system-info servers behind the gateway this view was opened through: `gateway_status`
 * (the gateway's own tool, not namespaced) lists the backends with their namespaces, and each
 * running one that answers `get_os_info` under its namespace is one — another server answers an
 * error. Undefined when there is no `gateway_status` (a proxy that is not the mcpkit gateway) or
 * it failed.
 */
async function findHosts(): Promise<Host[] | undefined> {
  const status = await ask('gateway_status', {}, '');
  if (!status.ok || !status.value) return undefined;
  const backends = status.value.backends;
  const namespaces = list(typeof backends === 'object' && backends ? Object.values(backends) : [])
    .filter((b) => b.status === 'running')
    .map((b) => str(b.namespace))
    .filter(Boolean);
  // What the gateway puts between a namespace and a tool's name (`__`, or `:` under its `colon`
  // naming), read off this view's own prefix.
  const own = namespaces
    .filter((ns) => toolPrefix().startsWith(ns) && toolPrefix().length > ns.length)
    .sort((a, b) => b.length - a.length)[0];
  const separator = own === undefined ? '__' : toolPrefix().slice(own.length);
  const found = await Promise.all(
    namespaces.map(async (namespace): Promise<Host | undefined> => {
      const prefix = `${namespace}${separator}`;
      const os = await ask('get_os_info', {}, prefix);
      return os.ok && os.value
        ? { prefix, namespace, hostname: str(os.value.hostname) }
        : undefined;
    }),
  );
  return found.filter((h) => h !== undefined);
}

/**
 * Looks for the hosts and lists them in the selector, shown when there are two or more. A host
 * that stopped answering stays listed while it is the current one, so the user can leave it; a
 * look that failed leaves the list as it was.
 */
export async function refreshHosts(): Promise<void> {
  hostsFoundAt = Date.now();
  const found = await findHosts();
  if (!found) return;
  const current = hosts.find((h) => h.prefix === toolPrefix());
  if (current && !found.some((h) => h.prefix === current.prefix)) found.unshift(current);
  const key = (l: Host[]) => l.map((h) => `${h.prefix} ${h.hostname}`).join('\n');
  if (key(found) === key(hosts)) return;
  hosts = found;
  hostSelect.replaceChildren(
    ...hosts.map((h) =>
      el('option', h.hostname ? `${h.hostname} (${h.namespace})` : h.namespace, {
        value: h.prefix,
      }),
    ),
  );
  hostSelect.value = toolPrefix();
  hostPicker.hidden = hosts.length < 2 || hostSelect.value !== toolPrefix();
}

/** Empties every panel and chart, as when another host is picked. */
function clearReadings(): void {
  $('cpu-total').textContent = '–';
  for (const id of ['cpu-model', 'load']) $(id).textContent = '';
  for (const id of ['cores', 'mem', 'disks', 'net', 'procs', 'sessions']) $(id).replaceChildren();
  clearAlerts();
  delete document.body.dataset.sampledAt;
  clearCharts();
}

/**
 * Shows another host: its tools from now on, every panel redrawn from them at once, and any
 * answer still under way from the last host dropped (see `hostEpoch` in calls.ts).
 */
function useHost(prefix: string): void {
  const host = hosts.find((h) => h.prefix === prefix);
  if (!host || prefix === toolPrefix()) return;
  switchHost(prefix);
  clearReadings();
  $('host').textContent = `— ${host.hostname}`;
  if (running()) start();
  else {
    // Paused, the new host is drawn once all the same: the user is waiting for it.
    showStatus();
    void refreshDynamic();
    void refreshSemi();
  }
}

hostSelect.addEventListener('change', () => useHost(hostSelect.value));
// Hosts come and go behind a gateway: the list is looked at again when the user goes to it.
hostSelect.addEventListener('focus', () => {
  if (Date.now() - hostsFoundAt > HOSTS_STALE_MS) void refreshHosts();
});
