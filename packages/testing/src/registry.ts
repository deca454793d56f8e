/**
 * The MCP Registry's published contracts, vendored in this package's `registry/` (see its
 * README for sources and hashes): the `server.json` schema 2025-12-11 (JSON Schema draft-07) and
 * the registry API's OpenAPI 3.1 document. A test checks an app's `server.json`, or what a
 * registry endpoint answers, against them. Each is compiled once per process.
 */
import { readFileSync } from 'node:fs';
import { Ajv, type ValidateFunction } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { parse } from 'yaml';

const dir = new URL('../registry/', import.meta.url);
/** The `$id` (and `$schema` value) of the server.json schema the kit carries. */
export const SERVER_JSON_SCHEMA =
  'https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json';

let serverJson: ValidateFunction | undefined;
let api: Ajv2020 | undefined;
const components = new Map<string, ValidateFunction>();
const API_ID = 'mcp-registry-openapi';

/** `ajv`'s errors as `path: message` lines; empty when the value is valid. */
function problems(validate: ValidateFunction): string[] {
  return (validate.errors ?? []).map(
    (e) =>
      `${e.instancePath || '(root)'}: ${e.message ?? 'invalid'}${e.params ? ` ${JSON.stringify(e.params)}` : ''}`,
  );
}

/** What is wrong with `doc` as a `server.json` (schema 2025-12-11); empty when it is valid. */
export function serverJsonProblems(doc: unknown): string[] {
  if (!serverJson) {
    // Draft-07, with the OpenAPI-flavoured `example` keyword the registry's generator leaves in.
    const ajv = new Ajv({ allErrors: true, strict: false });
    addFormats.default(ajv);
    serverJson = ajv.compile(JSON.parse(readFileSync(new URL('server.schema.json', dir), 'utf8')));
  }
  return serverJson(doc) ? [] : problems(serverJson);
}

/**
 * What is wrong with `body` as the registry API's `component` (`ServerList`, `ServerResponse`,
 * any of the OpenAPI document's `components.schemas`); empty when it is valid.
 */
export function registryResponseProblems(component: string, body: unknown): string[] {
  if (!api) {
    const doc = parse(readFileSync(new URL('openapi.yaml', dir), 'utf8')) as {
      components: unknown;
    };
    api = new Ajv2020({ allErrors: true, strict: false });
    addFormats.default(api);
    // The components under an id of their own: `#/components/schemas/X` resolves inside it.
    api.addSchema({ $id: API_ID, components: doc.components });
  }
  let validate = components.get(component);
  if (!validate) {
    validate = api.compile({ $ref: `${API_ID}#/components/schemas/${component}` });
    components.set(component, validate);
  }
  return validate(body) ? [] : problems(validate);
}
