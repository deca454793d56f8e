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

interface ResourceMeta {
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
  annotations?: Annotations;
  icons?: Icon[];
  _meta?: Record<string, unknown>;
}

export interface ResourceSpec extends ResourceMeta {
  uri: string;
  size?: number;
  read: (ctx: McpContext) => ReadOutput | Promise<ReadOutput>;
}

/** A completer returns candidate values for one template variable or prompt argument. */
export type Completer = (
  value: string,
  ctx: McpContext,
  context: Readonly<Record<string, string>>,
) => readonly string[] | Promise<readonly string[]>;

export interface ResourceTemplateSpec extends ResourceMeta {
  uriTemplate: string;
  /** Concrete resources of this template to show in `resources/list`. */
  list?: (ctx: McpContext) => ResourceListEntry[] | Promise<ResourceListEntry[]>;
  complete?: Readonly<Record<string, Completer>>;
  read: (
    uri: string,
    vars: Record<string, string>,
    ctx: McpContext,
  ) => ReadOutput | Promise<ReadOutput>;
}

export interface ResourceListEntry extends Partial<ResourceMeta> {
  uri: string;
  name: string;
  size?: number;
}

export interface Resource {
  readonly uri: string;
  readonly listEntry: Readonly<Record<string, unknown>>;
  readonly read: ResourceSpec['read'];
  readonly mimeType: string | undefined;
}

export interface ResourceTemplate {
  readonly template: UriTemplate;
  readonly name: string;
  readonly listEntry: Readonly<Record<string, unknown>>;
  readonly list: ResourceTemplateSpec['list'];
  readonly complete: Readonly<Record<string, Completer>>;
  readonly read: ResourceTemplateSpec['read'];
  readonly mimeType: string | undefined;
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

export function defineResource(spec: ResourceSpec): Resource {
  if (!spec.uri) throw new TypeError('a resource needs a uri');
  const entry = { uri: spec.uri, ...metaEntry(spec) };
  if (spec.size !== undefined) (entry as Record<string, unknown>).size = spec.size;
  return {
    uri: spec.uri,
    listEntry: Object.freeze(entry),
    read: spec.read,
    mimeType: spec.mimeType,
  };
}

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
