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
 * metrics off. Windows come in pairs, one on and one off, in an order drawn at random for each
 * pair: work that recurs on a period of its own (the event log's batches every 100 ms, its
 * pruning, V8's old-space collections) then falls on either side alike instead of lining up
 * with a fixed on/off rhythm — with strict alternation one such period could bias a run by
 * several per cent, and did (−1.4 to 11.3 % over runs of the same gateway code). Requests are counted at the HTTP server (one `request` event each, the same cost in
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

/** One window: which pair, which side, CPU spent (µs), requests answered. */
export interface ToggleWindow {
  /** Windows `2k` and `2k + 1` form pair `k`: one on, one off, in a random order. */
  pair: number;
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
  // The observers start registered: the first window is on, and so the first pair starts on.
  let on = true;
  let cpu = process.cpuUsage();
  let counted = 0;
  const timer = setInterval(() => {
    const now = process.cpuUsage();
    windows.push({
      pair: windows.length >> 1,
      on,
      cpuMicros: now.user - cpu.user + (now.system - cpu.system),
      requests: requests - counted,
    });
    // The second window of a pair takes the other side; a new pair draws its first side.
    const next = windows.length % 2 === 1 ? !on : Math.random() < 0.5;
    if (next !== on) {
      on = next;
      for (const r of registrations) {
        if (on) r.stop = original.call(r.server, r.observer);
        else {
          r.stop?.();
          r.stop = undefined;
        }
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
 * The cost of the observers from runs' windows: for each pair of a run whose two windows both
 * carried load (≥ half the run's median requests — a run's first and last windows are partial),
 * the ratio of CPU per request off to on; the median over every run's pairs. Pairs do not
 * overlap and each pair's order is random (see the header), so drift and periodic work weigh on
 * either side alike. Returns requests per CPU-second with the observers on as a fraction of off
 * (1 = free), and how many pairs it stands on.
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
    for (let i = 0; i + 1 < windows.length; i += 2) {
      const a = windows[i] as ToggleWindow;
      const b = windows[i + 1] as ToggleWindow;
      if (a.requests < floor || b.requests < floor || a.on === b.on || a.pair !== b.pair) continue;
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
