import { readFile } from 'node:fs/promises';
import {
  defineResourceTemplate,
  type McpContext,
  type ResourceTemplate,
  RpcError,
} from '@mcpkit/protocol';
import { DEFAULT_TTL_MS, type Tier } from './sampler/sampler.js';
import type { Scope } from './scopes.js';

/**
 * The MCP Apps extension (`io.modelcontextprotocol/ui`): hosts that declare it render a tool's
 * `ui://` resource beside its result; hosts that do not ignore the `_meta` below and get the same
 * text and structured content as ever.
 */
export const UI_EXTENSION = 'io.modelcontextprotocol/ui';
/** The MIME type of an MCP Apps view (the extension's `RESOURCE_MIME_TYPE`). */
export const UI_MIME_TYPE = 'text/html;profile=mcp-app';
/** The live dashboard's resource. */
export const DASHBOARD_URI = 'ui://system-info/dashboard';

/** `_meta` of the tools whose results the dashboard draws (`_meta.ui.resourceUri`). */
export const DASHBOARD_TOOL_META: Readonly<Record<string, unknown>> = Object.freeze({
  ui: Object.freeze({ resourceUri: DASHBOARD_URI }),
});

/**
 * The view's security metadata: it is one self-contained file that loads nothing and connects
 * nowhere (every reading comes through the host's bridge), so it asks for no domains at all and
 * a host can apply its strictest CSP.
 */
const RESOURCE_UI_META = Object.freeze({
  csp: Object.freeze({ connectDomains: [], resourceDomains: [] }),
  prefersBorder: true,
});

/** The least time between two refreshes of the fast-changing readings, whatever the TTL. */
export const MIN_REFRESH_MS = 2_000;

/** What the view is told when it is read: how often to refresh, and what it may show. */
export interface DashboardConfig {
  /** ms between refreshes of the dynamic (CPU, memory, processes, network) readings. */
  dynamicMs: number;
  /** ms between refreshes of the semi-static (disks, sessions) readings. */
  semiMs: number;
  /** Whether the caller may read the `sensitive` tools (user sessions). */
  sensitive: boolean;
}

/**
 * Refresh intervals from the sampler's TTLs: polling faster than a tier's TTL only reads the same
 * sample again, so each group of readings is refreshed once per TTL of its tier, and never more
 * often than {@link MIN_REFRESH_MS}.
 */
export function refreshIntervals(ttlMs: Partial<Record<Tier, number>> = {}): {
  dynamicMs: number;
  semiMs: number;
} {
  const ttl = { ...DEFAULT_TTL_MS, ...ttlMs };
  const at = (ms: number) => (Number.isFinite(ms) ? Math.max(MIN_REFRESH_MS, ms) : 0);
  return { dynamicMs: at(ttl.dynamic), semiMs: at(ttl.semi) };
}

/** Whether the caller's client declared the MCP Apps extension (2025 session or 2026 request). */
export function declaresUi(ctx: McpContext): boolean {
  return ctx.declaresExtension(UI_EXTENSION);
}

/** Whether this caller holds `sensitive`: enabled on the server and, with a token, granted to it. */
export function callerHasSensitive(enabled: ReadonlySet<Scope>, ctx: McpContext): boolean {
  if (!enabled.has('sensitive')) return false;
  const granted = ctx.auth?.scopes;
  return granted === undefined || granted.has('sensitive');
}

/** Where the build (`scripts/build-views.mjs`) writes the view: the same path from src/ and dist/. */
const VIEW_FILE = new URL('../dist/views/dashboard.html', import.meta.url);
/** The placeholder in the view that {@link dashboardResource} fills with the config. */
export const CONFIG_PLACEHOLDER = '<script type="application/json" id="config">{}</script>';

/** The view with its config: JSON in a data script, `<` escaped so it cannot close the element. */
export function renderDashboard(template: string, config: DashboardConfig): string {
  if (!template.includes(CONFIG_PLACEHOLDER))
    throw new Error('the dashboard view has no config placeholder: rebuild it');
  const json = JSON.stringify(config).replaceAll('<', '\\u003c');
  return template.replace(
    CONFIG_PLACEHOLDER,
    () => `<script type="application/json" id="config">${json}</script>`,
  );
}

/** Options of {@link dashboardResource}. */
export interface DashboardResourceOptions {
  /** Scopes the server enables. */
  scopes: ReadonlySet<Scope>;
  /** The sampler's TTLs, which set the refresh intervals. */
  ttlMs?: Partial<Record<Tier, number>>;
  /** Reads the built view (tests); default the file in dist/views. */
  loadView?: () => Promise<string>;
}

/**
 * The live dashboard as an MCP Apps resource. Each read gets the view with its refresh intervals
 * and whether this caller may see sensitive readings, so a token without `sensitive` never gets
 * a view that asks for them.
 *
 * It is a template without variables rather than a plain resource so that `resources/list` shows
 * it only to clients that declared the extension (as projects' design-system view): a client
 * that cannot render it has no use for an HTML page in its list. Any client may read it (hosts
 * find it through the tools' `_meta.ui.resourceUri`); it holds code, no readings.
 */
export function dashboardResource(options: DashboardResourceOptions): ResourceTemplate {
  const load = options.loadView ?? (() => readFile(VIEW_FILE, 'utf8'));
  let template: Promise<string> | undefined;
  const intervals = refreshIntervals(options.ttlMs);
  const entry = {
    uri: DASHBOARD_URI,
    name: 'system-dashboard',
    title: 'System dashboard',
    description:
      'Live dashboard (MCP Apps view): per-core CPU, memory and swap, load, disks, network rates and top processes; charts of CPU, memory, load and network over the last 10 min to 48 h; active and recent alerts.',
    mimeType: UI_MIME_TYPE,
    _meta: { ui: RESOURCE_UI_META },
  };
  return defineResourceTemplate({
    uriTemplate: DASHBOARD_URI,
    name: entry.name,
    title: entry.title,
    description: entry.description,
    mimeType: UI_MIME_TYPE,
    _meta: entry._meta,
    list: (ctx) => (declaresUi(ctx) ? [entry] : []),
    read: async (_uri, _vars, ctx) => {
      template ??= load().catch((err: unknown) => {
        template = undefined; // a view built later is found on the next read
        throw new RpcError(
          -32603,
          'The dashboard view is not built: run the package build (scripts/build-views.mjs)',
          { uri: DASHBOARD_URI },
          { cause: err },
        );
      });
      const view = await template;
      let text: string;
      try {
        text = renderDashboard(view, {
          ...intervals,
          sensitive: callerHasSensitive(options.scopes, ctx),
        });
      } catch (err) {
        throw new RpcError(
          -32603,
          'The dashboard view is malformed: rebuild it (scripts/build-views.mjs)',
          { uri: DASHBOARD_URI },
          { cause: err },
        );
      }
      return {
        contents: [
          { uri: DASHBOARD_URI, mimeType: UI_MIME_TYPE, text, _meta: { ui: RESOURCE_UI_META } },
        ],
      };
    },
  });
}
