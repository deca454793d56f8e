// The gateway status page: state and events arrive over one EventSource (/status/stream); the
// charts keep the last HISTORY points per backend. Plain browser JavaScript, no dependencies.

const HISTORY = 30;
const MAX_ROWS = 200;
const history = new Map(); // backend name -> [{ t, calls, p50, p99 }]
// Backends whose restart an operator asked for and that has not answered yet: the list is drawn
// anew every second, so their buttons' state lives here.
const restarting = new Set();
const NO_FILTER = { event_type: '', status: '', since: '', instance: '' };
// instance: '' for all, 'self' for this gateway, or another gateway's id.
let filter = { ...NO_FILTER };
let filterToken = 0;
// This gateway's instance id (from its state). Several gateways can share one event log (the
// default file, a fleet's PostgreSQL): the events of each carry its id.
let self = '';
let stateReady;
const stateArrived = new Promise((resolve) => {
  stateReady = resolve;
});

const $ = (id) => document.getElementById(id);

function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null) continue;
    if (k === 'text') node.textContent = v;
    else node.setAttribute(k, v);
  }
  for (const child of children) if (child) node.append(child);
  return node;
}

function duration(s) {
  if (s === null || s === undefined) return '—';
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min ${s % 60} s`;
  if (s < 86400) return `${Math.floor(s / 3600)} h ${Math.floor((s % 3600) / 60)} min`;
  return `${Math.floor(s / 86400)} d ${Math.floor((s % 86400) / 3600)} h`;
}

const NS = 'http://www.w3.org/2000/svg';

/** A small line chart of one or two series, scaled to their maximum. */
function sparkline(series, label) {
  const svg = document.createElementNS(NS, 'svg');
  svg.setAttribute('viewBox', '0 0 100 40');
  svg.setAttribute('preserveAspectRatio', 'none');
  svg.setAttribute('role', 'img');
  svg.setAttribute('aria-label', label);
  const max = Math.max(1e-9, ...series.flatMap((s) => s.values.filter((v) => v !== null)));
  for (const s of series) {
    const points = [];
    s.values.forEach((v, i) => {
      if (v === null) return;
      const x =
        s.values.length < 2
          ? 100
          : (i / (HISTORY - 1)) * 100 + (HISTORY - s.values.length) * (100 / (HISTORY - 1));
      points.push(`${Math.min(100, x).toFixed(1)},${(38 - (v / max) * 34).toFixed(1)}`);
    });
    const line = document.createElementNS(NS, 'polyline');
    line.setAttribute('class', s.cls);
    line.setAttribute('points', points.join(' '));
    svg.append(line);
  }
  return svg;
}

function record(b, now) {
  let points = history.get(b.name);
  if (!points) {
    points = [];
    history.set(b.name, points);
  }
  const last = points[points.length - 1];
  const rate =
    last && now > last.t ? Math.max(0, (b.calls - last.calls) / ((now - last.t) / 1000)) : 0;
  points.push({ t: now, calls: b.calls, rate, p50: b.p50_ms, p99: b.p99_ms });
  if (points.length > HISTORY) points.shift();
  return points;
}

function renderBackend(b, points) {
  const rate = points[points.length - 1].rate;
  const li = el('li', { class: 'backend', 'data-state': b.state, 'data-backend': b.name });
  const busy = restarting.has(b.name);
  const h3 = el(
    'h3',
    {},
    el('span', { text: b.name }),
    el('span', { class: 'badge', 'data-state': b.state, text: b.state }),
    el('button', {
      type: 'button',
      class: 'restart',
      'data-restart': b.name,
      'aria-label': `Restart ${b.name}`,
      disabled: busy ? '' : undefined,
      text: busy ? 'Restarting…' : 'Restart',
    }),
  );
  const facts = el('dl', { class: 'facts' });
  const fact = (k, v, cls) =>
    facts.append(el('dt', { text: k }), el('dd', { text: v, class: cls }));
  fact('era', b.era ? b.era + (b.version ? ` (${b.version})` : '') : '—');
  fact('uptime', duration(b.uptime_s));
  fact('restarts', String(b.restarts));
  fact('pid', b.pid === null ? '—' : String(b.pid));
  fact('tools', String(b.tools));
  fact('calls', b.calls + (b.errors ? ` (${b.errors} failed)` : ''));
  if (b.last_error) fact('last error', b.last_error, 'error-text');
  const rateLabel = `calls per second: ${rate.toFixed(2)}`;
  const latLabel =
    'latency p50 ' +
    (b.p50_ms === null ? '—' : `${b.p50_ms} ms`) +
    ', p99 ' +
    (b.p99_ms === null ? '—' : `${b.p99_ms} ms`);
  const charts = el(
    'div',
    { class: 'charts' },
    el(
      'figure',
      { class: 'chart' },
      el('figcaption', { text: rateLabel }),
      sparkline([{ values: points.map((p) => p.rate), cls: 'line' }], rateLabel),
    ),
    el(
      'figure',
      { class: 'chart' },
      el(
        'figcaption',
        {},
        'latency ',
        el('span', { class: 'k50', text: `p50 ${b.p50_ms === null ? '—' : `${b.p50_ms} ms`}` }),
        ', ',
        el('span', { class: 'k99', text: `p99 ${b.p99_ms === null ? '—' : `${b.p99_ms} ms`}` }),
      ),
      sparkline(
        [
          { values: points.map((p) => p.p50), cls: 'line' },
          { values: points.map((p) => p.p99), cls: 'line2' },
        ],
        latLabel,
      ),
    ),
  );
  li.append(h3, facts, charts);
  if (b.quarantined?.length) li.append(quarantineOf(b));
  if (b.stderr_tail.length) {
    const details = el(
      'details',
      {},
      el('summary', { text: `stderr (last ${b.stderr_tail.length} lines)` }),
      el('pre', { text: b.stderr_tail.join('\n') }),
    );
    const open = document.querySelector(`li[data-backend="${CSS.escape(b.name)}"] details`);
    if (open?.open) details.open = true;
    li.append(details);
  }
  return li;
}

/**
 * A pinned backend's held-back tools: which, why, and the approved description beside the one
 * offered now (text only, never markup: the offered one is the backend's, maybe hostile).
 */
function quarantineOf(b) {
  const box = el(
    'div',
    { class: 'quarantine', role: 'alert' },
    el('strong', {
      text: `${b.quarantined.length} tool${b.quarantined.length === 1 ? '' : 's'} held back: definition changed since approved`,
    }),
  );
  for (const q of b.quarantined) {
    const item = el(
      'div',
      { class: 'held' },
      el('code', { text: q.tool }),
      el('span', {
        text: q.reason === 'new' ? ' — never approved' : ` — changed: ${q.fields.join(', ')}`,
      }),
    );
    if (q.approved_description !== null && q.approved_description !== q.offered_description) {
      item.append(
        el('del', { text: q.approved_description }),
        el('ins', { text: q.offered_description ?? '(none)' }),
      );
    }
    const approve = el('button', {
      type: 'button',
      class: 'approve',
      'data-approve-backend': b.name,
      'data-approve-tool': q.tool,
      'aria-label': `Approve ${q.tool} of ${b.name} as it is now`,
      text: 'Approve',
    });
    item.append(approve);
    box.append(item);
  }
  box.append(
    el('p', {
      class: 'hint',
      text: 'Approve only after reading what it now says: its description goes to every model that lists it.',
    }),
  );
  return box;
}

function renderState(s) {
  if (s.gateway.instance && s.gateway.instance !== self) learnSelf(s.gateway.instance);
  stateReady();
  $('gw-name').textContent = s.gateway.name;
  $('gw-version').textContent = `v${s.gateway.version}`;
  $('gw-uptime').textContent =
    'up ' +
    duration(s.gateway.uptime_s) +
    (s.gateway.parked_calls ? ` · ${s.gateway.parked_calls} parked calls` : '') +
    (s.gateway.running_tasks ? ` · ${s.gateway.running_tasks} running tasks` : '');
  const now = Date.parse(s.gateway.time) || Date.now();
  const list = $('backends');
  const items = s.backends.map((b) => renderBackend(b, record(b, now)));
  list.replaceChildren(...items);
  renderServers(s.servers || []);
}

/** The virtual servers' table; the section is hidden while the gateway has none. */
function renderServers(servers) {
  $('servers').hidden = servers.length === 0;
  const rows = servers.map((v) => {
    const tr = el('tr');
    const td = (label, ...children) => tr.append(el('td', { 'data-label': label }, ...children));
    td('Server', el('strong', { text: v.name }));
    td('Endpoint', el('code', { text: v.path }));
    td(
      'Tools',
      el('span', { text: v.tools.length ? `${v.tools.length}: ${v.tools.join(', ')}` : 'none' }),
    );
    td('Prompts', el('span', { text: String(v.prompts) }));
    td('Resources', el('span', { text: String(v.resources) }));
    const who = [
      ...v.default_groups.map((g) => `group ${g}`),
      ...(v.default_subjects
        ? [`${v.default_subjects} ${v.default_subjects === 1 ? 'person' : 'people'}`]
        : []),
    ];
    td('Default for', el('span', { text: who.length ? who.join(', ') : '—' }));
    return tr;
  });
  $('server-rows').replaceChildren(...rows);
}

const filtered = () =>
  Boolean(filter.event_type || filter.status || filter.since || filter.instance);

/** The instance id the filter asks for, or '' for every instance. */
const wantedInstance = () => (filter.instance === 'self' ? self : filter.instance);

function matches(e) {
  if (filter.event_type && e.event_type !== filter.event_type) return false;
  if (filter.status && e.status !== filter.status) return false;
  if (filter.instance && e.instance !== wantedInstance()) return false;
  return true;
}

/** `host:pid` of an instance id (`host:pid:random`); the whole id is in the cell's title. */
function shortInstance(id) {
  const m = /^(.*):(\d+):[0-9a-f]+$/.exec(id);
  return m ? `${m[1]}:${m[2]}` : id;
}

function instanceCell(id) {
  if (!id) return el('td', { 'data-label': 'Instance', text: '—' });
  const own = id === self;
  return el('td', {
    'data-label': 'Instance',
    class: own ? 'instance-own' : null,
    title: id,
    text: own ? 'this instance' : shortInstance(id),
  });
}

/** Another gateway seen in the log: it becomes a choice of the Instance filter. */
function learnInstance(id) {
  if (!id || id === self) return;
  const select = $('instance-filter');
  if ([...select.options].some((o) => o.value === id)) return;
  select.append(el('option', { value: id, title: id, text: shortInstance(id) }));
}

/** This gateway's id, once its state says it: its rows and the filter's choices follow. */
function learnSelf(id) {
  self = id;
  const select = $('instance-filter');
  for (const o of [...select.options]) {
    if (o.value === 'self') o.title = id;
    else if (o.value === id) o.remove();
  }
  for (const tr of $('event-rows').children) {
    tr.querySelector('td[data-label="Instance"]')?.replaceWith(instanceCell(tr.dataset.instance));
  }
}

function eventRow(e, fresh) {
  const time = new Date(e.timestamp);
  const details = e.data ? JSON.stringify(e.data) : '';
  learnInstance(e.instance);
  const tr = el('tr', {
    class: fresh ? 'fresh' : null,
    'data-type': e.event_type,
    'data-instance': e.instance,
  });
  const td = (label, text, cls) => tr.append(el('td', { 'data-label': label, text, class: cls }));
  tr.append(
    el(
      'td',
      { 'data-label': 'Time' },
      el('time', { datetime: e.timestamp, text: time.toLocaleTimeString() }),
    ),
  );
  td('Type', e.event_type);
  td('Status', e.status, `status-${e.status}`);
  tr.append(instanceCell(e.instance));
  td('Backend', e.backend || '—');
  td('Tool', e.tool || '—');
  td(
    'ms',
    e.duration_ms === null || e.duration_ms === undefined ? '—' : String(Math.round(e.duration_ms)),
  );
  td('Details', details.length > 300 ? `${details.slice(0, 300)}…` : details, 'details');
  return tr;
}

async function loadEvents() {
  const token = ++filterToken;
  // "this instance" needs the gateway's id, which its first state brings.
  if (filter.instance === 'self' && !self) await stateArrived;
  const params = new URLSearchParams({ limit: '100' });
  for (const [k, v] of Object.entries(filter)) if (v) params.set(k, v);
  if (filter.instance) params.set('instance', wantedInstance());
  const note = $('events-note');
  let body;
  try {
    const res = await fetch(`/status/api/events?${params}`, {
      headers: { accept: 'application/json' },
    });
    body = await res.json();
    if (!res.ok) {
      note.textContent = body.error || `the events could not be read (${res.status})`;
      note.dataset.error = 'true';
      return;
    }
  } catch (err) {
    note.textContent = `the events could not be read: ${err.message}`;
    return;
  }
  if (token !== filterToken) return; // a newer filter won
  delete note.dataset.error;
  $('event-rows').replaceChildren(...body.events.map((e) => eventRow(e, false)));
  note.textContent = eventsNote(body.events.length);
}

function eventsNote(count) {
  // The stream brings this gateway's new events only: another's show on the next Apply.
  const live =
    filter.instance && wantedInstance() !== self
      ? 'Apply again for new ones of that instance.'
      : 'new ones appear live.';
  return `${count} events${filtered() ? ' matching the filter' : ''}; ${live}`;
}

function addEvent(e) {
  if (!matches(e)) return;
  const rows = $('event-rows');
  rows.prepend(eventRow(e, true));
  while (rows.children.length > MAX_ROWS) rows.lastElementChild.remove();
  $('events-note').textContent = eventsNote(rows.children.length);
}

function connect() {
  const live = $('live');
  const source = new EventSource('/status/stream');
  source.addEventListener('open', () => {
    live.dataset.state = 'live';
    live.textContent = 'live';
  });
  source.addEventListener('state', (m) => renderState(JSON.parse(m.data)));
  source.addEventListener('gateway-event', (m) => addEvent(JSON.parse(m.data)));
  source.addEventListener('error', () => {
    live.dataset.state = 'connecting';
    live.textContent = 'reconnecting…';
    // A lost login (401) will not come back by retrying: go to the login form.
    if (source.readyState === EventSource.CLOSED) {
      fetch('/status/api/state').then(
        (res) => {
          if (res.status === 401) location.assign('/status/login');
          else setTimeout(connect, 2000);
        },
        () => setTimeout(connect, 2000),
      );
    }
  });
}

/** Approve a held-back tool as it is now; the answer goes to the note under the list. */
async function approveTool(backend, tool) {
  const note = $('backends-note');
  try {
    const res = await fetch(
      `/status/api/backends/${encodeURIComponent(backend)}/tools/${encodeURIComponent(tool)}/approve`,
      { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' },
    );
    const body = await res.json().catch(() => ({}));
    if (res.status === 401) return location.assign('/status/login');
    note.textContent = res.ok
      ? `${backend}: ${tool} approved`
      : `${tool} not approved: ${body.error || res.status}`;
  } catch (err) {
    note.textContent = `${tool} not approved: ${err}`;
  }
}

/** Ask the gateway to start a backend again; the answer goes to the note under the list. */
async function restartBackend(name) {
  const note = $('backends-note');
  restarting.add(name);
  note.textContent = `Restarting ${name}…`;
  try {
    const res = await fetch(`/status/api/backends/${encodeURIComponent(name)}/restart`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    const body = await res.json().catch(() => ({}));
    if (res.status === 401) return location.assign('/status/login');
    note.textContent = res.ok
      ? `${name}: ${body.state}${body.last_error ? ` (${body.last_error})` : ''}`
      : `${name} not restarted: ${body.error || res.status}`;
  } catch (err) {
    note.textContent = `${name} not restarted: ${err}`;
  } finally {
    restarting.delete(name);
  }
}

document.addEventListener('DOMContentLoaded', () => {
  // One listener for every button: the list is redrawn each second.
  $('backends').addEventListener('click', (ev) => {
    const approve = ev.target.closest('button[data-approve-tool]');
    if (approve && !approve.disabled) {
      approve.disabled = true;
      approve.textContent = 'Approving…';
      approveTool(approve.dataset.approveBackend, approve.dataset.approveTool);
      return;
    }
    const button = ev.target.closest('button[data-restart]');
    if (!button || button.disabled) return;
    button.disabled = true;
    button.textContent = 'Restarting…';
    restartBackend(button.dataset.restart);
  });
  const form = $('filters');
  form.addEventListener('submit', (ev) => {
    ev.preventDefault();
    const data = new FormData(form);
    filter = {
      event_type: String(data.get('event_type') || '').trim(),
      status: String(data.get('status') || ''),
      since: String(data.get('since') || '').trim(),
      instance: String(data.get('instance') || ''),
    };
    loadEvents();
  });
  form.addEventListener('reset', () => {
    filter = { ...NO_FILTER };
    setTimeout(loadEvents, 0);
  });
  fetch('/status/api/state').then(async (res) => {
    if (res.status === 401) return location.assign('/status/login');
    renderState(await res.json());
  });
  loadEvents();
  connect();
});
