/**
 * A project's design system, an MCP Apps view: the W3C DTCG document of `get_design_system`
 * drawn as colour swatches, type specimens, a spacing scale and a list of every other token.
 * It talks to the host only through the ext-apps `App` bridge: it draws the tool result the host
 * hands it, and Refresh calls `get_design_system` again through the host.
 */
import { App, applyDocumentTheme, type McpUiHostContext } from '@modelcontextprotocol/ext-apps';

type Json = Record<string, unknown>;

/** One token of the document, with the `$type` it has or inherits from its groups. */
interface Token {
  path: string;
  type: string | undefined;
  value: unknown;
  description: string | undefined;
}

const isObject = (v: unknown): v is Json =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** Every token of a DTCG document, in document order (`$`-keys are metadata, not children). */
function flatten(node: Json, prefix: string[] = [], inherited?: string): Token[] {
  const type = typeof node.$type === 'string' ? node.$type : inherited;
  if ('$value' in node) {
    return [
      {
        path: prefix.join('.'),
        type,
        value: node.$value,
        description: typeof node.$description === 'string' ? node.$description : undefined,
      },
    ];
  }
  const out: Token[] = [];
  for (const [key, child] of Object.entries(node)) {
    if (key.startsWith('$') || !isObject(child)) continue;
    out.push(...flatten(child, [...prefix, key], type));
  }
  return out;
}

/** `{color.brand.primary}` → that token's value, following chains; undefined if it leads nowhere. */
function resolve(value: unknown, byPath: ReadonlyMap<string, Token>, depth = 0): unknown {
  if (typeof value !== 'string') return value;
  const ref = /^\{([^{}]+)\}$/.exec(value)?.[1];
  if (ref === undefined) return value;
  const target = byPath.get(ref);
  // Ten hops is far beyond any real alias chain; it also ends reference cycles.
  if (!target || depth >= 10) return undefined;
  return resolve(target.value, byPath, depth + 1);
}

const PREDEFINED = new Set([
  'srgb',
  'srgb-linear',
  'display-p3',
  'a98-rgb',
  'prophoto-rgb',
  'rec2020',
  'xyz-d50',
  'xyz-d65',
]);
const FUNCTIONAL = new Set(['hsl', 'hwb', 'lab', 'lch', 'oklab', 'oklch']);

/** A DTCG colour (2025.10 object, or a legacy hex string) as a CSS colour; undefined if not one. */
function cssColor(v: unknown): string | undefined {
  if (typeof v === 'string') return /^#[0-9a-f]{3,8}$/i.test(v) ? v : undefined;
  if (!isObject(v)) return undefined;
  const space = typeof v.colorSpace === 'string' ? v.colorSpace : '';
  const parts = Array.isArray(v.components) ? v.components : [];
  const alpha = typeof v.alpha === 'number' ? ` / ${v.alpha}` : '';
  const comps = parts.map((c) => (typeof c === 'number' ? String(c) : 'none')).join(' ');
  if (parts.length === 3 && PREDEFINED.has(space)) return `color(${space} ${comps}${alpha})`;
  if (parts.length === 3 && FUNCTIONAL.has(space)) return `${space}(${comps}${alpha})`;
  if (typeof v.hex === 'string' && /^#[0-9a-f]{6}$/i.test(v.hex)) return v.hex;
  return undefined;
}

/** A dimension or duration (`{ value, unit }`, or a legacy string) as CSS text. */
function measure(v: unknown): string | undefined {
  if (typeof v === 'string') return v;
  if (isObject(v) && typeof v.value === 'number' && typeof v.unit === 'string')
    return `${v.value}${v.unit}`;
  return undefined;
}

/** A dimension in CSS pixels, for the scale's bar (1rem = 16px). */
function pixels(v: unknown): number | undefined {
  if (!isObject(v) || typeof v.value !== 'number') return undefined;
  if (v.unit === 'px') return v.value;
  if (v.unit === 'rem' || v.unit === 'em') return v.value * 16;
  return undefined;
}

function fontFamily(v: unknown): string | undefined {
  const names = typeof v === 'string' ? [v] : Array.isArray(v) ? v : [];
  const list = names
    .filter((n): n is string => typeof n === 'string')
    .map((n) => (/^[a-z-]+$/i.test(n) ? n : JSON.stringify(n)));
  return list.length > 0 ? list.join(', ') : undefined;
}

/** A value for people: CSS text where there is one, else compact JSON. */
function show(v: unknown): string {
  return measure(v) ?? (typeof v === 'string' ? v : JSON.stringify(v));
}

function el(tag: string, text?: string, attrs: Record<string, string> = {}): HTMLElement {
  const e = document.createElement(tag);
  if (text !== undefined) e.textContent = text;
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  return e;
}

function $(id: string): HTMLElement {
  const e = document.getElementById(id);
  if (!e) throw new Error(`design system: #${id} is missing`);
  return e;
}

const SPECIMEN = 'The quick brown fox jumps over the lazy dog — 0123456789';

/** The label part of a row: the token's path, its type, what it refers to, its description. */
function label(t: Token, shown: string): HTMLElement {
  const box = el('div');
  box.append(el('div', t.path, { class: 'path' }));
  const meta = [t.type ?? 'untyped', shown];
  if (typeof t.value === 'string' && t.value.startsWith('{')) meta.push(`→ ${t.value}`);
  box.append(el('div', meta.join(' · '), { class: 'meta' }));
  if (t.description) box.append(el('div', t.description, { class: 'meta' }));
  return box;
}

function colorItem(t: Token, value: unknown): HTMLElement {
  const css = cssColor(value);
  const li = el('li', undefined, { 'data-token': t.path, 'data-type': 'color' });
  const hex = isObject(value) && typeof value.hex === 'string' ? value.hex : undefined;
  const shown = hex ?? css ?? 'not a colour';
  const swatch = el('span', undefined, {
    class: 'swatch',
    role: 'img',
    'aria-label': `${t.path}: ${shown}`,
  });
  if (css) swatch.style.background = css;
  li.append(swatch, label(t, shown));
  return li;
}

function typeItem(t: Token, value: unknown, byPath: ReadonlyMap<string, Token>): HTMLElement {
  const li = el('li', undefined, { 'data-token': t.path, 'data-type': t.type ?? '' });
  const sample = el('div', SPECIMEN, { class: 'specimen' });
  if (t.type === 'fontFamily') {
    const family = fontFamily(value);
    if (family) sample.style.fontFamily = family;
  } else if (t.type === 'fontWeight') {
    sample.style.fontWeight = String(value);
  } else if (t.type === 'typography' && isObject(value)) {
    const part = (k: string) => resolve(value[k], byPath);
    const family = fontFamily(part('fontFamily'));
    if (family) sample.style.fontFamily = family;
    const size = measure(part('fontSize'));
    if (size) sample.style.fontSize = size;
    const weight = part('fontWeight');
    if (weight !== undefined) sample.style.fontWeight = String(weight);
    const lineHeight = part('lineHeight');
    if (typeof lineHeight === 'number') sample.style.lineHeight = String(lineHeight);
    const spacing = measure(part('letterSpacing'));
    if (spacing) sample.style.letterSpacing = spacing;
  }
  let shown = t.type === 'fontFamily' ? (fontFamily(value) ?? show(value)) : show(value);
  if (t.type === 'typography' && isObject(value)) {
    // The CSS `font` shorthand's order: weight size/line-height family.
    const part = (k: string) => resolve(value[k], byPath);
    shown = [
      String(part('fontWeight') ?? ''),
      `${measure(part('fontSize')) ?? ''}/${String(part('lineHeight') ?? '')}`,
      fontFamily(part('fontFamily')) ?? '',
    ].join(' ');
  }
  li.append(label(t, shown), sample);
  return li;
}

function scaleItem(t: Token, value: unknown): HTMLElement {
  const li = el('li', undefined, { 'data-token': t.path, 'data-type': t.type ?? '' });
  const px = pixels(value);
  const cell = el('div');
  if (px !== undefined) {
    const bar = el('span', undefined, { class: 'bar', 'aria-hidden': 'true' });
    bar.style.width = `${Math.min(px, 600)}px`;
    cell.append(bar);
  }
  cell.append(el('span', `${show(value)}${px !== undefined ? ` (${px}px)` : ''}`));
  li.append(label(t, show(value)), cell);
  return li;
}

function otherItem(t: Token, value: unknown): HTMLElement {
  const li = el('li', undefined, { 'data-token': t.path, 'data-type': t.type ?? '' });
  li.append(label(t, show(value)), el('div', show(value), { class: 'path' }));
  return li;
}

const TYPE_TYPES = new Set(['fontFamily', 'fontWeight', 'typography']);

/** A pair of get_design_system's contrast report: its sample, its ratio and its verdicts. */
function pairItem(p: Json): HTMLElement {
  const css = isObject(p.css) ? p.css : {};
  const aa = p.aa === true;
  const li = el('li', undefined, {
    'data-pair': `${String(p.foreground)} on ${String(p.background)}`,
    'data-verdict': aa ? 'pass' : 'fail',
  });
  const sample = el('span', 'Aa', { class: 'sample', 'aria-hidden': 'true' });
  // Style properties, not markup: a value that is no colour is ignored by the browser.
  sample.style.color = String(css.foreground ?? '');
  sample.style.background = String(css.background ?? '');
  const text = el('div');
  text.append(el('div', `${String(p.foreground)} on ${String(p.background)}`, { class: 'path' }));
  const mode = typeof p.mode === 'string' ? ` · ${p.mode}` : '';
  text.append(el('div', `${Number(p.ratio).toFixed(2)}:1${mode}`, { class: 'meta' }));
  const mark = (ok: unknown) => (ok === true ? '✓' : '✗');
  const verdict = el(
    'span',
    `AA ${mark(p.aa)} · AA large ${mark(p.aaLarge)} · AAA ${mark(p.aaa)}`,
    { class: aa ? 'verdict' : 'verdict fail' },
  );
  li.append(sample, text, verdict);
  return li;
}

/** Draws the contrast report (none: the section stays hidden). */
function renderContrast(report: unknown): void {
  const items = Array.isArray(report) ? report.filter(isObject).map(pairItem) : [];
  $('contrast').replaceChildren(...items);
  $('contrast-section').hidden = items.length === 0;
}

/** Draws a DTCG document; returns how many tokens it drew. */
function render(tokens: Json): number {
  const all = flatten(tokens);
  const byPath = new Map(all.map((t) => [t.path, t]));
  const groups: Record<'colors' | 'type' | 'space' | 'other', HTMLElement[]> = {
    colors: [],
    type: [],
    space: [],
    other: [],
  };
  for (const t of all) {
    const value = resolve(t.value, byPath);
    if (t.type === 'color') groups.colors.push(colorItem(t, value));
    else if (t.type !== undefined && TYPE_TYPES.has(t.type))
      groups.type.push(typeItem(t, value, byPath));
    else if (t.type === 'dimension') groups.space.push(scaleItem(t, value));
    else groups.other.push(otherItem(t, value));
  }
  for (const [id, items] of Object.entries(groups)) {
    $(id).replaceChildren(...items);
    $(`${id}-section`).hidden = items.length === 0;
  }
  document.body.dataset.tokens = String(all.length);
  return all.length;
}

// ---- the bridge ----

const app = new App({ name: 'mcpkit-design-system', version: '1.0.0' }, {}, { autoResize: true });
let projectId: string | undefined;
const refresh = $('refresh') as HTMLButtonElement;

function status(text: string, error = false): void {
  $('status').textContent = text;
  $('status').classList.toggle('error', error);
}

/** Draws a get_design_system result, or says why it cannot. */
function showResult(sc: unknown): void {
  if (!isObject(sc) || !isObject(sc.tokens)) {
    status('The result holds no design tokens.', true);
    return;
  }
  if (typeof sc.projectId === 'string') {
    projectId = sc.projectId;
    $('project').textContent = sc.projectId;
    refresh.disabled = false;
  }
  const n = render(sc.tokens);
  renderContrast(sc.contrast);
  const when = typeof sc.updatedAt === 'string' ? ` · updated ${sc.updatedAt}` : '';
  status(`${n} tokens${when}`);
}

app.addEventListener('toolinput', (params) => {
  const id = params.arguments?.projectId;
  if (typeof id === 'string') {
    projectId = id;
    refresh.disabled = false;
  }
});
app.addEventListener('toolresult', (params) => {
  if (params.isError) {
    const text = params.content?.find((c) => c.type === 'text');
    status(
      `get_design_system failed: ${text && 'text' in text ? text.text : 'no reason given'}`,
      true,
    );
    return;
  }
  showResult(params.structuredContent);
});
app.addEventListener('hostcontextchanged', (ctx) => applyContext(ctx));

/**
 * What a proxy put before this server's tool names, read off the tool the host says it called:
 * behind the mcpkit gateway `get_design_system` is `projects__get_design_system`, and Refresh
 * must call it by that name. Empty when the host talks to the server directly.
 */
let toolPrefix = '';

function applyContext(ctx: McpUiHostContext | undefined): void {
  if (ctx?.theme) applyDocumentTheme(ctx.theme);
  const name = ctx?.toolInfo?.tool?.name;
  if (typeof name === 'string' && name.endsWith('get_design_system'))
    toolPrefix = name.slice(0, name.length - 'get_design_system'.length);
}

refresh.addEventListener('click', async () => {
  if (projectId === undefined) return;
  refresh.disabled = true;
  status('Refreshing…');
  try {
    const result = await app.callServerTool({
      name: `${toolPrefix}get_design_system`,
      arguments: { projectId },
    });
    if (result.isError) {
      const text = result.content?.find((c) => c.type === 'text');
      status(
        `get_design_system failed: ${text && 'text' in text ? text.text : 'no reason given'}`,
        true,
      );
    } else showResult(result.structuredContent);
  } catch (err) {
    status(`get_design_system failed: ${err instanceof Error ? err.message : String(err)}`, true);
  } finally {
    refresh.disabled = false;
  }
});

app
  .connect()
  .then(() => applyContext(app.getHostContext()))
  .catch((err: unknown) => {
    status(`Not connected to a host: ${err instanceof Error ? err.message : String(err)}`, true);
  });
