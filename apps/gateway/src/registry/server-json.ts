/**
 * What the MCP Registry says about a server (`server.json`, schema 2025-12-11; the registry API's
 * `ServerResponse`), read leniently — unknown fields pass, the fields the gateway uses are
 * checked — and turned into a backend: an npm package becomes a stdio backend
 * (`npx -y <package>@<version> …`), a `streamable-http` remote an HTTP backend, each filled in
 * from the operator's `inputs`.
 */
import { z } from 'zod';

/** An input as server.json describes one: a value to fill in, with `{variables}`. */
const inputShape = {
  description: z.string().optional(),
  isRequired: z.boolean().optional(),
  isSecret: z.boolean().optional(),
  format: z.string().optional(),
  value: z.string().optional(),
  default: z.string().optional(),
  choices: z.array(z.string()).optional(),
};
const input = z.looseObject(inputShape);
const withVariables = { ...inputShape, variables: z.record(z.string(), input).optional() };
const keyValue = z.looseObject({ ...withVariables, name: z.string().min(1) });
const argument = z.looseObject({
  ...withVariables,
  type: z.enum(['positional', 'named']),
  name: z.string().optional(),
  valueHint: z.string().optional(),
});
const packageSchema = z.looseObject({
  registryType: z.string().min(1),
  registryBaseUrl: z.string().optional(),
  identifier: z.string().min(1),
  version: z.string().min(1).optional(),
  runtimeHint: z.string().optional(),
  transport: z.looseObject({ type: z.string() }),
  runtimeArguments: z.array(argument).optional(),
  packageArguments: z.array(argument).optional(),
  environmentVariables: z.array(keyValue).optional(),
});
const remoteSchema = z.looseObject({
  type: z.string(),
  url: z.string().min(1),
  headers: z.array(keyValue).optional(),
  variables: z.record(z.string(), input).optional(),
});

/** A server.json (the fields the gateway reads; others pass through). */
export const serverDetailSchema = z.looseObject({
  name: z.string().regex(/^[a-zA-Z0-9.-]+\/[a-zA-Z0-9._-]+$/, 'a reverse-DNS name with one /'),
  description: z.string(),
  version: z.string().min(1),
  title: z.string().optional(),
  packages: z.array(packageSchema).optional(),
  remotes: z.array(remoteSchema).optional(),
});

/** The registry's `_meta` key of its own facts about an entry (status, dates, latest). */
export const OFFICIAL_META = 'io.modelcontextprotocol.registry/official';

/** One registry entry: the server.json and the registry's facts about it. */
export const serverResponseSchema = z.looseObject({
  server: serverDetailSchema,
  _meta: z
    .looseObject({
      [OFFICIAL_META]: z
        .looseObject({
          status: z.enum(['active', 'deprecated', 'deleted']).optional(),
          isLatest: z.boolean().optional(),
        })
        .optional(),
    })
    .optional(),
});

export type ServerDetail = z.infer<typeof serverDetailSchema>;
export type ServerResponse = z.infer<typeof serverResponseSchema>;
type Input = z.infer<typeof input> & { variables?: Record<string, z.infer<typeof input>> };
type Package = z.infer<typeof packageSchema>;
type Remote = z.infer<typeof remoteSchema>;

/**
 * A registry entry that cannot become a backend, and why (a missing input, nothing this gateway
 * can run, a deleted entry): trying again does not help — an operator must change something.
 */
export class RegistryEntryError extends Error {
  /** @param message - What is wrong, naming the entry and what to change. */
  constructor(message: string) {
    super(message);
    this.name = 'RegistryEntryError';
  }
  /** Whether `err` is one (by class, never by text). */
  static is(err: unknown): err is RegistryEntryError {
    return err instanceof RegistryEntryError;
  }
}

/** What a registry entry runs as: a stdio command or a Streamable HTTP URL. */
export type Launch =
  | { kind: 'package'; command: string; args: string[]; env: Record<string, string> }
  | { kind: 'remote'; url: string; headers: Record<string, string> };

/**
 * One input's value: its fixed `value` with `{variables}` filled in, else the operator's
 * `inputs[key]`, else its default; undefined when it is optional and nobody gave one. A required
 * input nobody gave, or a value outside its `choices`, is a RegistryEntryError.
 */
export function fill(
  spec: Input,
  key: string,
  inputs: Readonly<Record<string, string>>,
  entry: string,
): string | undefined {
  if (spec.value !== undefined) {
    // server.json: an identifier in braces not found in `variables` stays as it is.
    return spec.value.replace(/\{([A-Za-z0-9_.-]+)\}/g, (whole, name: string) => {
      const variable = spec.variables?.[name];
      if (!variable) return whole;
      return fill({ ...variable, value: undefined }, name, inputs, entry) ?? '';
    });
  }
  const value = inputs[key] ?? spec.default;
  if (value === undefined) {
    if (spec.isRequired) {
      throw new RegistryEntryError(
        `${entry} needs the input '${key}'${spec.description ? ` (${spec.description})` : ''}: give it in the backend's "inputs"`,
      );
    }
    return undefined;
  }
  if (spec.choices && spec.choices.length > 0 && !spec.choices.includes(value)) {
    throw new RegistryEntryError(
      `${entry}: input '${key}' is '${value}', not one of ${spec.choices.join(', ')}`,
    );
  }
  return value;
}

/** A package's or a runtime's arguments, in order: `--flag value`, or a positional value. */
function argumentsOf(
  list: readonly z.infer<typeof argument>[] | undefined,
  inputs: Readonly<Record<string, string>>,
  entry: string,
): string[] {
  const out: string[] = [];
  for (const arg of list ?? []) {
    const key = arg.type === 'named' ? (arg.name ?? '') : (arg.valueHint ?? arg.name ?? '');
    const value = fill(arg, key, inputs, entry);
    if (value === undefined) continue;
    if (arg.type === 'named') {
      if (!arg.name) throw new RegistryEntryError(`${entry}: a named argument without a name`);
      // A switch (format boolean) is the flag alone when true, absent when false.
      if (arg.format === 'boolean') {
        if (value === 'true') out.push(arg.name);
        continue;
      }
      out.push(arg.name, value);
    } else {
      out.push(value);
    }
  }
  return out;
}

/** `name: value` of each header or variable that has a value. */
function pairs(
  list: readonly z.infer<typeof keyValue>[] | undefined,
  inputs: Readonly<Record<string, string>>,
  entry: string,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const item of list ?? []) {
    const value = fill(item, item.name, inputs, entry);
    if (value !== undefined) out[item.name] = value;
  }
  return out;
}

const NPM_REGISTRY = 'https://registry.npmjs.org';

/** An npm package with a stdio transport as `npx -y <package>@<version> …`. */
function packageLaunch(
  pkg: Package,
  inputs: Readonly<Record<string, string>>,
  entry: string,
): Launch {
  const spec = `${pkg.identifier}@${pkg.version ?? 'latest'}`;
  // npx's own flags (runtimeArguments) come before the package; the package's after it.
  const args = [
    ...argumentsOf(pkg.runtimeArguments, inputs, entry),
    '-y',
    ...(pkg.registryBaseUrl && pkg.registryBaseUrl.replace(/\/$/, '') !== NPM_REGISTRY
      ? [`--registry=${pkg.registryBaseUrl}`]
      : []),
    spec,
    ...argumentsOf(pkg.packageArguments, inputs, entry),
  ];
  return {
    kind: 'package',
    command: 'npx',
    args,
    env: pairs(pkg.environmentVariables, inputs, entry),
  };
}

/** A Streamable HTTP remote with its URL's `{variables}` and its headers filled in. */
function remoteLaunch(
  remote: Remote,
  inputs: Readonly<Record<string, string>>,
  entry: string,
): Launch {
  const url = fill(
    { value: remote.url, variables: remote.variables },
    'url',
    inputs,
    entry,
  ) as string;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new RegistryEntryError(`${entry}: its remote URL '${url}' is not a URL once filled in`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new RegistryEntryError(`${entry}: its remote URL '${url}' is not http(s)`);
  }
  return { kind: 'remote', url: parsed.href, headers: pairs(remote.headers, inputs, entry) };
}

/** Why a package cannot run here, or undefined when it can (an npm package over stdio). */
function unrunnable(pkg: Package): string | undefined {
  if (pkg.registryType !== 'npm')
    return `a ${pkg.registryType} package (this gateway runs npm packages)`;
  if (pkg.transport.type !== 'stdio')
    return `an npm package over ${pkg.transport.type} (stdio only)`;
  return undefined;
}

/**
 * What a registry entry runs as: its first npm package over stdio, or its first Streamable HTTP
 * remote (`prefer` picks when it has both; default the package: the gateway supervises it).
 */
export function launchOf(
  detail: ServerDetail,
  inputs: Readonly<Record<string, string>>,
  prefer?: 'package' | 'remote',
): Launch {
  const entry = `${detail.name}@${detail.version}`;
  const packages = detail.packages ?? [];
  const pkg = packages.find((p) => unrunnable(p) === undefined);
  const remote = (detail.remotes ?? []).find((r) => r.type === 'streamable-http');
  if (prefer === 'remote' && !remote) {
    throw new RegistryEntryError(`${entry} has no streamable-http remote (prefer: "remote")`);
  }
  if (prefer === 'package' && !pkg) {
    throw new RegistryEntryError(
      `${entry} has no npm package over stdio (prefer: "package")${packages[0] ? `: it has ${unrunnable(packages[0])}` : ''}`,
    );
  }
  if (pkg && prefer !== 'remote') return packageLaunch(pkg, inputs, entry);
  if (remote) return remoteLaunch(remote, inputs, entry);
  const why = packages.map(unrunnable).filter(Boolean);
  throw new RegistryEntryError(
    `${entry} offers nothing this gateway can run: no npm package over stdio and no streamable-http remote${why.length ? ` (${why.join('; ')})` : ''}`,
  );
}
