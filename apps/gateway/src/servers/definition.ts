/**
 * What a virtual server is made of (`gateway.servers.<name>` in the config): selectors of the
 * backend tools, prompts and resources it exposes, with renames and overrides, and who gets it
 * by default. Pure: the config is validated with it, and the gateway's registry read through it.
 */
import { z } from 'zod';

/** Names of virtual servers: a path segment (`/servers/<name>/mcp`) and a CLI value. */
export const SERVER_NAME = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;

/**
 * `<backend>/<pattern>`: a backend's name (or `*`, any backend) and the tool or prompt name (a
 * resource's URI or template) it knows, where `*` stands for any run of characters.
 */
const selector = z
  .string()
  .min(3)
  .max(500)
  .regex(/^[^/]+\/.+$/, '<backend>/<name>, `*` for any characters (projects/list_*, */search)');

const toolOverride = z
  .object({
    /** The backend tool: `<backend>/<name>` (one tool, or a pattern when nothing is renamed). */
    tool: selector,
    /** Its name on this server (default: the gateway's, `<namespace>__<tool>`). */
    name: z
      .string()
      .regex(/^[A-Za-z0-9_.-]{1,128}$/, 'letters, digits, _ . - (at most 128)')
      .optional(),
    title: z.string().max(200).optional(),
    description: z.string().max(10_000).optional(),
    /** Merged over the backend's annotations (`readOnlyHint` …). */
    annotations: z.record(z.string(), z.unknown()).optional(),
  })
  .strict()
  .refine((o) => o.name === undefined || !o.tool.includes('*'), {
    message: 'a pattern selects several tools: it cannot give them one name',
    path: ['name'],
  });

/** One virtual server as the config gives it. */
export const virtualServerSchema = z
  .object({
    /** Shown to clients (`serverInfo.title`). */
    title: z.string().max(200).optional(),
    /** The server's `instructions` for the model. */
    instructions: z.string().max(10_000).optional(),
    tools: z
      .array(z.union([selector, toolOverride]))
      .max(1000)
      .default([]),
    prompts: z.array(selector).max(1000).default([]),
    /** Resources and resource templates, by URI (`projects/project://*`). */
    resources: z.array(selector).max(1000).default([]),
    /**
     * Who is served this server at the gateway's own endpoint (`/mcp`) instead of every tool:
     * subjects and members of groups (a token's `groups` claim). The first server in the config
     * that names a caller is theirs.
     */
    default_for: z
      .object({
        subjects: z.array(z.string().min(1)).max(10_000).default([]),
        groups: z.array(z.string().min(1)).max(1000).default([]),
      })
      .strict()
      .optional(),
  })
  .strict();

/** A virtual server's definition, validated. */
export type VirtualServerConfig = z.infer<typeof virtualServerSchema>;
/** What a tool selector says: which tool, and what changes about it here. */
export type ToolSelection = Exclude<VirtualServerConfig['tools'][number], string>;

/** A `<backend>/<pattern>` selector, split and compiled. */
export interface Matcher {
  /** The backend's name, or undefined for any. */
  backend: string | undefined;
  test(name: string): boolean;
}

const escapeRegExp = (s: string) => s.replace(/[.+?^${}()|[\]\\]/g, '\\$&');

/** Compile a selector (validated by the schema: it has a `/`). */
export function matcher(selector: string): Matcher {
  const slash = selector.indexOf('/');
  const backend = selector.slice(0, slash);
  const pattern = selector.slice(slash + 1);
  if (!pattern.includes('*')) {
    return { backend: backend === '*' ? undefined : backend, test: (name) => name === pattern };
  }
  const re = new RegExp(`^${pattern.split('*').map(escapeRegExp).join('.*')}$`, 's');
  return { backend: backend === '*' ? undefined : backend, test: (name) => re.test(name) };
}

/** The backends a definition names (for the config's check that each exists). */
export function namedBackends(server: VirtualServerConfig): string[] {
  const selectors = [
    ...server.tools.map((t) => (typeof t === 'string' ? t : t.tool)),
    ...server.prompts,
    ...server.resources,
  ];
  return [...new Set(selectors.map((s) => s.slice(0, s.indexOf('/'))).filter((b) => b !== '*'))];
}
