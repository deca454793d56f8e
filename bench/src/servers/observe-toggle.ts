/**
 * Metrics on and off in one process, in alternating windows: what they cost, measured with the
 * machine's noise paired out. Whole-process comparisons (one server with metrics, another
 * without, run one after the other) swing by ±30 % in CPU per request on a shared two-core
 * machine, far more than the few per cent being judged; two windows 200 ms apart in one warm
 * process see the same machine.
 *
 * How: every hot-path metric of mcpkit is an {@link McpServer.observe} observer (McpMetrics and
 * the gateway's per-backend series alike), so this wraps `McpServer.prototype.observe` before
 * the server is built, remembers each observer, and every window either keeps them registered or
 * unregisters them all — the server is then on its no-observer fast path, exactly as with
 * metrics off. Requests are counted at the HTTP server (one `request` event each, the same cost in
 * both kinds of window), CPU with `process.cpuUsage()` (every thread: the event-log worker and GC
 * included). What does not toggle — prom-client's process metrics (GC observer, event-loop
 * delay histogram) — is small, and the separate-process figures printed beside this still
 * include it.
 *
 * Bench-only instrumentation: nothing here is part of the product.
 */
import { writeFileSync } from 'node:fs';
import { Server } from 'node:http';
import { McpServer } from '@mcpkit/protocol';

/** One window: how long, which side, CPU spent (µs), requests answered. */
export interface ToggleWindow {
  on: boolean;
  cpuMicros: number;
  requests: number;
}

/** Window length: thousands of requests each at bench load, dozens of windows per round. */
const WINDOW_MS = 200;

/**
 * Install the toggle when `BENCH_TOGGLE_OUT` names a file; call before the server is built.
 * The windows are written to that file (JSON) when the process exits.
 */
export function installObserveToggle(): void {
  const out = process.env.BENCH_TOGGLE_OUT;
  if (!out) return;
  const registrations: {
    server: McpServer;
    observer: Parameters<McpServer['observe']>[0];
    stop?: () => void;
  }[] = [];
  const original = McpServer.prototype.observe;
  McpServer.prototype.observe = function (this: McpServer, observer) {
    const registration = { server: this, observer, stop: original.call(this, observer) };
    registrations.push(registration);
    return () => registration.stop?.();
  };
  let requests = 0;
  const emit = Server.prototype.emit;
  Server.prototype.emit = function (this: Server, event: string | symbol, ...args: unknown[]) {
    if (event === 'request') requests++;
    return emit.apply(this, [event, ...args] as Parameters<typeof emit>);
  } as typeof Server.prototype.emit;

  const windows: ToggleWindow[] = [];
  let on = true;
  let cpu = process.cpuUsage();
  let counted = 0;
  const timer = setInterval(() => {
    const now = process.cpuUsage();
    windows.push({
      on,
      cpuMicros: now.user - cpu.user + (now.system - cpu.system),
      requests: requests - counted,
    });
    on = !on;
    for (const r of registrations) {
      if (on) r.stop = original.call(r.server, r.observer);
      else {
        r.stop?.();
        r.stop = undefined;
      }
    }
    // Read after the switch, so the switch's own cost falls outside both windows.
    cpu = process.cpuUsage();
    counted = requests;
  }, WINDOW_MS);
  timer.unref();
  process.once('exit', () => writeFileSync(out, JSON.stringify(windows)));
}

/**
 * The cost of the observers from runs' windows: for each two neighbouring windows of a run that
 * both carried load (≥ half the run's median requests — a run's first and last windows are
 * partial), the ratio of CPU per request off to on; the median over every run's pairs.
 * Neighbours alternate in order (off→on, then on→off), so a drift over a run cancels out.
 * Returns requests per CPU-second with the observers on as a fraction of off (1 = free), and how
 * many pairs it stands on (overlapping: about half as many independent comparisons).
 */
export function toggleRatio(runs: readonly (readonly ToggleWindow[])[]): {
  ratio: number;
  pairs: number;
} {
  const ratios: number[] = [];
  for (const windows of runs) {
    const loads = windows.map((w) => w.requests).sort((a, b) => a - b);
    const floor = (loads[loads.length >> 1] ?? 0) / 2;
    if (floor === 0) continue;
    // Every neighbouring pair, both orders (on→off, off→on): garbage one window leaves to the
    // next then weighs on either side alike. Each window is in two pairs (see `pairs`).
    for (let i = 0; i + 1 < windows.length; i++) {
      const a = windows[i] as ToggleWindow;
      const b = windows[i + 1] as ToggleWindow;
      if (a.requests < floor || b.requests < floor || a.on === b.on) continue;
      const [off, on] = a.on ? [b, a] : [a, b];
      ratios.push(off.cpuMicros / off.requests / (on.cpuMicros / on.requests));
    }
  }
  ratios.sort((x, y) => x - y);
  const m = ratios.length >> 1;
  const ratio =
    ratios.length === 0
      ? Number.NaN
      : ratios.length % 2
        ? (ratios[m] as number)
        : ((ratios[m - 1] as number) + (ratios[m] as number)) / 2;
  return { ratio, pairs: ratios.length };
}
