/**
 * The gateway described as an MCP Registry (the generic registry API's `RegistryEntry`): one
 * entry for the whole gateway (its `/mcp`), one per virtual server (`/servers/<name>/mcp`) and
 * one per backend. Backends are not reachable one by one: an entry of one says what it runs as
 * when that is public (an npm package, or the registry entry it was installed from) and how it
 * is doing; to offer a backend to other gateways, give it a virtual server.
 */
import type { AuthInfo } from '@mcpkit/protocol';
import { holdsScopes } from '@mcpkit/protocol';
import type { Backend } from '../backends/backend.js';
import { isStdio } from '../config.js';
import type { Gateway } from '../gateway.js';
import { SERVERS_PATH } from '../servers/mounts.js';
import { VERSION } from '../version.js';
import { OFFICIAL_META } from './server-json.js';

/** One entry as the registry API serves it (`RegistryEntry`): a server.json and `_meta`. */
export interface RegistryEntry {
  server: { name: string; description: string; version: string; [field: string]: unknown };
  _meta: Record<string, unknown>;
}

/** The gateway's own `_meta` key on each entry: what it knows that a registry does not. */
export const GATEWAY_META = 'io.github.mcpkit/gateway';
/** The entry of the whole gateway, under the namespace (`<namespace>/gateway.all`). */
export const WHOLE_GATEWAY = 'gateway.all';
/** The prefix of virtual servers' entries (`<namespace>/servers.<name>`): no backend has a dot. */
export const SERVER_ENTRY = 'servers.';

/** What the entries are built from besides the gateway. */
export interface EntryContext {
  /** The base URL clients reach the gateway at (`https://mcp.example.com`), without a slash. */
  readonly base: string;
  /** Whether the gateway's endpoints want a bearer token. */
  readonly authRequired: boolean;
  /** Who asks: a backend whose scopes they lack is not listed to them. */
  readonly auth: AuthInfo | undefined;
}

/** The registry namespace of the gateway's entries (`gateway.registry.namespace`). */
export function namespaceOf(gateway: Gateway): string {
  const configured = gateway.config.gateway.registry?.namespace;
  if (configured) return configured;
  const name = gateway.config.gateway.name.toLowerCase().replace(/[^a-z0-9.-]+/g, '-');
  return `local.${name.replace(/^[.-]+|[.-]+$/g, '') || 'gateway'}`;
}

const clip = (text: string) => (text.length <= 100 ? text : `${text.slice(0, 99)}…`);

/** A remote at one of the gateway's endpoints, with the token it wants as an input. */
function remoteAt(url: string, ctx: EntryContext) {
  return {
    type: 'streamable-http',
    url,
    ...(ctx.authRequired
      ? {
          headers: [
            {
              name: 'Authorization',
              description: 'A bearer token of this gateway',
              value: 'Bearer {token}',
              isRequired: true,
              isSecret: true,
              variables: {
                token: { description: 'The bearer token', isRequired: true, isSecret: true },
              },
            },
          ],
        }
      : {}),
  };
}

/** `npx -y <package>@<version>`: the npm package a stdio backend runs, when that is all it is. */
function npxPackage(backend: Backend): Record<string, unknown> | undefined {
  const config = backend.runnable;
  if (!config || !isStdio(config) || !/(^|\/)npx$/.test(config.command)) return undefined;
  const spec = config.args.find((a) => !a.startsWith('-'));
  const match = spec && /^(@?[^@\s]+)@(\d[^@\s]*)$/.exec(spec);
  if (!match) return undefined;
  return {
    registryType: 'npm',
    identifier: match[1],
    version: match[2],
    runtimeHint: 'npx',
    transport: { type: 'stdio' },
  };
}

function statusOf(gateway: Gateway, local: string): 'active' | 'deprecated' | 'deleted' {
  const r = gateway.config.gateway.registry;
  if (r?.deleted?.includes(local)) return 'deleted';
  if (r?.deprecated?.includes(local)) return 'deprecated';
  return 'active';
}

function official(gateway: Gateway, local: string, updatedAt: number): Record<string, unknown> {
  return {
    status: statusOf(gateway, local),
    publishedAt: new Date(gateway.startedAt).toISOString(),
    updatedAt: new Date(updatedAt).toISOString(),
    isLatest: true,
  };
}

/** A backend's entry: what it runs as when public, and how it is doing. */
function backendEntry(gateway: Gateway, backend: Backend, ns: string): RegistryEntry {
  const listed = backend.listed;
  const origin = backend.origin;
  const info = backend.discovered?.serverInfo ?? {};
  const infoVersion = typeof info.version === 'string' && info.version ? info.version : undefined;
  const npm = npxPackage(backend);
  const description =
    origin?.detail.description ??
    `${backend.name} behind ${gateway.config.gateway.name}: ${listed?.tools.length ?? 0} tools`;
  return {
    server: {
      name: `${ns}/${backend.name}`,
      ...(origin?.detail.title ? { title: origin.detail.title } : {}),
      description: clip(description),
      version: origin?.version ?? infoVersion ?? VERSION,
      ...(origin?.detail.packages
        ? { packages: origin.detail.packages }
        : npm
          ? { packages: [npm] }
          : {}),
      ...(origin?.detail.remotes ? { remotes: origin.detail.remotes } : {}),
    },
    _meta: {
      [OFFICIAL_META]: official(gateway, backend.name, backend.startedAt ?? gateway.startedAt),
      [GATEWAY_META]: {
        kind: 'backend',
        state: backend.state,
        namespace: backend.namespace,
        tools: listed?.tools.length ?? 0,
        prompts: listed?.prompts.length ?? 0,
        resources: listed?.resources.length ?? 0,
        restarts: backend.restarts,
        last_error: backend.lastError ?? null,
        ...(origin
          ? { installed_from: { entry: `${origin.name}@${origin.version}`, source: origin.source } }
          : {}),
      },
    },
  };
}

/** Every entry the gateway serves to `ctx`'s caller, sorted by name. */
export function registryEntries(gateway: Gateway, ctx: EntryContext): RegistryEntry[] {
  const ns = namespaceOf(gateway);
  const name = gateway.config.gateway.name;
  const routes = gateway.routes();
  const running = [...gateway.backends.values()].filter((b) => b.state === 'running').length;
  const entries: RegistryEntry[] = [
    {
      server: {
        name: `${ns}/${WHOLE_GATEWAY}`,
        title: name,
        description: clip(
          `Every tool of ${name}: ${gateway.backends.size} backends behind one endpoint`,
        ),
        version: VERSION,
        remotes: [remoteAt(`${ctx.base}/mcp`, ctx)],
      },
      _meta: {
        [OFFICIAL_META]: official(gateway, WHOLE_GATEWAY, gateway.startedAt),
        [GATEWAY_META]: {
          kind: 'gateway',
          backends: gateway.backends.size,
          backends_running: running,
          tools: routes.tools.size,
          prompts: routes.prompts.size,
          resources: routes.resources.size,
        },
      },
    },
  ];
  for (const v of gateway.virtual.all()) {
    const local = `${SERVER_ENTRY}${v.name}`;
    entries.push({
      server: {
        name: `${ns}/${local}`,
        ...(v.definition.title ? { title: v.definition.title } : {}),
        description: clip(
          v.definition.title ??
            v.definition.instructions?.split('\n')[0] ??
            `Virtual server ${v.name} of ${name}`,
        ),
        version: VERSION,
        remotes: [remoteAt(`${ctx.base}${SERVERS_PATH}${v.name}/mcp`, ctx)],
      },
      _meta: {
        [OFFICIAL_META]: official(gateway, local, gateway.startedAt),
        [GATEWAY_META]: { kind: 'server', tools: v.tools.size, ...v.sizes() },
      },
    });
  }
  for (const backend of gateway.backends.values()) {
    if (!holdsScopes(ctx.auth, backend.config.scopes)) continue;
    entries.push(backendEntry(gateway, backend, ns));
  }
  return entries.sort((a, b) =>
    a.server.name < b.server.name ? -1 : a.server.name > b.server.name ? 1 : 0,
  );
}
