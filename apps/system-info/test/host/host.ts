/**
 * A minimal MCP Apps host for the browser tests, on the ext-apps host-side API (`AppBridge`):
 * it renders a view in a sandboxed iframe under the CSP its resource metadata asks for, hands it
 * the tool's input and result, and forwards the view's tool calls to the test (Node), whose MCP
 * client talks to the real server. A real host does the same through its own MCP client, behind
 * a sandbox proxy on another origin (see the app README).
 */
import {
  AppBridge,
  type McpUiHostContext,
  type McpUiResourceCsp,
  PostMessageTransport,
} from '@modelcontextprotocol/ext-apps/app-bridge';

type Json = Record<string, unknown>;

/** What the test hands the page to mount one view. */
export interface MountOptions {
  /** The view's HTML, as resources/read returned it. */
  html: string;
  /** `_meta.ui.csp` of the resource. */
  csp: McpUiResourceCsp | undefined;
  /** The tool call the view is shown for. */
  toolArgs: Json;
  toolResult: Json;
  /** Accessible name of the iframe. */
  title: string;
  /** The tool as the host lists it (`hostContext.toolInfo.tool`): a proxy may have renamed it. */
  tool?: Json;
}

declare global {
  interface Window {
    /** Exposed by the test: calls a tool on the real server for the view titled `view`. */
    hostCallTool(params: Json, view: string): Promise<Json>;
    /** Set by this page: mounts a view; resolves once the view is initialized and has its data. */
    mountView(options: MountOptions): Promise<void>;
  }
}

/**
 * The CSP a host derives from `_meta.ui.csp` (the spec's default when a list is empty): inline
 * code of the view only, no network, no nested frames.
 */
export function cspFor(csp: McpUiResourceCsp | undefined): string {
  const res = (csp?.resourceDomains ?? []).join(' ');
  const connect = (csp?.connectDomains ?? []).join(' ') || "'none'";
  return [
    "default-src 'none'",
    `script-src 'unsafe-inline' ${res}`.trim(),
    `style-src 'unsafe-inline' ${res}`.trim(),
    `img-src data: ${res}`.trim(),
    `font-src ${res || "'none'"}`,
    `connect-src ${connect}`,
    `frame-src ${(csp?.frameDomains ?? []).join(' ') || "'none'"}`,
    "base-uri 'none'",
  ].join('; ');
}

window.mountView = async (options) => {
  const iframe = document.createElement('iframe');
  // No allow-same-origin: the view runs on an opaque origin, as in a real host's sandbox.
  iframe.setAttribute('sandbox', 'allow-scripts');
  iframe.title = options.title;
  iframe.style.cssText = 'display:block;width:100%;height:600px;border:1px solid #d0d7de';
  const policy = `<meta http-equiv="Content-Security-Policy" content="${cspFor(options.csp)}">`;
  iframe.srcdoc = options.html.replace(/<head>/i, () => `<head>${policy}`);
  document.getElementById('slot')?.append(iframe);
  const view = iframe.contentWindow;
  if (!view) throw new Error('the iframe has no window');

  const bridge = new AppBridge(
    null,
    { name: 'mcpkit-test-host', version: '1.0.0' },
    { serverTools: {}, logging: {} },
    {
      hostContext: {
        theme: 'light',
        displayMode: 'inline',
        platform: 'web',
        containerDimensions: { maxHeight: 2000, width: 1000 },
        ...(options.tool
          ? {
              toolInfo: {
                tool: options.tool as NonNullable<McpUiHostContext['toolInfo']>['tool'],
              },
            }
          : {}),
      },
    },
  );
  bridge.oncalltool = async (params) =>
    (await window.hostCallTool(params as Json, options.title)) as Awaited<
      ReturnType<NonNullable<AppBridge['oncalltool']>>
    >;
  bridge.onsizechange = ({ height }) => {
    if (height !== undefined) iframe.style.height = `${height}px`;
  };
  const initialized = new Promise<void>((resolve) => {
    bridge.oninitialized = () => resolve();
  });
  await bridge.connect(new PostMessageTransport(view, view));
  await initialized;
  await bridge.sendToolInput({ arguments: options.toolArgs });
  await bridge.sendToolResult(options.toolResult as Parameters<AppBridge['sendToolResult']>[0]);
};
