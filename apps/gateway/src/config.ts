import { z } from 'zod';
import { isPasswordHash } from './auth/users.js';
import {
  ConfigError,
  defaultRawConfig,
  interpolate,
  lineOf,
  readConfigText,
} from './config-file.js';
import { RuleError, RuleSet } from './governance/rules.js';
import { namedBackends, SERVER_NAME, virtualServerSchema } from './servers/definition.js';

export { ConfigError, defaultGatewayProjectsDatabase, interpolate } from './config-file.js';

// No `__` inside: it is the separator of advertised names (`ns__tool`).
const NAMESPACE = /^(?!.*__)[A-Za-z0-9_-]{1,32}$/;

const restartSchema = z
  .object({
    policy: z.enum(['on-failure', 'always', 'never']).default('on-failure'),
    /** Restarts allowed within `windowMs` before the backend is left failed (crash loop). */
    maxRestarts: z.number().int().min(0).max(1000).default(5),
    windowMs: z.number().int().positive().default(60_000),
    initialDelayMs: z.number().int().min(0).default(500),
    maxDelayMs: z.number().int().positive().default(30_000),
    /** Uptime after which the backoff starts again from `initialDelayMs`. */
    resetAfterMs: z.number().int().positive().default(60_000),
  })
  .strict();

/** The tools a hook applies to: advertised names, `ns__*` for a backend's all. */
const hookTools = z.array(z.string().min(1).max(200)).min(1).max(1000).optional();

const filterSchema = z
  .object({ allow: z.array(z.string()).optional(), deny: z.array(z.string()).optional() })
  .strict();

const common = {
  /**
   * The prefix of its tools and prompts (`<namespace>__tool`; default its name); `false`: its
   * names as they are — for a gateway in front of one server (an era bridge, a supervisor), or
   * backends whose names cannot collide (a collision still gets a stable suffix).
   */
  namespace: z
    .union([
      z.string().regex(NAMESPACE, 'letters, digits, _ or - (no __), at most 32'),
      z.literal(false),
    ])
    .optional(),
  enabled: z.boolean().default(true),
  /**
   * The gateway is not ready (`/readyz` 503) while this backend is not running. Without it, a
   * backend that cannot start is given up and listed in `/readyz`, and the others serve: one
   * broken optional backend must not take every instance of a fleet out of its balancer.
   */
  required: z.boolean().default(false),
  timeoutMs: z.number().int().positive().max(3_600_000).optional(),
  restart: restartSchema.optional(),
  tools: filterSchema.optional(),
  /**
   * Which MCP era to speak to the backend: `auto` asks `server/discover` first and falls back to
   * `initialize` (a 2025 server answers the probe -32601); `2026-07-28` is modern only; `legacy`
   * only initializes (for a server that mishandles the probe).
   */
  protocol: z.enum(['auto', '2026-07-28', 'legacy']).default('auto'),
  /**
   * Scopes a client's token must hold to see and call this backend's tools (over HTTP with
   * `gateway.tokens`); without it every client of the gateway may call them.
   */
  scopes: z.array(z.string().min(1)).optional(),
  /**
   * Its tools' definitions held to what was approved (see governance/pins.ts): `block` holds a
   * changed or new tool back until an operator approves it (approve_tool), `warn` lists it and
   * records an event, `off` (the default) does neither.
   */
  pin: z.enum(['off', 'warn', 'block']).optional(),
};

/** What the connect page asks a person for: a name for it, and where to get one. */
const asking = {
  /** What it is called on the connect page ("GitHub personal access token"). */
  label: z.string().min(1).max(200).default('API key'),
  /** Where a person gets one (shown as a link on the connect page). */
  help_url: z.url({ protocol: /^https?$/ }).optional(),
};

/**
 * Each person's own credential for an HTTP backend, from the credential vault (needs
 * `gateway.authorization_server` and `gateway.vault`): a secret they paste, sent as `header`
 * (`scheme` before it; `''` for none), an OAuth grant the gateway obtains as their client at
 * the backend's authorization server (McpClient's OAuth: discovery, DCR or CIMD, PKCE), or a
 * token the gateway issues itself for a backend that trusts its authorization server.
 */
const httpCredential = z.discriminatedUnion('type', [
  z
    .object({
      type: z.literal('header'),
      header: z
        .string()
        .regex(/^[A-Za-z0-9-]{1,100}$/, 'an HTTP header name')
        .default('Authorization'),
      scheme: z.string().max(50).default('Bearer'),
      ...asking,
    })
    .strict(),
  z
    .object({
      // The backend trusts the gateway's own authorization server: the gateway issues it a
      // token for the person (RFC 8693 semantics, see auth/delegation.ts); nothing to connect.
      type: z.literal('token_exchange'),
      scope: z.string().max(1000).optional(),
      ttl_sec: z.number().int().min(60).max(3600).default(900),
    })
    .strict(),
  z
    .object({
      type: z.literal('oauth'),
      /** The gateway's client at the backend's authorization server, if registered beforehand. */
      client_id: z.string().min(1).optional(),
      client_secret: z.string().min(1).optional(),
    })
    .strict(),
]);

/** Each person's own secret for a per-person stdio backend, as an environment variable. */
const envCredential = z
  .object({
    type: z.literal('env'),
    variable: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]{0,100}$/, 'an environment variable name'),
    ...asking,
  })
  .strict();

const stdioBackend = z
  .object({
    type: z.literal('stdio').optional(),
    command: z.string().min(1),
    args: z.array(z.string()).default([]),
    env: z.record(z.string(), z.string()).default({}),
    /** Start from the gateway's whole environment instead of a minimal safe set. */
    inheritEnv: z.boolean().default(false),
    cwd: z.string().optional(),
    /**
     * One process per signed-in person, started on their first call (with their `credential`
     * in its environment), stopped after `gateway.per_person.idle_sec` without calls; the
     * shared process only lists what the server offers.
     */
    per_identity: z.boolean().optional(),
    credential: envCredential.optional(),
    ...common,
  })
  .strict()
  .refine((b) => !b.credential || b.per_identity, {
    message: 'a credential in the environment is per person: set per_identity: true',
    path: ['credential'],
  });

const httpBackend = z
  .object({
    type: z.enum(['http', 'streamable-http']).optional(),
    url: z.url({ protocol: /^https?$/ }),
    headers: z.record(z.string(), z.string()).default({}),
    credential: httpCredential.optional(),
    ...common,
  })
  .strict();

/**
 * A backend by its MCP Registry entry (see registry/install.ts): `registry` names it
 * (`name@version`; the latest without `@version`) at `registry_url` (default: the official
 * registry; another gateway's `/v0.1/servers` works too), or `server_json` is a local file. It
 * runs as the entry's npm package (`npx -y`) or its Streamable HTTP remote (`prefer`), filled in
 * from `inputs` (by environment variable, header, `--flag` or variable name).
 */
const registryBackend = z
  .object({
    type: z.literal('registry').optional(),
    registry: z
      .string()
      .regex(
        /^[a-zA-Z0-9.-]+\/[a-zA-Z0-9._-]+(@[^@\s/]+)?$/,
        'a registry name, optionally @version: "io.github.owner/server@1.2.3"',
      )
      .optional(),
    registry_url: z.url({ protocol: /^https?$/ }).optional(),
    /** A bearer token the registry wants (another gateway's, behind its tokens). */
    registry_token: z.string().min(1).optional(),
    server_json: z.string().min(1).optional(),
    prefer: z.enum(['package', 'remote']).optional(),
    inputs: z.record(z.string(), z.string()).default({}),
    // Each person's own credential is a stdio or HTTP backend's (the vault fills a known slot).
    credential: z
      .undefined({
        error:
          'a registry backend takes no per-person credential: declare its package or remote as a stdio or HTTP backend for that',
      })
      .optional(),
    ...common,
  })
  .strict()
  .refine((b) => (b.registry === undefined) !== (b.server_json === undefined), {
    message: 'give `registry` (a name in a registry) or `server_json` (a local file), one of them',
    path: ['registry'],
  })
  .refine((b) => b.registry_url === undefined || b.registry !== undefined, {
    message: '`registry_url` is where `registry` is looked up: give `registry` too',
    path: ['registry_url'],
  });

type StdioOut = z.output<typeof stdioBackend>;
type HttpOut = z.output<typeof httpBackend>;
type RegistryOut = z.output<typeof registryBackend>;
const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * A backend is stdio (`command`) or HTTP (`url`). Routing by key instead of a zod union keeps
 * every error pointed at its field (a union reports only "invalid input" for the whole entry).
 */
const backendSchema = z.unknown().transform((value, ctx): StdioOut | HttpOut | RegistryOut => {
  const registry = isObject(value) && ('registry' in value || 'server_json' in value);
  if (registry && ('url' in value || 'command' in value)) {
    ctx.addIssue({
      code: 'custom',
      message: 'a registry backend runs what its entry says: drop `command` / `url`',
      path: [],
    });
    return z.NEVER;
  }
  if (isObject(value) && 'url' in value && 'command' in value) {
    ctx.addIssue({
      code: 'custom',
      message: 'has both `command` (a stdio server) and `url` (an HTTP server): keep one',
      path: [],
    });
    return z.NEVER;
  }
  const schema = registry
    ? registryBackend
    : isObject(value) && 'url' in value && !('command' in value)
      ? httpBackend
      : stdioBackend;
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  for (const issue of result.error.issues) {
    ctx.addIssue({ code: 'custom', message: issue.message, path: issue.path });
  }
  return z.NEVER;
});

export const configSchema = z
  .object({
    gateway: z
      .object({
        name: z.string().min(1).default('mcpkit-gateway'),
        log_level: z
          .enum(['DEBUG', 'INFO', 'WARNING', 'ERROR', 'debug', 'info', 'warn', 'warning', 'error'])
          .default('INFO'),
        debug: z.boolean().default(false),
        /** Seconds, as mcp-n8n's `gateway_status` shows it (`backend_timeout: 30`). */
        backend_timeout: z.number().positive().max(3600).default(30),
        /** Backend tool names: `ns__tool` (safe for every client) or mcp-n8n's `ns:tool`. */
        tool_names: z.enum(['double-underscore', 'colon']).default('double-underscore'),
        /**
         * A 2026-07-28 client calling a 2025-era backend that asks for input mid-call: the
         * backend call waits ("parked") for the client's retry at most `park_ttl_ms`, at most
         * `max_parked` at once, at most `max_parked_per_caller` of one caller (a token's
         * subject); then it is cancelled.
         */
        bridge: z
          .object({
            park_ttl_ms: z.number().int().positive().max(3_600_000).default(300_000),
            max_parked: z.number().int().positive().max(100_000).default(100),
            max_parked_per_caller: z.number().int().positive().max(100_000).default(10),
          })
          .strict()
          .default({ park_ttl_ms: 300_000, max_parked: 100, max_parked_per_caller: 10 }),
        /**
         * Bearer tokens of HTTP clients, each with the scopes it grants (see a backend's
         * `scopes`); `--token` / MCP_GATEWAY_TOKEN adds one that grants everything.
         */
        tokens: z
          .array(
            z
              .object({
                token: z.string().min(16, 'at least 16 characters'),
                subject: z.string().min(1),
                scopes: z.array(z.string().min(1)).default([]),
              })
              .strict(),
          )
          .optional(),
        /**
         * OAuth 2.1 sign-in over HTTP, beside `tokens` (what `--auth-issuer` / `--auth-audience`
         * set; the flags win): the authorization server whose access tokens are accepted, and
         * the audience they must name (default: the gateway's MCP URL), and the scopes that
         * include others (`{"gateway:admin": ["files"]}`: a token with gateway:admin may call
         * what needs files). A restart applies it.
         */
        oauth: z
          .object({
            issuer: z.url(),
            audience: z.url().optional(),
            scope_hierarchy: z.record(z.string(), z.array(z.string())).optional(),
          })
          .strict()
          .optional(),
        /**
         * The gateway as the authorization server its clients sign in to (instead of `oauth`'s
         * external one): its own users, the file (SQLite) its clients, grants and signing keys
         * are kept in, the lifetime of an access token. HTTP only; a restart applies it.
         */
        authorization_server: z
          .object({
            users: z
              .array(
                z
                  .object({
                    username: z
                      .string()
                      .regex(/^[A-Za-z0-9._@-]{1,200}$/, 'letters, digits and . _ @ - only'),
                    password_hash: z
                      .string()
                      .refine(isPasswordHash, 'not a hash from mcp-gateway hash-password'),
                    email: z.email().optional(),
                    groups: z.array(z.string().min(1).max(200)).max(100).optional(),
                    scopes: z.array(z.string().min(1).max(200)).max(100).optional(),
                  })
                  .strict(),
              )
              .optional(),
            /**
             * The organisation's OpenID provider people sign in at instead (or besides): its
             * issuer, this gateway's client there (redirect URI `<gateway>/oauth/upstream/callback`),
             * which claim names the person (`sub`, or `email` when the provider verified it).
             */
            upstream: z
              .object({
                issuer: z.url(),
                client_id: z.string().min(1),
                client_secret: z.string().min(1).optional(),
                name: z.string().min(1).max(100).default('your organisation'),
                username_claim: z.enum(['sub', 'email']).default('sub'),
              })
              .strict()
              .optional(),
            store: z.string().min(1).optional(),
            access_token_ttl: z.number().int().min(60).max(86_400).default(3600),
          })
          .strict()
          .refine((a) => (a.users?.length ?? 0) > 0 || a.upstream !== undefined, {
            message: 'people sign in somewhere: give users, or upstream, or both',
          })
          .optional(),
        /**
         * The credential vault's key (AES-256-GCM, 32 bytes, base64 or hex): from `key_env`
         * (default MCP_GATEWAY_VAULT_KEY) or `key_file`; earlier keys during a rotation from
         * `previous_keys_env` (default MCP_GATEWAY_VAULT_PREVIOUS_KEYS). Never the key itself:
         * this file is shared.
         */
        vault: z
          .object({
            key_env: z
              .string()
              .regex(/^[A-Za-z_][A-Za-z0-9_]*$/)
              .optional(),
            key_file: z.string().min(1).optional(),
            previous_keys_env: z
              .string()
              .regex(/^[A-Za-z_][A-Za-z0-9_]*$/)
              .optional(),
          })
          .strict()
          .optional(),
        /**
         * Rules on who may call which backend tool with which arguments, in CEL (see
         * governance/rules.ts): a `deny` that matches refuses, else an `allow` that matches
         * permits, else `rules_default` (default `allow`). A tool no call could be allowed is
         * not listed. Reloaded with the file; an invalid rule keeps the running set.
         */
        rules: z
          .array(
            z
              .object({
                name: z
                  .string()
                  .regex(/^[A-Za-z0-9_.-]{1,100}$/, 'letters, digits, _ . - (at most 100)'),
                effect: z.enum(['allow', 'deny']),
                when: z.string().min(1).max(4000),
              })
              .strict(),
          )
          .max(1000)
          .optional(),
        rules_default: z.enum(['allow', 'deny']).optional(),
        /**
         * Virtual servers (see servers/definition.ts): endpoints of their own
         * (`/servers/<name>/mcp`, `--server <name>`), each a chosen set of the backends' tools,
         * prompts and resources, renamed and annotated as the operator says. Reloaded with the
         * file.
         */
        servers: z
          .record(
            z.string().regex(SERVER_NAME, 'letters, digits, _ or - (at most 64)'),
            virtualServerSchema,
          )
          .optional(),
        /**
         * At most `limit` calls per identity per `window_sec` of the backend tools `tools`
         * names (advertised names; `ns__*` for a backend's all): exact across a fleet (Redis),
         * a refused call answered -32000 with `retryAfter`.
         */
        quotas: z
          .array(
            z
              .object({
                name: z
                  .string()
                  .regex(/^[A-Za-z0-9_.-]{1,100}$/, 'letters, digits, _ . - (at most 100)'),
                tools: z.array(z.string().min(1).max(200)).min(1).max(1000),
                /** Only the calls through this virtual server (default: every endpoint's). */
                server: z.string().regex(SERVER_NAME).optional(),
                limit: z.number().int().positive().max(1_000_000_000),
                window_sec: z
                  .number()
                  .int()
                  .positive()
                  .max(31 * 86_400),
              })
              .strict(),
          )
          .max(100)
          .optional(),
        /**
         * Checks around every backend tool call, in order (see governance/hooks.ts): the
         * built-in `redact` and `size_caps`, or an ES module of the operator's (its path
         * relative to the config file). `tools` limits one to some tools (advertised names,
         * `ns__*`). Read at start.
         */
        hooks: z
          .array(
            z.union([
              z.object({ use: z.literal('redact'), tools: hookTools }).strict(),
              z
                .object({
                  use: z.literal('size_caps'),
                  tools: hookTools,
                  max_args_bytes: z.number().int().positive().optional(),
                  max_result_bytes: z.number().int().positive().optional(),
                })
                .strict()
                .refine((c) => c.max_args_bytes !== undefined || c.max_result_bytes !== undefined, {
                  message: 'size_caps needs max_args_bytes, max_result_bytes or both',
                }),
              z
                .object({
                  module: z.string().min(1),
                  options: z.record(z.string(), z.unknown()).optional(),
                  tools: hookTools,
                })
                .strict(),
            ]),
          )
          .max(50)
          .optional(),
        /**
         * The gateway as an MCP Registry (`GET /v0.1/servers`, over HTTP, behind its tokens):
         * its entries are named `<namespace>/<backend>`, `<namespace>/servers.<name>` and
         * `<namespace>/gateway.all` (default namespace `local.<gateway name>`). Entries named in
         * `deprecated` or `deleted` (by what follows the slash) say so — another gateway
         * installing a deleted one refuses it.
         */
        registry: z
          .object({
            enabled: z.boolean().default(true),
            namespace: z
              .string()
              .regex(/^[a-zA-Z0-9.-]{1,100}$/, 'a reverse-DNS namespace: io.github.acme')
              .optional(),
            deprecated: z.array(z.string().min(1)).max(1000).optional(),
            deleted: z.array(z.string().min(1)).max(1000).optional(),
          })
          .strict()
          .optional(),
        /** Where approved tool definitions are kept (backends with `pin`): a SQLite file, or postgres://… shared by a fleet. */
        pins: z
          .object({ path: z.string().min(1).optional() })
          .strict()
          .optional(),
        /**
         * People's own links to backends with a `credential` or `per_identity`: at most
         * `max_links` at once (the least recently used idle one makes room), each closed — its
         * process stopped — after `idle_sec` without a call.
         */
        per_person: z
          .object({
            max_links: z.number().int().positive().max(10_000).default(64),
            idle_sec: z.number().positive().max(86_400).default(600),
          })
          .strict()
          .default({ max_links: 64, idle_sec: 600 }),
        events: z
          .object({
            path: z.string().optional(),
            retention_days: z.number().positive().default(30),
            max_events: z.number().int().positive().default(1_000_000),
            detail_per_second: z.number().nonnegative().default(1_000),
          })
          .strict()
          .default({ retention_days: 30, max_events: 1_000_000, detail_per_second: 1_000 }),
      })
      .strict()
      .default({
        name: 'mcpkit-gateway',
        log_level: 'INFO',
        debug: false,
        backend_timeout: 30,
        tool_names: 'double-underscore',
        bridge: { park_ttl_ms: 300_000, max_parked: 100, max_parked_per_caller: 10 },
        per_person: { max_links: 64, idle_sec: 600 },
        events: { retention_days: 30, max_events: 1_000_000, detail_per_second: 1_000 },
      }),
    mcpServers: z.record(
      z.string().regex(NAMESPACE, 'backend names: letters, digits, _ or - (no __)'),
      backendSchema,
    ),
  })
  .strict()
  .refine((c) => !(c.gateway.oauth && c.gateway.authorization_server), {
    message:
      'gateway.oauth (an external authorization server) and gateway.authorization_server (the gateway as one) exclude each other',
    path: ['gateway', 'authorization_server'],
  })
  .superRefine((c, ctx) => {
    // Every rule compiles, or the file is refused naming the rule and why (the running set stays).
    const rules = c.gateway.rules ?? [];
    const seen = new Set<string>();
    for (const [index, rule] of rules.entries()) {
      if (seen.has(rule.name)) {
        ctx.addIssue({
          code: 'custom',
          message: `a second rule named '${rule.name}'`,
          path: ['gateway', 'rules', index, 'name'],
        });
      }
      seen.add(rule.name);
    }
    try {
      RuleSet.compile(rules);
    } catch (err) {
      if (!RuleError.is(err)) throw err;
      ctx.addIssue({
        code: 'custom',
        message: err.message,
        path: ['gateway', 'rules', err.index, 'when'],
      });
    }
    // A virtual server draws on backends that exist (a typo would be an empty server).
    for (const [name, server] of Object.entries(c.gateway.servers ?? {})) {
      for (const backend of namedBackends(server)) {
        if (c.mcpServers[backend]) continue;
        ctx.addIssue({
          code: 'custom',
          message: `virtual server '${name}' names backend '${backend}', which is not in mcpServers`,
          path: ['gateway', 'servers', name],
        });
      }
    }
    for (const [index, quota] of (c.gateway.quotas ?? []).entries()) {
      if (quota.server === undefined || c.gateway.servers?.[quota.server]) continue;
      ctx.addIssue({
        code: 'custom',
        message: `quota '${quota.name}' names virtual server '${quota.server}', which is not in gateway.servers`,
        path: ['gateway', 'quotas', index, 'server'],
      });
    }
    // A person's own credential needs a person (the gateway's sign-in) and a key to seal it.
    for (const [name, backend] of Object.entries(c.mcpServers)) {
      if (!isPersonal(backend)) continue;
      if (!c.gateway.authorization_server) {
        ctx.addIssue({
          code: 'custom',
          message:
            'each person’s own credential or process needs people who sign in: set gateway.authorization_server',
          path: ['mcpServers', name],
        });
      }
    }
  });

/** Whether a backend is reached through each person's own link (a credential, or per_identity). */
export function isPersonal(backend: BackendConfig): boolean {
  return (
    backend.credential !== undefined || ('per_identity' in backend && backend.per_identity === true)
  );
}

/** The gateway's config file, validated: `gateway` settings and the `mcpServers` backends. */
export type GatewayConfig = z.infer<typeof configSchema>;
/** One backend: a stdio command or a Streamable HTTP `url`, with its namespace and restart policy. */
export type BackendConfig = GatewayConfig['mcpServers'][string];
export type StdioBackendConfig = z.infer<typeof stdioBackend>;
export type HttpBackendConfig = z.infer<typeof httpBackend>;
export type RegistryBackendConfig = z.infer<typeof registryBackend>;
/** A backend as it runs: a stdio command or an HTTP URL (a registry backend once resolved). */
export type RunnableBackendConfig = StdioBackendConfig | HttpBackendConfig;
export type RestartPolicy = z.infer<typeof restartSchema>;
export const DEFAULT_RESTART: RestartPolicy = restartSchema.parse({});

export const isStdio = (b: BackendConfig): b is StdioBackendConfig => 'command' in b;
/** A backend declared by its registry entry (resolved when it starts: registry/install.ts). */
export const isRegistry = (b: BackendConfig): b is RegistryBackendConfig =>
  'registry' in b || 'server_json' in b;

/**
 * Validate a parsed config; every problem names its field — and, given the file's `text`, its
 * line (`gateway.rules.3.when (line 41): rule 'no-rm': …`).
 */
export function parseConfig(
  raw: unknown,
  env: NodeJS.ProcessEnv = process.env,
  text?: string,
): GatewayConfig {
  const result = configSchema.safeParse(interpolate(raw, env));
  if (!result.success) {
    const lines = result.error.issues.map((i) => {
      const path = i.path.filter((p): p is string | number => typeof p !== 'symbol');
      const line = text === undefined ? undefined : lineOf(text, path);
      return `${path.join('.') || '(root)'}${line === undefined ? '' : ` (line ${line})`}: ${i.message}`;
    });
    throw new ConfigError(`invalid gateway config:\n  ${lines.join('\n  ')}`);
  }
  return result.data;
}

/**
 * Read and validate a JSON config file, environment variables interpolated (see `parseConfig`);
 * throws a ConfigError.
 */
export function loadConfig(file: string, env: NodeJS.ProcessEnv = process.env): GatewayConfig {
  const { raw, text } = readConfigText(file);
  return parseConfig(raw, env, text);
}

/**
 * Backends started with a sensitive scope (system-info's `sensitive`: auth logs, process command
 * lines …) whose tools every gateway client may call: no `scopes` on the backend, or no tokens
 * at all. Read from the backend's own settings (`MCP_SYSINFO_SCOPES`, `--scopes`), so it names
 * what the gateway can see; a backend that grants itself more is beyond its view.
 */
export function exposureWarnings(
  config: GatewayConfig,
  authenticated: boolean,
  env: NodeJS.ProcessEnv = process.env,
): string[] {
  const warnings: string[] = [];
  for (const [name, backend] of Object.entries(config.mcpServers)) {
    if (backend.enabled === false || !isStdio(backend)) continue;
    const args = backend.args;
    const flag = args.findIndex((a) => a === '--scopes' || a.startsWith('--scopes='));
    const fromArgs =
      flag === -1 ? '' : args[flag]?.includes('=') ? args[flag] : (args[flag + 1] ?? '');
    const inherited = backend.inheritEnv ? (env.MCP_SYSINFO_SCOPES ?? '') : '';
    const granted = `${backend.env.MCP_SYSINFO_SCOPES ?? ''},${inherited},${fromArgs}`;
    if (!/\bsensitive\b/.test(granted)) continue;
    if (!authenticated || !backend.scopes?.length) {
      warnings.push(
        `backend '${name}' is started with the sensitive scope and its tools are open to every gateway client${
          authenticated ? '' : ' (no token: anyone who reaches the gateway)'
        }: set "scopes" on it and give clients tokens in gateway.tokens`,
      );
    }
  }
  return warnings;
}

/**
 * With no --config: the two sibling servers of this repository, over stdio (see
 * {@link defaultRawConfig}).
 */
export function defaultConfig(env: NodeJS.ProcessEnv = process.env): GatewayConfig {
  return parseConfig(defaultRawConfig(env), env);
}
