/**
 * The live system dashboard, an MCP Apps view. It talks to the host only through the ext-apps
 * `App` bridge: the first tool result the host hands it is drawn at once, then the view calls the
 * server's own tools through the host on the intervals the server put in its config (one per
 * sampler TTL tier), and stops calling while it cannot be seen.
 */
import { App, applyDocumentTheme, type McpUiHostContext } from '@modelcontextprotocol/ext-apps';

type Json = Record<string, unknown>;

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
const $ = (id: string): HTMLElement => {
  const el = document.getElementById(id);
  if (!el) throw new Error(`dashboard: #${id} is missing`);
  return el;
};

const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const list = (v: unknown): Json[] =>
  Array.isArray(v) ? v.filter((x): x is Json => typeof x === 'object' && x !== null) : [];

const UNITS = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB'];
/** Bytes for people: 1536 → "1.5 KiB". */
function bytes(n: number | null): string {
  if (n === null) return '–';
  let v = n;
  let u = 0;
  while (Math.abs(v) >= 1024 && u < UNITS.length - 1) {
    v /= 1024;
    u++;
  }
  return `${u === 0 ? v : v.toFixed(1)} ${UNITS[u]}`;
}
const pct = (n: number | null): string => (n === null ? '–' : `${n.toFixed(1)} %`);

/** An element with text, built without innerHTML: every value from the server is data. */
function el(tag: string, text?: string, attrs: Record<string, string> = {}): HTMLElement {
  const e = document.createElement(tag);
  if (text !== undefined) e.textContent = text;
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  return e;
}

/** A labelled bar: role=meter with its value, so it reads as a number, not only as a colour. */
function bar(label: string, percent: number | null, value: string): HTMLElement {
  const p = percent === null ? 0 : Math.max(0, Math.min(100, percent));
  const row = el('div', undefined, { class: 'row' });
  const track = el('div', undefined, {
    class: 'bar',
    role: 'meter',
    'aria-label': label,
    'aria-valuemin': '0',
    'aria-valuemax': '100',
    'aria-valuenow': String(Math.round(p)),
    'aria-valuetext': value,
  });
  track.append(
    el('span', undefined, { class: p >= 90 ? 'bad' : p >= 70 ? 'warn' : '', style: `width:${p}%` }),
  );
  row.append(el('span', label), track, el('span', value));
  return row;
}

/** One core: its name, a bar and its load, stacked to fit a narrow tile. */
function core(label: string, percent: number | null, cpu: string): HTMLElement {
  const box = el('div', undefined, { class: 'core', 'data-cpu': cpu });
  const row = bar(label, percent, pct(percent));
  box.append(...row.children);
  return box;
}

function table(headers: string[], rows: HTMLElement[], numeric: ReadonlySet<number>): HTMLElement {
  const t = el('table');
  const head = el('tr');
  headers.forEach((h, i) => {
    head.append(el('th', h, { scope: 'col', ...(numeric.has(i) ? { class: 'num' } : {}) }));
  });
  const body = el('tbody');
  body.append(...rows);
  t.append(el('thead'), body);
  t.firstElementChild?.append(head);
  return t;
}

function cells(values: string[], numeric: ReadonlySet<number>, attrs: Record<string, string>) {
  const tr = el('tr', undefined, attrs);
  values.forEach((v, i) => {
    tr.append(el('td', v, numeric.has(i) ? { class: 'num' } : {}));
  });
  return tr;
}

function problem(id: string, message: string): void {
  $(id).replaceChildren(el('p', message, { class: 'error' }));
}

// ---- painters: each takes a tool's structuredContent and tolerates missing fields ----

function paintCpu(c: Json): void {
  const total = num(c.cpu_percent);
  $('cpu-total').textContent = pct(total);
  $('cpu-total').dataset.value = String(total);
  const model = str(c.model);
  const cores = num(c.cores);
  $('cpu-model').textContent = [model, cores === null ? '' : `${cores} cores`]
    .filter(Boolean)
    .join(' · ');
  const perCpu = list(c.per_cpu);
  if (perCpu.length > 0) {
    $('cores').replaceChildren(
      ...perCpu.map((p) => {
        const load = num(p.load_percent);
        return core(`cpu${String(p.cpu)}`, load, String(p.cpu));
      }),
    );
  }
  const la = c.load_average as Json | undefined;
  if (la) paintLoad(la, cores);
}

function paintLoad(la: Json, cores: number | null): void {
  const parts = [num(la.one), num(la.five), num(la.fifteen)].map((v) =>
    v === null ? '–' : v.toFixed(2),
  );
  $('load').textContent = `${parts.join(' · ')}${cores === null ? '' : ` (${cores} cores)`}`;
}

function paintMemory(m: Json): void {
  const total = num(m.total_bytes);
  const swapTotal = num(m.swap_total_bytes);
  const used =
    total !== null && num(m.available_bytes) !== null
      ? total - (num(m.available_bytes) ?? 0)
      : null;
  const memRow = bar('Memory', num(m.used_percent), `${bytes(used)} / ${bytes(total)}`);
  memRow.id = 'mem-row';
  memRow.dataset.total = String(total);
  const swapRow = bar(
    'Swap',
    num(m.swap_used_percent),
    swapTotal ? `${bytes(num(m.swap_used_bytes))} / ${bytes(swapTotal)}` : 'none',
  );
  swapRow.id = 'swap-row';
  swapRow.dataset.total = String(swapTotal);
  const pressure = el('p', `Pressure: ${str(m.pressure) || '–'}`, { class: 'sub' });
  $('mem').replaceChildren(memRow, swapRow, pressure);
}

function paintProcesses(procs: Json[]): void {
  const numeric = new Set([0, 3, 4, 5]);
  $('procs').replaceChildren(
    table(
      ['PID', 'Name', 'User', 'CPU %', 'Mem %', 'RSS'],
      procs.map((p) =>
        cells(
          [
            String(p.pid),
            str(p.name),
            str(p.user),
            pct(num(p.cpu_percent)),
            pct(num(p.memory_percent)),
            bytes(num(p.memory_rss_bytes)),
          ],
          numeric,
          { 'data-pid': String(p.pid) },
        ),
      ),
      numeric,
    ),
  );
}

function paintDisks(d: Json): void {
  const fss = list(d.filesystems);
  if (fss.length === 0) {
    $('disks').replaceChildren(
      el('p', str(d.unavailable_reason) || 'No filesystems', { class: 'sub' }),
    );
    return;
  }
  $('disks').replaceChildren(
    ...fss.map((f) => {
      const row = bar(
        str(f.mount),
        num(f.use_percent),
        `${bytes(num(f.used_bytes))} / ${bytes(num(f.size_bytes))}`,
      );
      row.dataset.mount = str(f.mount);
      row.dataset.size = String(num(f.size_bytes));
      return row;
    }),
  );
}

function paintNetwork(n: Json): void {
  const ifaces = list(n.interfaces).filter((i) => i.internal !== true);
  const numeric = new Set([1, 2]);
  const rate = (v: unknown) => (num(v) === null ? '–' : `${bytes(num(v))}/s`);
  $('net').replaceChildren(
    ifaces.length === 0
      ? el('p', 'No external interfaces', { class: 'sub' })
      : table(
          ['Interface', 'Receive', 'Send'],
          ifaces.map((i) =>
            cells([str(i.name), rate(i.rx_bytes_per_sec), rate(i.tx_bytes_per_sec)], numeric, {
              'data-iface': str(i.name),
            }),
          ),
          numeric,
        ),
  );
}

function paintSessions(s: Json): void {
  const sessions = list(s.sessions);
  $('sessions-section').hidden = false;
  $('sessions').replaceChildren(
    table(
      ['User', 'Terminal', 'From', 'Since'],
      sessions.map((x) =>
        cells([str(x.user), str(x.tty), str(x.from) || 'local', str(x.login_time)], new Set(), {}),
      ),
      new Set(),
    ),
  );
}

/** Draws whichever tool's result the host handed over (the dashboard is linked from four). */
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
}

// ---- the bridge and the refresh loop ----

const app = new App(
  { name: 'mcpkit-system-dashboard', version: '1.0.0' },
  {},
  { autoResize: true },
);
let updates = 0;
/** See {@link prefixOf}. */
let toolPrefix = '';
let userPaused = false;
let visible = document.visibilityState === 'visible';
let onScreen = true;
const timers: ReturnType<typeof setTimeout>[] = [];

/** Calls a tool through the host; a failure is drawn where its readings would be, never thrown. */
async function call(name: string, args: Json, target?: string): Promise<Json | undefined> {
  try {
    const result = await app.callServerTool({ name: `${toolPrefix}${name}`, arguments: args });
    if (result.isError) {
      const text = result.content?.find((c) => c.type === 'text');
      if (target)
        problem(
          target,
          `${name} failed: ${text && 'text' in text ? text.text : 'no reason given'}`,
        );
      return undefined;
    }
    return (result.structuredContent as Json | undefined) ?? undefined;
  } catch (err) {
    if (target)
      problem(target, `${name} failed: ${err instanceof Error ? err.message : String(err)}`);
    return undefined;
  }
}

async function refreshDynamic(): Promise<void> {
  const [cpu, mem, procs, net] = await Promise.all([
    call('get_cpu_info', { per_cpu: true }, 'cores'),
    call('get_memory_info', {}, 'mem'),
    call('get_processes', { top: 8, sort_by: 'cpu' }, 'procs'),
    call('get_network_info', {}, 'net'),
  ]);
  if (cpu) paintCpu(cpu);
  if (mem) paintMemory(mem);
  if (procs) paintProcesses(list(procs.processes));
  if (net) paintNetwork(net);
  const sampled = str(cpu?.sampled_at);
  updates++;
  document.body.dataset.updates = String(updates);
  if (sampled) document.body.dataset.sampledAt = sampled;
  showStatus();
}

async function refreshSemi(): Promise<void> {
  const disks = await call('get_disk_info', {}, 'disks');
  if (disks) paintDisks(disks);
  // Sensitive readings are asked for only when the server said this caller may see them.
  if (config.sensitive) {
    const sessions = await call('get_user_sessions', {}, 'sessions');
    if (sessions) paintSessions(sessions);
  }
}

const running = () => !userPaused && visible && onScreen;

function showStatus(): void {
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

function stop(): void {
  generation++;
  for (const t of timers.splice(0)) clearTimeout(t);
}

function start(): void {
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

/** The tools the dashboard is linked from: the host names one of them in `toolInfo`. */
const LINKED = ['get_system_snapshot', 'get_cpu_info', 'get_memory_info', 'get_processes'];

/**
 * What a proxy put before this server's tool names, read off the tool the host says it called:
 * behind the mcpkit gateway `get_system_snapshot` is `system-info__get_system_snapshot`, and the
 * view's own calls must use the same prefix. Empty when the host talks to the server directly.
 */
function prefixOf(ctx: McpUiHostContext | undefined): string {
  const name = ctx?.toolInfo?.tool?.name;
  if (typeof name !== 'string') return '';
  const own = LINKED.find((t) => name.endsWith(t));
  return own ? name.slice(0, name.length - own.length) : '';
}

function applyContext(ctx: McpUiHostContext | undefined): void {
  if (ctx?.theme) applyDocumentTheme(ctx.theme);
  if (ctx?.toolInfo) toolPrefix = prefixOf(ctx);
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
  })
  .catch((err: unknown) => {
    $('status').textContent =
      `Not connected to a host: ${err instanceof Error ? err.message : String(err)}`;
    $('status').classList.add('error');
  });
