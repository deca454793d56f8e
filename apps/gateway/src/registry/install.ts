/**
 * A backend declared by its MCP Registry entry (`"registry": "io.github.owner/server@1.2.3"`,
 * from the official registry, another registry's URL — another gateway's sub-registry — or a
 * local `server.json`), resolved into the stdio or HTTP backend it runs as. The supervisor
 * resolves it at its first start (and again when an operator restarts it), so a registry that
 * is down at start is retried with the backend's restart backoff, and a withdrawn entry is
 * refused once with the reason.
 */
import { readFile } from 'node:fs/promises';
import { isAbsolute, resolve } from 'node:path';
import type { HttpBackendConfig, RegistryBackendConfig, StdioBackendConfig } from '../config.js';
import {
  launchOf,
  OFFICIAL_META,
  RegistryEntryError,
  type ServerDetail,
  serverDetailSchema,
  serverResponseSchema,
} from './server-json.js';

/** The official MCP Registry: where a `registry` name is looked up without `registry_url`. */
export const OFFICIAL_REGISTRY = 'https://registry.modelcontextprotocol.io';
/** A registry answer larger than this is refused (a server.json is a few KB). */
const MAX_ANSWER_BYTES = 1024 * 1024;

/** Where a registry backend came from: the entry, its status, and what it runs as. */
export interface RegistryOrigin {
  /** The entry's name (`io.github.owner/server`). */
  readonly name: string;
  /** The entry's version (the latest's when none was asked for). */
  readonly version: string;
  /** The registry's base URL, or the server.json file's path. */
  readonly source: string;
  /** The registry's status of the entry (`active` for a local file). */
  readonly status: 'active' | 'deprecated';
  /** An npm package over stdio, or a Streamable HTTP remote. */
  readonly via: 'package' | 'remote';
  /** The entry itself (the gateway's sub-registry lists a package it installed as it found it). */
  readonly detail: ServerDetail;
}

/** What {@link resolveRegistryBackend} needs besides the backend's config. */
export interface ResolveOptions {
  /** The directory a relative `server_json` path is read from (the config file's). */
  readonly configDir: string;
  /** How long a registry may take to answer, ms. */
  readonly timeoutMs: number;
}

/** A declared `name@version` (or `name`: the latest) split. */
export function parseRegistryRef(ref: string): { name: string; version: string | undefined } {
  const at = ref.indexOf('@');
  return at === -1
    ? { name: ref, version: undefined }
    : { name: ref.slice(0, at), version: ref.slice(at + 1) };
}

/**
 * A response's body as text, or undefined once it passes `max` bytes — read no further than that,
 * whatever its Content-Length says (a chunked answer has none).
 */
async function readAtMost(response: Response, max: number): Promise<string | undefined> {
  if (Number(response.headers.get('content-length') ?? 0) > max) {
    void response.body?.cancel().catch(() => undefined);
    return undefined;
  }
  if (!response.body) return '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = response.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > max) {
      void reader.cancel().catch(() => undefined);
      return undefined;
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** One entry from a registry's `GET /v0.1/servers/{name}/versions/{version}`. */
async function fromRegistry(
  config: RegistryBackendConfig,
  ref: string,
  timeoutMs: number,
): Promise<{ detail: ServerDetail; status: 'active' | 'deprecated'; source: string }> {
  const { name, version } = parseRegistryRef(ref);
  const base = (config.registry_url ?? OFFICIAL_REGISTRY).replace(/\/+$/, '');
  const asked = `${name}@${version ?? 'latest'}`;
  // A token in the clear only to this machine (another gateway on loopback, a test).
  if (
    config.registry_token &&
    !/^https:|^http:\/\/(127\.0\.0\.1|localhost|\[::1\])(:|\/|$)/.test(base)
  ) {
    throw new RegistryEntryError(
      `registry ${base}: registry_token is sent over https only (or to 127.0.0.1): use an https registry_url`,
    );
  }
  const url = `${base}/v0.1/servers/${encodeURIComponent(name)}/versions/${encodeURIComponent(version ?? 'latest')}`;
  let response: Response;
  try {
    response = await fetch(url, {
      headers: {
        accept: 'application/json',
        ...(config.registry_token ? { authorization: `Bearer ${config.registry_token}` } : {}),
      },
      signal: AbortSignal.timeout(timeoutMs),
    });
  } catch (err) {
    // Down, refused, timed out: worth trying again (the restart backoff does).
    throw new Error(`registry ${base} did not answer for ${asked}: ${(err as Error).message}`);
  }
  if (!response.ok) void response.body?.cancel().catch(() => undefined);
  if (response.status === 404) {
    throw new RegistryEntryError(`${asked} is not in the registry at ${base}`);
  }
  if (response.status === 401 || response.status === 403) {
    throw new RegistryEntryError(
      `registry ${base} refused the lookup of ${asked} (HTTP ${response.status}): give the backend a registry_token it accepts`,
    );
  }
  if (!response.ok)
    throw new Error(`registry ${base} answered HTTP ${response.status} for ${asked}`);
  let text: string | undefined;
  try {
    text = await readAtMost(response, MAX_ANSWER_BYTES);
  } catch (err) {
    // Reset or timed out mid-answer: worth trying again, as a registry that did not answer.
    throw new Error(
      `registry ${base} broke off its answer for ${asked}: ${(err as Error).message}`,
    );
  }
  if (text === undefined) {
    throw new RegistryEntryError(`registry ${base}: the entry ${asked} is over 1 MiB`);
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new RegistryEntryError(
      `registry ${base} answered ${asked} with something that is not JSON`,
    );
  }
  const parsed = serverResponseSchema.safeParse(body);
  if (!parsed.success) {
    const first = parsed.error.issues[0];
    throw new RegistryEntryError(
      `registry ${base} answered ${asked} with an entry that is not a server.json: ${first?.path.join('.') || '(root)'}: ${first?.message}`,
    );
  }
  const { server, _meta } = parsed.data;
  if (server.name !== name || (version !== undefined && server.version !== version)) {
    throw new RegistryEntryError(
      `registry ${base} answered ${asked} with ${server.name}@${server.version}`,
    );
  }
  const status = _meta?.[OFFICIAL_META]?.status ?? 'active';
  if (status === 'deleted') {
    throw new RegistryEntryError(
      `${server.name}@${server.version} is deleted in the registry at ${base}: refused (its publisher withdrew it); pick another version or remove the backend`,
    );
  }
  return { detail: server, status, source: base };
}

/** A local server.json (relative to the config file's directory). */
async function fromFile(
  file: string,
  configDir: string,
): Promise<{ detail: ServerDetail; status: 'active'; source: string }> {
  const path = isAbsolute(file) ? file : resolve(configDir, file);
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    throw new RegistryEntryError(`cannot read server_json ${path}: ${(err as Error).message}`);
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new RegistryEntryError(`server_json ${path} is not JSON`);
  }
  const parsed = serverDetailSchema.safeParse(body);
  if (!parsed.success) {
    const first = parsed.error.issues[0];
    throw new RegistryEntryError(
      `server_json ${path}: ${first?.path.join('.') || '(root)'}: ${first?.message}`,
    );
  }
  return { detail: parsed.data, status: 'active', source: path };
}

/** The fields every backend has (namespace, restart policy, scopes …), kept as declared. */
function commonOf(config: RegistryBackendConfig) {
  const {
    registry: _registry,
    registry_url: _url,
    registry_token: _token,
    server_json: _file,
    prefer: _prefer,
    inputs: _inputs,
    type: _type,
    ...common
  } = config;
  return common;
}

/**
 * The stdio or HTTP backend a registry backend runs as, and where it came from. Throws a
 * {@link RegistryEntryError} for what an operator must change (a deleted or unknown entry, a
 * missing input, nothing runnable), any other error for what may pass (the registry is down).
 */
export async function resolveRegistryBackend(
  config: RegistryBackendConfig,
  options: ResolveOptions,
): Promise<{ config: StdioBackendConfig | HttpBackendConfig; origin: RegistryOrigin }> {
  const found =
    config.server_json !== undefined
      ? await fromFile(config.server_json, options.configDir)
      : await fromRegistry(config, config.registry as string, options.timeoutMs);
  const launch = launchOf(found.detail, config.inputs, config.prefer);
  const origin: RegistryOrigin = {
    name: found.detail.name,
    version: found.detail.version,
    source: found.source,
    status: found.status,
    via: launch.kind,
    detail: found.detail,
  };
  const common = commonOf(config);
  if (launch.kind === 'package') {
    return {
      config: {
        ...common,
        command: launch.command,
        args: launch.args,
        env: launch.env,
        inheritEnv: false,
      },
      origin,
    };
  }
  return { config: { ...common, url: launch.url, headers: launch.headers }, origin };
}
