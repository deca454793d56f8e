import { readFile } from 'node:fs/promises';
import {
  defineResourceTemplate,
  type McpContext,
  type ResourceTemplate,
  RpcError,
} from '@mcpkit/protocol';

/**
 * The MCP Apps extension (`io.modelcontextprotocol/ui`): hosts that declare it render a tool's
 * `ui://` resource beside its result; other clients ignore the tool's `_meta` and get the same
 * results as ever.
 */
export const UI_EXTENSION = 'io.modelcontextprotocol/ui';
/** The MIME type of an MCP Apps view (the extension's `RESOURCE_MIME_TYPE`). */
export const UI_MIME_TYPE = 'text/html;profile=mcp-app';
/** The design-system view's resource. */
export const DESIGN_SYSTEM_VIEW_URI = 'ui://projects/design-system';

/** `_meta` of `get_design_system`: its result is drawn by the design-system view. */
export const DESIGN_SYSTEM_TOOL_META: Readonly<Record<string, unknown>> = Object.freeze({
  ui: Object.freeze({ resourceUri: DESIGN_SYSTEM_VIEW_URI }),
});

/**
 * The view loads nothing and connects nowhere (the tokens come with the tool result, a refresh
 * through the host's bridge), so it asks for no domains and a host can apply its strictest CSP.
 */
const RESOURCE_UI_META = Object.freeze({
  csp: Object.freeze({ connectDomains: [], resourceDomains: [] }),
  prefersBorder: true,
});

/** Whether the caller's client declared the MCP Apps extension (2025 session or 2026 request). */
export function declaresUi(ctx: McpContext): boolean {
  return ctx.declaresExtension(UI_EXTENSION);
}

/** Where the build (`scripts/build-views.mjs`) writes the view: the same path from src/ and dist/. */
const VIEW_FILE = new URL('../dist/views/design-system.html', import.meta.url);

/**
 * The design-system view as a resource. It is a template without variables rather than a plain
 * resource so that `resources/list` shows it only to clients that declared the extension: the
 * CODEFLUSS protocol's `resources/list` stays exactly as documented for everyone else. Any
 * client may read it (hosts find it through `get_design_system`'s `_meta.ui.resourceUri`); it
 * holds code, no user data.
 */
export function designSystemView(
  loadView: () => Promise<string> = () => readFile(VIEW_FILE, 'utf8'),
): ResourceTemplate {
  let view: Promise<string> | undefined;
  const entry = {
    uri: DESIGN_SYSTEM_VIEW_URI,
    name: 'Design System View',
    title: 'Design system',
    description:
      'Design tokens of a project drawn as swatches, type specimens and a spacing scale (MCP Apps view)',
    mimeType: UI_MIME_TYPE,
    _meta: { ui: RESOURCE_UI_META },
  };
  return defineResourceTemplate({
    uriTemplate: DESIGN_SYSTEM_VIEW_URI,
    name: entry.name,
    title: entry.title,
    description: entry.description,
    mimeType: UI_MIME_TYPE,
    _meta: entry._meta,
    list: (ctx) => (declaresUi(ctx) ? [entry] : []),
    read: async () => {
      view ??= loadView().catch((err: unknown) => {
        view = undefined; // a view built later is found on the next read
        throw new RpcError(
          -32603,
          'The design-system view is not built: run the package build (scripts/build-views.mjs)',
          { uri: DESIGN_SYSTEM_VIEW_URI },
          { cause: err },
        );
      });
      return {
        contents: [
          {
            uri: DESIGN_SYSTEM_VIEW_URI,
            mimeType: UI_MIME_TYPE,
            text: await view,
            _meta: { ui: RESOURCE_UI_META },
          },
        ],
      };
    },
  });
}
