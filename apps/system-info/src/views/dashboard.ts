/**
 * The live system dashboard, an MCP Apps view. It talks to the host only through the ext-apps
 * `App` bridge: the first tool result the host hands it is drawn at once, then the view calls the
 * server's own tools through the host on the intervals the server put in its config (one per
 * sampler TTL tier), and stops calling while it cannot be seen.
 *
 * Besides the present readings it charts what the server recorded (`get_metric_history`, drawn
 * with uPlot, bundled in) over a window the user picks, and lists the alerts `get_alerts` reports.
 * Each refresh of the fast readings costs one history call per charted series (eight) and one
 * alerts call, on top of the four reading calls.
 *
 * Opened through the mcpkit gateway, where several system-info servers (one per machine) can sit
 * under namespaces of their own, it offers a Host selector: found once at start (one
 * `gateway_status` call and one `get_os_info` per running backend), and picking a host redraws
 * every panel from that host's tools.
 *
 * This file is the entry esbuild bundles: it draws the result the host hands over, follows the
 * host's context (theme, the tool it called) and connects; the parts live beside it —
 * `calls.ts` (the bridge, tool names and stale answers), `refresh.ts` (the loops and the status
 * line), `panels.ts`, `charts.ts` with `plot.ts`, `alerts.ts`, `hosts.ts` (the Host selector),
 * and `dom.ts` (elements and formatting).
 */
import { applyDocumentTheme, type McpUiHostContext } from '@modelcontextprotocol/ext-apps';
import { app, call, prefixOf, toolPrefix, usePrefix } from './calls.js';
import { durationMs, repaintCharts, setWindow, WINDOW_MS } from './charts.js';
import { $, type Json, list, num, pct, str } from './dom.js';
import { refreshHosts } from './hosts.js';
import { paintCpu, paintLoad, paintMemory, paintProcesses } from './panels.js';
import { start, stop } from './refresh.js';

/** Draws whichever tool's result the host handed over (the dashboard is linked from five). */
function paintResult(sc: Json): void {
  if ('top_cpu' in sc) {
    // get_system_snapshot
    const cpu = sc.cpu as Json | undefined;
    if (cpu) {
      $('cpu-total').textContent = pct(num(cpu.percent));
      const la = cpu.load_average as Json | undefined;
      if (la) paintLoad(la, num(cpu.cores));
    }
    if (sc.memory) paintMemory(sc.memory as Json);
    paintProcesses(list(sc.top_cpu));
  } else if ('per_cpu' in sc || 'cpu_percent' in sc) paintCpu(sc);
  else if ('total_bytes' in sc) paintMemory(sc);
  else if ('processes' in sc) paintProcesses(list(sc.processes));
  else if ('points' in sc) {
    // get_metric_history: the charts take its window when the selector offers it (48h is `2d`).
    const ms = durationMs(str(sc.window));
    const offered = Object.keys(WINDOW_MS).find((w) => WINDOW_MS[w] === ms);
    if (offered) setWindow(offered);
  }
}

/** The prefix the host's `toolInfo` gave last: given again, it does not undo a pick of host. */
let linkedPrefix: string | undefined;

function applyContext(ctx: McpUiHostContext | undefined): void {
  if (ctx?.theme) {
    applyDocumentTheme(ctx.theme);
    repaintCharts();
  }
  const prefix = ctx?.toolInfo ? prefixOf(ctx) : undefined;
  if (prefix !== undefined && prefix !== linkedPrefix) {
    linkedPrefix = prefix;
    usePrefix(prefix);
  }
}

app.addEventListener('toolresult', (params) => {
  const sc = params.structuredContent as Json | undefined;
  if (sc && !params.isError) paintResult(sc);
});
app.addEventListener('hostcontextchanged', (ctx) => applyContext(ctx));
app.onteardown = async () => {
  stop();
  return {};
};

app
  .connect()
  .then(async () => {
    applyContext(app.getHostContext());
    const os = await call('get_os_info', {});
    if (os) $('host').textContent = `— ${str(os.hostname)}`;
    start();
    // Behind a proxy, there may be other hosts to offer.
    if (toolPrefix()) void refreshHosts();
  })
  .catch((err: unknown) => {
    $('status').textContent =
      `Not connected to a host: ${err instanceof Error ? err.message : String(err)}`;
    $('status').classList.add('error');
  });
