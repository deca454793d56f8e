/**
 * The refresh loops: the fast readings (CPU, memory, processes, network, alerts and the charts)
 * and the slow ones (disks, sessions), each called on the interval the server put in the page's
 * config (one per sampler TTL tier), and stopped while the user paused them, the tab is hidden or
 * the view is scrolled off screen. The status line says which.
 */
import { ALERTS_ASKED, forgetShownAlerts, paintAlerts } from './alerts.js';
import { call, hostEpoch } from './calls.js';
import { refreshCharts } from './charts.js';
import { $, type Json, list, str } from './dom.js';
import {
  paintCpu,
  paintDisks,
  paintMemory,
  paintNetwork,
  paintProcesses,
  paintSessions,
} from './panels.js';

interface Config {
  dynamicMs: number;
  semiMs: number;
  sensitive: boolean;
}

/** The config the server wrote into the page; safe defaults when it is missing or malformed. */
function readConfig(): Config {
  const fallback: Config = { dynamicMs: 2000, semiMs: 30_000, sensitive: false };
  try {
    const raw = JSON.parse(document.getElementById('config')?.textContent ?? '{}') as Json;
    const ms = (v: unknown, d: number) => (typeof v === 'number' && v >= 0 ? v : d);
    return {
      dynamicMs: ms(raw.dynamicMs, fallback.dynamicMs),
      semiMs: ms(raw.semiMs, fallback.semiMs),
      // Only an explicit true shows sensitive readings.
      sensitive: raw.sensitive === true,
    };
  } catch {
    return fallback;
  }
}

const config = readConfig();

/** How many fast refreshes were drawn, for tests and tools that read the page. */
let updates = 0;

/** The user pressed Pause. */
let userPaused = false;
/** The tab is shown. */
let visible = document.visibilityState === 'visible';
/** The view's frame is in the viewport. */
let onScreen = true;
/** The ticks waiting to run: a stop clears them. */
const timers: ReturnType<typeof setTimeout>[] = [];

export async function refreshDynamic(): Promise<void> {
  const epoch = hostEpoch();
  const [cpu, mem, procs, net, alerts] = await Promise.all([
    call('get_cpu_info', { per_cpu: true }, 'cores'),
    call('get_memory_info', {}, 'mem'),
    call('get_processes', { top: 8, sort_by: 'cpu' }, 'procs'),
    call('get_network_info', {}, 'net'),
    call('get_alerts', { limit: ALERTS_ASKED }, 'alerts'),
    refreshCharts(),
  ]);
  // Another host was picked meanwhile: its own refresh is under way.
  if (epoch !== hostEpoch()) return;
  if (cpu) paintCpu(cpu);
  if (mem) paintMemory(mem);
  if (procs) paintProcesses(list(procs.processes));
  if (net) paintNetwork(net);
  if (alerts) paintAlerts(alerts);
  else forgetShownAlerts(); // the failure replaced the list
  const sampled = str(cpu?.sampled_at);
  updates++;
  document.body.dataset.updates = String(updates);
  if (sampled) document.body.dataset.sampledAt = sampled;
  showStatus();
}

export async function refreshSemi(): Promise<void> {
  const disks = await call('get_disk_info', {}, 'disks');
  if (disks) paintDisks(disks);
  // Sensitive readings are asked for only when the server said this caller may see them.
  if (config.sensitive) {
    const sessions = await call('get_user_sessions', {}, 'sessions');
    if (sessions) paintSessions(sessions);
  }
}

export const running = () => !userPaused && visible && onScreen;

export function showStatus(): void {
  const why = userPaused
    ? 'Paused'
    : !visible
      ? 'Paused while hidden'
      : !onScreen
        ? 'Paused while off screen'
        : '';
  const when = document.body.dataset.sampledAt
    ? new Date(document.body.dataset.sampledAt).toLocaleTimeString()
    : '';
  $('status').textContent = why
    ? why
    : `Live · every ${config.dynamicMs / 1000} s${when ? ` · sampled ${when}` : ''}`;
  document.body.dataset.state = why ? 'paused' : 'live';
}

/**
 * Which run of the loops is current: a pause and resume while a tick is still waiting for its
 * tools starts a new run, and the old tick must then end instead of scheduling a second loop.
 */
let generation = 0;

/** Runs `task` now and then every `ms` while the dashboard is running; a tick never overlaps. */
function loop(task: () => Promise<void>, ms: number): void {
  const mine = generation;
  const tick = async () => {
    if (!running() || mine !== generation) return;
    await task();
    if (ms > 0 && running() && mine === generation) timers.push(setTimeout(tick, ms));
  };
  void tick();
}

export function stop(): void {
  generation++;
  for (const t of timers.splice(0)) clearTimeout(t);
}

export function start(): void {
  stop();
  showStatus();
  if (!running()) return;
  loop(refreshDynamic, config.dynamicMs);
  loop(refreshSemi, config.semiMs);
}

/** Re-evaluates running/paused after any change of visibility or of the user's choice. */
function changed(): void {
  if (running()) start();
  else {
    stop();
    showStatus();
  }
}

document.addEventListener('visibilitychange', () => {
  visible = document.visibilityState === 'visible';
  changed();
});
// A dashboard scrolled out of the chat costs nothing: the host's iframe leaving the viewport
// stops the calls as surely as a hidden tab does.
new IntersectionObserver((entries) => {
  const last = entries[entries.length - 1];
  if (!last || last.isIntersecting === onScreen) return;
  onScreen = last.isIntersecting;
  changed();
}).observe(document.body);

const toggle = $('toggle');
toggle.addEventListener('click', () => {
  userPaused = !userPaused;
  toggle.textContent = userPaused ? 'Resume' : 'Pause';
  toggle.setAttribute('aria-pressed', String(userPaused));
  changed();
});
