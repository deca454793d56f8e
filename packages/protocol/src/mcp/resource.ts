import type { McpContext } from './context.js';
import type { Annotations, Icon, ReadResourceResult, ResourceContents } from './types.js';
import { UriTemplate } from './uri-template.js';

/** What a read may return: text, bytes, contents, or a whole result. */
export type ReadOutput =
  | string
  | Uint8Array
  | ResourceContents
  | ResourceContents[]
  | ReadResourceResult;

/** What `resources/list` shows of a resource or resource template, besides its URI. */
export interface ResourceMeta {
  /** Programmatic name. */
  name: string;
  /** Display name. */
  title?: string;
  /** What it holds, for the model and the user. */
  description?: string;
  /** The MIME type of its contents; also the type a string or bytes from `read` are given. */
  mimeType?: string;
  /** Audience and priority hints. */
  annotations?: Annotations;
  /** Icons a client may show. */
  icons?: Icon[];
  /** Free-form metadata. */
  _meta?: Record<string, unknown>;
  /**
   * Scopes a caller must hold to see and use it, as a tool's `requiredScopes`: a caller without
   * them finds it in no list, and reading, getting, completing or subscribing to it answers as
   * if it did not exist.
   */
  requiredScopes?: readonly string[];
}

/** What {@link defineResource} takes: a resource at one fixed URI. */
export interface ResourceSpec extends ResourceMeta {
  /** Its URI, e.g. `file:///etc/hosts` or `app://config`. */
  uri: string;
  /** Its size in bytes, if known before reading. */
  size?: number;
  /** Read it: text, bytes, contents or a whole result ({@link ReadOutput}). */
  read: (ctx: McpContext) => ReadOutput | Promise<ReadOutput>;
}

/** A completer returns candidate values for one template variable or prompt argument. */
export type Completer = (
  value: string,
  ctx: McpContext,
  context: Readonly<Record<string, string>>,
) => readonly string[] | Promise<readonly string[]>;

/** What {@link defineResourceTemplate} takes: resources whose URIs follow one template. */
export interface ResourceTemplateSpec extends ResourceMeta {
  /** An RFC 6570 URI template, e.g. `app://projects/{projectId}`. */
  uriTemplate: string;
  /** Concrete resources of this template to show in `resources/list`. */
  list?: (ctx: McpContext) => ResourceListEntry[] | Promise<ResourceListEntry[]>;
  /** Completers per template variable, for `completion/complete`. */
  complete?: Readonly<Record<string, Completer>>;
  /** Read the resource at `uri`, whose variables the template matched into `vars`. */
  read: (
    uri: string,
    vars: Record<string, string>,
    ctx: McpContext,
  ) => ReadOutput | Promise<ReadOutput>;
}

/** One concrete resource of a template, as `resources/list` shows it. */
export interface ResourceListEntry extends Partial<ResourceMeta> {
  /** A URI the template matches. */
  uri: string;
  /** Programmatic name. */
  name: string;
  /** Its size in bytes, if known. */
  size?: number;
}

/** A resource made by {@link defineResource}, ready for `server.addResource`. */
export interface Resource {
  /** Its URI. */
  readonly uri: string;
  /** What `resources/list` shows of it. */
  readonly listEntry: Readonly<Record<string, unknown>>;
  /** Reads it. */
  readonly read: ResourceSpec['read'];
  /** The MIME type of its contents, if given. */
  readonly mimeType: string | undefined;
  /** Scopes a caller must hold to see and read it (see {@link ResourceMeta.requiredScopes}). */
  readonly requiredScopes?: readonly string[];
}

/** A resource template made by {@link defineResourceTemplate}, for `server.addResourceTemplate`. */
export interface ResourceTemplate {
  /** The parsed URI template. */
  readonly template: UriTemplate;
  /** Programmatic name. */
  readonly name: string;
  /** What `resources/templates/list` shows of it. */
  readonly listEntry: Readonly<Record<string, unknown>>;
  /** Its concrete resources for `resources/list`, if any. */
  readonly list: ResourceTemplateSpec['list'];
  /** Completers per template variable. */
  readonly complete: Readonly<Record<string, Completer>>;
  /** Reads a resource the template matches. */
  readonly read: ResourceTemplateSpec['read'];
  /** The MIME type of its contents, if given. */
  readonly mimeType: string | undefined;
  /** Scopes a caller must hold to see and read it (see {@link ResourceMeta.requiredScopes}). */
  readonly requiredScopes?: readonly string[];
}

function metaEntry(spec: ResourceMeta): Record<string, unknown> {
  const entry: Record<string, unknown> = { name: spec.name };
  if (spec.title !== undefined) entry.title = spec.title;
  if (spec.description !== undefined) entry.description = spec.description;
  if (spec.mimeType !== undefined) entry.mimeType = spec.mimeType;
  if (spec.annotations !== undefined) entry.annotations = spec.annotations;
  if (spec.icons !== undefined) entry.icons = spec.icons;
  if (spec._meta !== undefined) entry._meta = spec._meta;
  return entry;
}

/**
 * A resource at one fixed URI. A string from `read` is sent as text, bytes as a base64 blob, both
 * with the resource's `mimeType`.
 *
 * @example
 * ```ts
 * const readme = defineResource({
 *   uri: 'docs://readme',
 *   name: 'readme',
 *   mimeType: 'text/markdown',
 *   read: () => '# Hello',
 * });
 * server.addResource(readme);
 * ```
 */
export function defineResource(spec: ResourceSpec): Resource {
  if (!spec.uri) throw new TypeError('a resource needs a uri');
  const entry = { uri: spec.uri, ...metaEntry(spec) };
  if (spec.size !== undefined) (entry as Record<string, unknown>).size = spec.size;
  return {
    uri: spec.uri,
    listEntry: Object.freeze(entry),
    read: spec.read,
    mimeType: spec.mimeType,
    ...(spec.requiredScopes?.length ? { requiredScopes: [...spec.requiredScopes] } : {}),
  };
}

/**
 * Resources whose URIs follow an RFC 6570 template: `read` gets the matched variables, `list`
 * may show concrete ones, `complete` suggests values for `completion/complete`. Throws a
 * `TypeError` for a completer of a variable the template does not have.
 *
 * @example
 * ```ts
 * const project = defineResourceTemplate({
 *   uriTemplate: 'app://projects/{id}',
 *   name: 'project',
 *   mimeType: 'application/json',
 *   complete: { id: (prefix) => ids.filter((id) => id.startsWith(prefix)) },
 *   read: (_uri, { id }) => JSON.stringify(projects.get(id)),
 * });
 * ```
 */
export function defineResourceTemplate(spec: ResourceTemplateSpec): ResourceTemplate {
  const template = new UriTemplate(spec.uriTemplate);
  for (const name of Object.keys(spec.complete ?? {})) {
    if (!template.variableNames.includes(name)) {
      throw new TypeError(`template '${spec.uriTemplate}' has no variable '${name}' to complete`);
    }
  }
  return {
    template,
    name: spec.name,
    listEntry: Object.freeze({ uriTemplate: spec.uriTemplate, ...metaEntry(spec) }),
    list: spec.list,
    complete: spec.complete ?? {},
    read: spec.read,
    mimeType: spec.mimeType,
    ...(spec.requiredScopes?.length ? { requiredScopes: [...spec.requiredScopes] } : {}),
  };
}

/** Normalise a read's output into `{ contents: [...] }` for `uri`. */
export function toReadResult(
  output: ReadOutput,
  uri: string,
  mimeType: string | undefined,
): ReadResourceResult {
  if (typeof output === 'string') {
    return { contents: [mimeType ? { uri, mimeType, text: output } : { uri, text: output }] };
  }
  if (output instanceof Uint8Array) {
    const blob = Buffer.from(output.buffer, output.byteOffset, output.byteLength).toString(
      'base64',
    );
    return { contents: [mimeType ? { uri, mimeType, blob } : { uri, blob }] };
  }
  if (Array.isArray(output)) return { contents: output };
  if ('contents' in output && Array.isArray(output.contents)) return output as ReadResourceResult;
  return { contents: [output as ResourceContents] };
}
