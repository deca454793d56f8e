/**
 * Virtual servers: endpoints of the gateway's own (`/servers/<name>/mcp`, `--server <name>`),
 * each an McpServer listing a chosen set of the backends' tools, prompts and resources — the
 * gateway's registry read through its definition (see definition.ts). A call goes through the
 * gateway's one path (rules with the server's name, quotas, the backend call); a change of a
 * backend's lists or of the definition is a `list_changed` to the server's clients.
 */
import type { AuthInfo, McpServer, Tool } from '@mcpkit/protocol';
import type { Backend } from '../backends/backend.js';
import type { EventLog } from '../events.js';
import { identityOf } from '../governance/policy.js';
import {
  proxyPrompt,
  proxyResource,
  proxyTemplate,
  type Route,
  type RouteEntry,
} from '../proxies.js';
import {
  type Matcher,
  matcher,
  type ToolSelection,
  type VirtualServerConfig,
} from './definition.js';
import { applyChanges } from './registry.js';

/** The gateway's registry, by advertised name (or URI): what virtual servers choose from. */
export interface Registry {
  tools: ReadonlyMap<string, RouteEntry>;
  prompts: ReadonlyMap<string, RouteEntry>;
  resources: ReadonlyMap<string, RouteEntry>;
  templates: ReadonlyMap<string, RouteEntry>;
}

/** What the gateway lends its virtual servers. */
export interface VirtualServersOptions {
  /** A server with the gateway's options; `lookup` finds a listed tool's route (for the rules). */
  newServer(
    name: string,
    definition: VirtualServerConfig,
    lookup: (name: string) => Route | undefined,
  ): McpServer;
  /** The gateway's tool `key` as `name` on `server`, listed as `entry`. */
  tool(
    name: string,
    key: string,
    route: Route,
    entry: Record<string, unknown>,
    server: string,
  ): Tool;
  events: EventLog;
  /** The gateway's name, the source of its events. */
  source: string;
}

const EMPTY: Registry = {
  tools: new Map(),
  prompts: new Map(),
  resources: new Map(),
  templates: new Map(),
};

interface ToolSelector {
  matcher: Matcher;
  /** Names one tool (no `*`): it wins over a pattern that also matches. */
  exact: boolean;
  override: ToolSelection | undefined;
}

/** The entry a tool is listed with on a server: the backend's, with the selector's overrides. */
function overridden(entry: Record<string, unknown>, o: ToolSelection | undefined) {
  if (!o || (o.title === undefined && o.description === undefined && !o.annotations)) return entry;
  const annotations = entry.annotations;
  return {
    ...entry,
    ...(o.title !== undefined ? { title: o.title } : {}),
    ...(o.description !== undefined ? { description: o.description } : {}),
    ...(o.annotations
      ? {
          annotations: {
            ...(annotations && typeof annotations === 'object' ? annotations : {}),
            ...o.annotations,
          },
        }
      : {}),
  };
}

const selects = (m: Matcher, route: RouteEntry) =>
  (m.backend === undefined || m.backend === route.backend.name) && m.test(route.original);

/** One virtual server: its definition, its McpServer, and what it lists. */
export class VirtualServer {
  readonly name: string;
  readonly server: McpServer;
  #definition: VirtualServerConfig;
  #tools: ToolSelector[] = [];
  #prompts: Matcher[] = [];
  #resources: Matcher[] = [];
  readonly #listed = {
    tools: new Map<string, RouteEntry>(),
    prompts: new Map<string, RouteEntry>(),
    resources: new Map<string, RouteEntry>(),
    templates: new Map<string, RouteEntry>(),
  };
  readonly #options: VirtualServersOptions;
  /** The backends it lists anything of (made at each sync). */
  #backends = new Set<Backend>();
  /** Name clashes seen at the last sync (a rename onto a name already listed). */
  collisions: string[] = [];

  constructor(name: string, definition: VirtualServerConfig, options: VirtualServersOptions) {
    this.name = name;
    this.#options = options;
    this.#definition = definition;
    this.#compile(definition);
    this.server = options.newServer(name, definition, (tool) => this.#listed.tools.get(tool));
  }

  /** The definition in force. */
  get definition(): VirtualServerConfig {
    return this.#definition;
  }

  /** The tools it lists now, by its names, with the gateway's name of each. */
  get tools(): ReadonlyMap<string, RouteEntry> {
    return this.#listed.tools;
  }

  /** How many prompts and resources (with templates) it lists. */
  sizes(): { prompts: number; resources: number } {
    const l = this.#listed;
    return { prompts: l.prompts.size, resources: l.resources.size + l.templates.size };
  }

  /** Take a new definition; the next {@link sync} applies it. */
  redefine(definition: VirtualServerConfig): void {
    this.#definition = definition;
    this.#compile(definition);
  }

  #compile(definition: VirtualServerConfig): void {
    this.#tools = definition.tools.map((t) => {
      const selector = typeof t === 'string' ? t : t.tool;
      return {
        matcher: matcher(selector),
        exact: !selector.includes('*'),
        override: typeof t === 'string' ? undefined : t,
      };
    });
    this.#prompts = definition.prompts.map(matcher);
    this.#resources = definition.resources.map(matcher);
  }

  /** Whether it lists anything of `backend` (its log lines and updates are for its clients). */
  uses(backend: Backend): boolean {
    return this.#backends.has(backend);
  }

  /** Whether it lists the resource `uri` (the gateway's URI of it). */
  lists(uri: string): boolean {
    return this.#listed.resources.has(uri);
  }

  /** Bring its lists in line with the gateway's registry and its definition. */
  sync(registry: Registry): void {
    const tools = new Map<string, RouteEntry>();
    const collisions: string[] = [];
    for (const [key, route] of registry.tools) {
      const chosen = this.#chooseTool(route);
      if (!chosen) continue;
      const name = chosen.override?.name ?? key;
      if (tools.has(name)) {
        collisions.push(`${key} not listed as ${name}: the name is taken`);
        continue;
      }
      tools.set(name, { ...route, key, entry: overridden(route.entry, chosen.override) });
    }
    const pick = (from: ReadonlyMap<string, RouteEntry>, matchers: Matcher[]) => {
      const picked = new Map<string, RouteEntry>();
      for (const [key, route] of from) {
        if (matchers.some((m) => selects(m, route))) picked.set(key, route);
      }
      return picked;
    };
    const server = this.server;
    const listed = this.#listed;
    const me = this.name;
    applyChanges(
      listed.tools,
      tools,
      (name) => server.removeTool(name),
      (name, r) => server.addTool(this.#options.tool(name, r.key ?? name, r, r.entry, me)),
    );
    applyChanges(
      listed.prompts,
      pick(registry.prompts, this.#prompts),
      (name) => server.removePrompt(name),
      (name, r) => server.addPrompt(proxyPrompt(name, r)),
    );
    applyChanges(
      listed.resources,
      pick(registry.resources, this.#resources),
      (uri) => server.removeResource(uri),
      (uri, r) => server.addResource(proxyResource(uri, r)),
    );
    applyChanges(
      listed.templates,
      pick(registry.templates, this.#resources),
      (t) => server.removeResourceTemplate(t),
      (t, r) => server.addResourceTemplate(proxyTemplate(t, r)),
    );
    const used = new Set<Backend>();
    for (const map of Object.values(listed))
      for (const route of map.values()) used.add(route.backend);
    this.#backends = used;
    this.#report(collisions);
  }

  /** The selector that decides a tool: one naming it exactly wins over a pattern. */
  #chooseTool(route: RouteEntry): ToolSelector | undefined {
    let pattern: ToolSelector | undefined;
    for (const s of this.#tools) {
      if (!selects(s.matcher, route)) continue;
      if (s.exact) return s;
      pattern ??= s;
    }
    return pattern;
  }

  /** A clash is an event once, when it first appears. */
  #report(collisions: string[]): void {
    const fresh = collisions.filter((c) => !this.collisions.includes(c));
    this.collisions = collisions;
    for (const detail of fresh) {
      this.#options.events.record({
        event_type: 'registry.collision',
        status: 'failure',
        source: this.#options.source,
        data: { server: this.name, detail },
      });
    }
  }

  /** Empty its lists (it was removed from the config): its clients hear the lists change. */
  clear(): void {
    this.sync(EMPTY);
    this.server.closeSubscriptions();
  }
}

/** Who a definition is the default for, made once per definition. */
interface Defaults {
  server: VirtualServer;
  subjects: ReadonlySet<string>;
  groups: ReadonlySet<string>;
}

/** The gateway's virtual servers, by name, in the config's order. */
export class VirtualServers {
  readonly #servers = new Map<string, VirtualServer>();
  readonly #options: VirtualServersOptions;
  #defaults: Defaults[] = [];
  #registry: Registry = EMPTY;

  constructor(options: VirtualServersOptions) {
    this.#options = options;
  }

  /** How many there are. */
  get size(): number {
    return this.#servers.size;
  }

  /** The virtual server `name`, if there is one. */
  get(name: string): VirtualServer | undefined {
    return this.#servers.get(name);
  }

  /** Every virtual server, in the config's order. */
  all(): IterableIterator<VirtualServer> {
    return this.#servers.values();
  }

  /**
   * Take the config's definitions (at start, and at each reload): new servers are made, removed
   * ones emptied and dropped (their endpoint answers 404), changed ones redefined. The names of
   * the servers whose `title` or `instructions` changed: those are read when a server is made,
   * so they take a restart.
   */
  define(definitions: Record<string, VirtualServerConfig>): string[] {
    const restart: string[] = [];
    for (const [name, server] of this.#servers) {
      if (definitions[name]) continue;
      this.#servers.delete(name);
      server.clear();
    }
    const ordered = new Map<string, VirtualServer>();
    for (const [name, definition] of Object.entries(definitions)) {
      let server = this.#servers.get(name);
      if (!server) {
        server = new VirtualServer(name, definition, this.#options);
      } else if (JSON.stringify(server.definition) !== JSON.stringify(definition)) {
        const was = server.definition;
        if (was.title !== definition.title || was.instructions !== definition.instructions) {
          restart.push(name);
        }
        server.redefine(definition);
      }
      ordered.set(name, server);
      server.sync(this.#registry);
    }
    this.#servers.clear();
    for (const [name, server] of ordered) this.#servers.set(name, server);
    this.#defaults = [...ordered.values()]
      .filter((s) => s.definition.default_for)
      .map((server) => ({
        server,
        subjects: new Set(server.definition.default_for?.subjects),
        groups: new Set(server.definition.default_for?.groups),
      }));
    return restart;
  }

  /** The gateway's registry changed: every server follows. */
  sync(registry: Registry): void {
    this.#registry = registry;
    for (const server of this.#servers.values()) server.sync(registry);
  }

  /**
   * The server `auth` gets at the gateway's own endpoint: the first whose `default_for` names
   * their subject or one of their groups; undefined — every tool — for anyone else.
   */
  defaultFor(auth: AuthInfo | undefined): VirtualServer | undefined {
    if (!auth || this.#defaults.length === 0) return undefined;
    const { subject, groups } = identityOf(auth);
    for (const d of this.#defaults) {
      if (d.subjects.has(subject) || groups.some((g) => d.groups.has(g))) return d.server;
    }
    return undefined;
  }
}
