#!/usr/bin/env node
// @ts-check
/**
 * Lint api/openapi.yaml:
 *
 *  1. it is an OpenAPI 3.1 document (@seriousme/openapi-schema-validator) and every local $ref
 *     resolves;
 *  2. every schema compiles under ajv (JSON Schema 2020-12, strict: a misspelt keyword is an
 *     error) and every example validates against its sibling schema: the `examples` / `example`
 *     of each media type, header and parameter, and the `examples` of each schema;
 *  3. request and response examples pair up by name (see info.description), and `x-token-scopes`
 *     names known scopes;
 *  4. the document's tools match the server's tools/list: every tool has an `*Arguments` schema
 *     (`x-tool-arguments`) and a `*Result` schema (`x-tool-result`) equal, up to annotations, to its
 *     inputSchema and outputSchema; `x-required-scopes` equals the tool's scopes; tools/call params
 *     are typed per tool; an example of a whole tools/list result equals the server's.
 *
 * Usage: node scripts/lint-openapi.mjs [file]. Run `pnpm build` first: the tool check loads
 * dist/server.js. Exits 1 and prints every problem found.
 */
import { readFile } from 'node:fs/promises';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { isDeepStrictEqual } from 'node:util';
import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { parseDocument } from 'yaml';

export const OPENAPI_FILE = fileURLToPath(new URL('../api/openapi.yaml', import.meta.url));
/** The $id the document is registered under in ajv: `${DOCUMENT_ID}#/components/schemas/X`. */
export const DOCUMENT_ID = 'urn:mcp-system-info:openapi';

const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];
/** Keywords whose value is a schema, an array of schemas, or a map of schemas. */
const SCHEMA_VALUED = [
  'items',
  'additionalProperties',
  'not',
  'if',
  'then',
  'else',
  'contains',
  'propertyNames',
  'unevaluatedItems',
  'unevaluatedProperties',
];
const SCHEMA_ARRAYS = ['allOf', 'anyOf', 'oneOf', 'prefixItems'];
const SCHEMA_MAPS = ['properties', 'patternProperties', '$defs', 'dependentSchemas'];
/** What a tool's schema may add to the server's without changing what it accepts. */
const ANNOTATIONS = new Set([
  'title',
  'description',
  'examples',
  'example',
  'format',
  'default',
  'deprecated',
  'readOnly',
  'writeOnly',
  '$comment',
]);
/** Keywords of the OpenAPI 3.1 schema dialect that JSON Schema 2020-12 does not define. */
const OAS_VOCABULARY = ['discriminator', 'xml', 'externalDocs', 'example'];
/**
 * The fields of the OpenAPI Object: ajv compiles the document's root when it resolves a $ref into
 * it, and strict mode would call them unknown keywords. Nothing below them is a schema keyword.
 */
const OPENAPI_FIELDS = [
  'openapi',
  'info',
  'jsonSchemaDialect',
  'servers',
  'paths',
  'webhooks',
  'components',
  'security',
  'tags',
];

const isObject = (v) => typeof v === 'object' && v !== null && !Array.isArray(v);
const escapePointer = (s) => String(s).replaceAll('~', '~0').replaceAll('/', '~1');
const unescapePointer = (s) => s.replaceAll('~1', '/').replaceAll('~0', '~');
const join = (pointer, ...keys) => `${pointer}/${keys.map(escapePointer).join('/')}`;

/** The value at a local JSON pointer (`/a/b`), or undefined. */
export function atPointer(doc, pointer) {
  if (pointer === '') return doc;
  let node = doc;
  for (const raw of pointer.slice(1).split('/')) {
    const key = unescapePointer(raw);
    if (Array.isArray(node)) node = node[Number(key)];
    else if (isObject(node)) node = Object.hasOwn(node, key) ? node[key] : undefined;
    else return undefined;
  }
  return node;
}

/** Parse the YAML; duplicate keys and syntax errors are fatal. */
export async function loadDocument(file = OPENAPI_FILE) {
  const text = await readFile(file, 'utf8');
  const parsed = parseDocument(text, { prettyErrors: true, uniqueKeys: true });
  if (parsed.errors.length > 0) {
    throw new Error(
      `${file} is not valid YAML:\n${parsed.errors.map((e) => e.message).join('\n')}`,
    );
  }
  return parsed.toJS();
}

/** Every schema object of the document with its pointer (roots and nested subschemas). */
function* schemaNodes(doc) {
  function* visit(schema, pointer) {
    if (!isObject(schema)) return;
    yield [schema, pointer];
    for (const key of SCHEMA_VALUED) {
      if (isObject(schema[key])) yield* visit(schema[key], join(pointer, key));
    }
    for (const key of SCHEMA_ARRAYS) {
      if (Array.isArray(schema[key])) {
        for (const [i, s] of schema[key].entries()) yield* visit(s, join(pointer, key, i));
      }
    }
    for (const key of SCHEMA_MAPS) {
      if (isObject(schema[key])) {
        for (const [name, s] of Object.entries(schema[key])) {
          yield* visit(s, join(pointer, key, name));
        }
      }
    }
  }
  for (const [name, schema] of Object.entries(doc.components?.schemas ?? {})) {
    yield* visit(schema, join('', 'components', 'schemas', name));
  }
  for (const [site, pointer] of exampleSites(doc)) {
    if (isObject(site.schema) && !site.schema.$ref)
      yield* visit(site.schema, join(pointer, 'schema'));
  }
}

/**
 * Objects that hold a `schema` beside `examples` / `example`: media types, headers, parameters.
 * Schema trees are not entered (a property may be called `schema`).
 */
function* exampleSites(doc) {
  function* walk(node, pointer) {
    if (Array.isArray(node)) {
      for (const [i, v] of node.entries()) yield* walk(v, join(pointer, i));
      return;
    }
    if (!isObject(node)) return;
    if (isObject(node.schema)) yield [node, pointer];
    for (const [key, value] of Object.entries(node)) {
      if (key === 'schema' || key === 'examples' || key === 'example') continue;
      if (pointer === '/components' && key === 'schemas') continue;
      yield* walk(value, join(pointer, key));
    }
  }
  yield* walk(doc, '');
}

/** Every `x-…` key used inside a schema: ajv's strict mode must be told about them. */
function extensionKeywords(doc) {
  const keys = new Set();
  for (const [schema] of schemaNodes(doc)) {
    for (const key of Object.keys(schema)) if (key.startsWith('x-')) keys.add(key);
  }
  return keys;
}

/**
 * An ajv (2020-12, strict, with formats) that knows the whole document under DOCUMENT_ID, so any
 * of its schemas is `validate('/components/schemas/X', value)`.
 */
export function createSchemaValidator(doc) {
  const ajv = new Ajv2020({ allErrors: true, strict: true, strictTypes: false });
  addFormats.default(ajv);
  ajv.addVocabulary([...OAS_VOCABULARY, ...OPENAPI_FIELDS.filter((k) => k !== 'externalDocs')]);
  const rootExtensions = Object.keys(doc).filter((k) => k.startsWith('x-'));
  for (const key of new Set([...extensionKeywords(doc), ...rootExtensions])) ajv.addKeyword(key);
  ajv.addSchema(doc, DOCUMENT_ID);
  const compiled = new Map();
  const compile = (pointer) => {
    let fn = compiled.get(pointer);
    if (!fn) {
      fn = ajv.compile({ $ref: `${DOCUMENT_ID}#${pointer}` });
      compiled.set(pointer, fn);
    }
    return fn;
  };
  return {
    ajv,
    /** Compile the schema at `pointer`; throws when it does not compile. */
    compile,
    /**
     * Problems of `value` against the schema at `pointer`: [] when it is valid. The deepest come
     * first: of the many errors an anyOf/oneOf produces, those are the ones that say what is wrong.
     */
    validate(pointer, value) {
      const fn = compile(pointer);
      if (fn(value)) return [];
      const depth = (e) => e.instancePath.split('/').length;
      return [...(fn.errors ?? [])]
        .sort((a, b) => depth(b) - depth(a))
        .map(
          (e) =>
            `${e.instancePath || '(root)'} ${e.message}${
              e.params && Object.keys(e.params).length > 0 ? ` ${JSON.stringify(e.params)}` : ''
            }`,
        );
    },
  };
}

/** Example Objects of a site, `$ref`s resolved: [name, example, pointer]. */
function examplesOf(doc, site, pointer, problems) {
  const out = [];
  if (site.example !== undefined)
    out.push(['example', { value: site.example }, join(pointer, 'example')]);
  for (const [name, raw] of Object.entries(site.examples ?? {})) {
    let example = raw;
    let at = join(pointer, 'examples', name);
    if (isObject(raw) && typeof raw.$ref === 'string') {
      at = raw.$ref.slice(1);
      example = raw.$ref.startsWith('#') ? atPointer(doc, at) : undefined;
      if (!isObject(example)) {
        problems.push(`${join(pointer, 'examples', name)}: $ref ${raw.$ref} does not resolve`);
        continue;
      }
    }
    out.push([name, example, at]);
  }
  return out;
}

/** The OpenAPI 3.1 meta-schema check. */
async function checkStructure(doc, problems) {
  const validator = new Validator();
  const result = await validator.validate(structuredClone(doc));
  if (!result.valid) {
    const errors = Array.isArray(result.errors) ? result.errors : [result.errors];
    for (const e of errors) {
      // A string error has none of an ErrorObject's fields.
      /** @type {Partial<import('ajv/dist/2020.js').ErrorObject>} */
      const fields = typeof e === 'object' ? e : {};
      problems.push(
        `not a valid OpenAPI ${doc.openapi} document: ${fields.instancePath ?? ''} ${fields.message ?? JSON.stringify(e)}${
          fields.params ? ` ${JSON.stringify(fields.params)}` : ''
        }`,
      );
    }
  }
  if (typeof doc.openapi !== 'string' || !doc.openapi.startsWith('3.1.')) {
    problems.push(`openapi must be 3.1.x; found ${JSON.stringify(doc.openapi)}`);
  }
}

function checkRefs(doc, problems) {
  const walk = (node, pointer) => {
    if (Array.isArray(node)) {
      for (const [i, v] of node.entries()) walk(v, join(pointer, i));
    }
    if (!isObject(node)) return;
    if (typeof node.$ref === 'string') {
      if (!node.$ref.startsWith('#')) problems.push(`${pointer}: external $ref ${node.$ref}`);
      else if (atPointer(doc, node.$ref.slice(1)) === undefined) {
        problems.push(`${pointer}: $ref ${node.$ref} does not resolve`);
      }
    }
    for (const [key, value] of Object.entries(node)) walk(value, join(pointer, key));
  };
  walk(doc, '');
}

function checkExamples(doc, schemas, problems, stats) {
  for (const [site, pointer] of exampleSites(doc)) {
    const schemaPointer = join(pointer, 'schema');
    try {
      schemas.compile(schemaPointer);
    } catch (err) {
      problems.push(
        `${schemaPointer}: the schema does not compile: ${err instanceof Error ? err.message : String(err)}`,
      );
      continue;
    }
    for (const [name, example, at] of examplesOf(doc, site, pointer, problems)) {
      const raw = example['x-raw-body'];
      if (raw !== undefined) {
        if (typeof raw !== 'string') problems.push(`${at}: x-raw-body must be a string`);
        if (example.value !== undefined)
          problems.push(`${at}: x-raw-body and value exclude each other`);
        continue;
      }
      if (example.value === undefined) {
        if (example.externalValue === undefined)
          problems.push(`${at}: example '${name}' has no value`);
        continue;
      }
      stats.examples++;
      const errors = schemas.validate(schemaPointer, example.value);
      if (errors.length > 0) {
        problems.push(
          `${at}: example '${name}' does not match ${schemaPointer}: ${summarize(errors)}`,
        );
      }
    }
  }
  for (const [schema, pointer] of schemaNodes(doc)) {
    const values = [
      ...(Array.isArray(schema.examples)
        ? schema.examples.map((v, i) => [v, join(pointer, 'examples', i)])
        : []),
      ...(schema.example !== undefined ? [[schema.example, join(pointer, 'example')]] : []),
    ];
    for (const [value, at] of values) {
      stats.examples++;
      let errors;
      try {
        errors = schemas.validate(pointer, value);
      } catch (err) {
        problems.push(
          `${pointer}: the schema does not compile: ${err instanceof Error ? err.message : String(err)}`,
        );
        break;
      }
      if (errors.length > 0)
        problems.push(`${at}: example does not match ${pointer}: ${summarize(errors)}`);
    }
  }
  // Every component schema compiles, used or not.
  for (const name of Object.keys(doc.components?.schemas ?? {})) {
    try {
      schemas.compile(join('', 'components', 'schemas', name));
    } catch (err) {
      problems.push(
        `/components/schemas/${name}: the schema does not compile: ${err instanceof Error ? err.message : String(err)}`,
      );
    }
  }
}

/** The first few (deepest) errors of a validation, and how many more there are. */
function summarize(errors, shown = 3) {
  const more = errors.length - shown;
  return `${errors.slice(0, shown).join('; ')}${more > 0 ? ` (and ${more} more)` : ''}`;
}

/** Resolve a header/response/requestBody object that may be a $ref. */
const deref = (doc, node) =>
  isObject(node) && typeof node.$ref === 'string' ? atPointer(doc, node.$ref.slice(1)) : node;

/** Request examples of every operation, each with the response it is paired with. */
export function pairedExamples(doc) {
  const pairs = [];
  const problems = [];
  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    for (const method of HTTP_METHODS) {
      const op = item?.[method];
      if (!isObject(op)) continue;
      const opPointer = join('', 'paths', path, method);
      const body = deref(doc, op.requestBody);
      for (const [mediaType, media] of Object.entries(body?.content ?? {})) {
        for (const [name, example] of examplesOf(
          doc,
          media,
          join(opPointer, 'requestBody', 'content', mediaType),
          problems,
        )) {
          const responses = Object.entries(op.responses ?? {}).map(([status, r]) => [
            status,
            deref(doc, r),
          ]);
          const named = responses.filter(([, r]) =>
            Object.values(r?.content ?? {}).some(
              (m) => isObject(m.examples) && Object.hasOwn(m.examples, name),
            ),
          );
          const wanted = example['x-expected-status'];
          let status;
          if (wanted !== undefined) {
            status = String(wanted);
            const response = responses.find(([s]) => s === status)?.[1];
            if (!response) {
              problems.push(
                `${opPointer}: request example '${name}' expects status ${status}, which is not documented`,
              );
              continue;
            }
            if (response.content && !named.some(([s]) => s === status)) {
              problems.push(
                `${opPointer}: request example '${name}' expects status ${status}, whose response has no example '${name}'`,
              );
              continue;
            }
          } else if (named.length !== 1) {
            problems.push(
              named.length === 0
                ? `${opPointer}: request example '${name}' has no response example of the same name (or x-expected-status)`
                : `${opPointer}: request example '${name}' has response examples in ${named.map(([s]) => s).join(', ')}; name one with x-expected-status`,
            );
            continue;
          } else {
            status = named[0]?.[0];
          }
          const response = responses.find(([s]) => s === status)?.[1];
          const responseMedia = Object.entries(response.content ?? {})[0];
          pairs.push({
            name,
            path,
            method: method.toUpperCase(),
            mediaType,
            request: example,
            status,
            response: responseMedia
              ? {
                  mediaType: responseMedia[0],
                  schemaPointer: join(
                    opPointer,
                    'responses',
                    status,
                    'content',
                    responseMedia[0],
                    'schema',
                  ),
                  example: responseMedia[1].examples?.[name],
                }
              : undefined,
          });
        }
      }
    }
  }
  return { pairs, problems };
}

/** The tools the document describes: name → { argumentsName, resultName, requiredScopes }. */
export function documentedTools(doc) {
  const tools = new Map();
  const entry = (name) => {
    if (!tools.has(name)) tools.set(name, {});
    return tools.get(name);
  };
  for (const [schemaName, schema] of Object.entries(doc.components?.schemas ?? {})) {
    if (typeof schema['x-tool-arguments'] === 'string') {
      const t = entry(schema['x-tool-arguments']);
      t.argumentsName = schemaName;
      t.requiredScopes = schema['x-required-scopes'];
    }
    if (typeof schema['x-tool-result'] === 'string')
      entry(schema['x-tool-result']).resultName = schemaName;
  }
  return tools;
}

/** A schema reduced to what it accepts: $refs inlined, annotations and `x-` keys dropped. */
function normalize(doc, schema, seen = new Set()) {
  if (!isObject(schema)) return schema;
  let base = {};
  if (typeof schema.$ref === 'string') {
    if (seen.has(schema.$ref)) return { $ref: schema.$ref };
    base = normalize(doc, atPointer(doc, schema.$ref.slice(1)), new Set([...seen, schema.$ref]));
  }
  const out = { ...base };
  for (const [key, value] of Object.entries(schema)) {
    if (key === '$ref' || ANNOTATIONS.has(key) || key.startsWith('x-')) continue;
    if (SCHEMA_MAPS.includes(key)) {
      out[key] = Object.fromEntries(
        Object.entries(value).map(([k, v]) => [k, normalize(doc, v, seen)]),
      );
    } else if (SCHEMA_ARRAYS.includes(key)) out[key] = value.map((v) => normalize(doc, v, seen));
    else if (SCHEMA_VALUED.includes(key)) out[key] = normalize(doc, value, seen);
    else if (key === 'required') {
      if (value.length > 0) out[key] = [...value].sort();
    } else if (key === 'type' && Array.isArray(value)) out[key] = [...value].sort();
    else out[key] = value;
  }
  return out;
}

/** The first place two normalized schemas differ, as a readable path. */
function firstDifference(a, b, path = '') {
  if (isDeepStrictEqual(a, b)) return undefined;
  if (isObject(a) && isObject(b)) {
    for (const key of new Set([...Object.keys(a), ...Object.keys(b)])) {
      if (!(key in a))
        return `${path}/${key}: only in the server's schema (${JSON.stringify(b[key])})`;
      if (!(key in b)) return `${path}/${key}: only in the document (${JSON.stringify(a[key])})`;
      const d = firstDifference(a[key], b[key], `${path}/${key}`);
      if (d) return d;
    }
  }
  return `${path || '/'}: document ${JSON.stringify(a)} ≠ server ${JSON.stringify(b)}`;
}

function sameSet(a, b) {
  return Array.isArray(a) && Array.isArray(b) && isDeepStrictEqual([...a].sort(), [...b].sort());
}

/** Every example value (request and response), with where it is. */
function* exampleValues(doc) {
  const ignore = [];
  for (const [site, pointer] of exampleSites(doc)) {
    for (const [name, example] of examplesOf(doc, site, pointer, ignore)) {
      if (example.value !== undefined) yield [name, example.value];
    }
  }
}

function checkTools(doc, schemas, server, problems, stats) {
  const documented = documentedTools(doc);
  const listed = new Map(server.tools.map((t) => [t.name, t]));
  for (const tool of server.tools) {
    stats.tools++;
    const d = documented.get(tool.name);
    if (!d?.argumentsName) {
      problems.push(
        `tool '${tool.name}' (tools/list) has no schema with x-tool-arguments: ${tool.name} in components/schemas`,
      );
    } else {
      const diff = firstDifference(
        normalize(doc, { $ref: `#/components/schemas/${d.argumentsName}` }),
        normalize(doc, tool.inputSchema),
      );
      if (diff)
        problems.push(
          `components/schemas/${d.argumentsName} differs from the inputSchema of '${tool.name}': ${diff}`,
        );
      const scopes = server.requiredScopes[tool.name] ?? [];
      if (!sameSet(d.requiredScopes, scopes)) {
        problems.push(
          `components/schemas/${d.argumentsName}: x-required-scopes is ${JSON.stringify(d.requiredScopes)}, but '${tool.name}' requires ${JSON.stringify(scopes)}`,
        );
      }
      // tools/call params must type the arguments of this tool: a wrong type must be refused.
      const props = Object.entries(tool.inputSchema?.properties ?? {}).filter(
        ([, s]) => s.type !== 'object',
      );
      const [prop] = props[0] ?? [];
      if (prop) {
        const body = {
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/call',
          params: { name: tool.name, arguments: { [prop]: { wrong: 'type' } } },
        };
        const requestSchema = requestSchemaPointer(doc);
        let accepted = false;
        try {
          accepted =
            requestSchema !== undefined && schemas.validate(requestSchema, body).length === 0;
        } catch {
          // a schema that does not compile is reported by checkExamples
        }
        if (accepted) {
          problems.push(
            `${requestSchema} accepts tools/call of '${tool.name}' with a wrong type for '${prop}': its arguments are not typed by ${d.argumentsName}`,
          );
        }
      }
    }
    if (tool.outputSchema) {
      if (!d?.resultName) {
        problems.push(
          `tool '${tool.name}' (tools/list) has no schema with x-tool-result: ${tool.name} in components/schemas`,
        );
      } else {
        const diff = firstDifference(
          normalize(doc, { $ref: `#/components/schemas/${d.resultName}` }),
          normalize(doc, tool.outputSchema),
        );
        if (diff)
          problems.push(
            `components/schemas/${d.resultName} differs from the outputSchema of '${tool.name}': ${diff}`,
          );
      }
    }
  }
  for (const name of documented.keys()) {
    if (!listed.has(name))
      problems.push(
        `the document describes tool '${name}', which the server's tools/list does not have`,
      );
  }
  // An example of a whole tools/list result must be the server's list.
  const results = [];
  for (const [name, value] of exampleValues(doc)) {
    for (const message of Array.isArray(value) ? value : [value]) {
      if (isObject(message?.result) && Array.isArray(message.result.tools))
        results.push([name, message.result.tools]);
    }
  }
  for (const [name, tools] of results) {
    const names = tools.map((t) => t?.name);
    const missing = server.tools.map((t) => t.name).filter((n) => !names.includes(n));
    const extra = names.filter((n) => !listed.has(n));
    if (missing.length > 0)
      problems.push(`example '${name}' (tools/list) lacks tools: ${missing.join(', ')}`);
    if (extra.length > 0)
      problems.push(`example '${name}' (tools/list) lists unknown tools: ${extra.join(', ')}`);
    for (const t of tools) {
      const live = listed.get(t?.name);
      if (live && !isDeepStrictEqual(t, live)) {
        problems.push(
          `example '${name}' (tools/list): the entry of '${t.name}' differs from the server's: ${firstDifference(t, live)}`,
        );
      }
    }
  }
}

/** The request body schema of POST / (the JSON-RPC endpoint). */
function requestSchemaPointer(doc) {
  const op = doc.paths?.['/']?.post;
  const media = deref(doc, op?.requestBody)?.content?.['application/json'];
  return media?.schema
    ? join('', 'paths', '/', 'post', 'requestBody', 'content', 'application/json', 'schema')
    : undefined;
}

function checkPairs(doc, schemas, problems) {
  const { pairs, problems: pairProblems } = pairedExamples(doc);
  problems.push(...pairProblems);
  const scopes = new Set(
    [...documentedTools(doc).values()].flatMap((t) =>
      Array.isArray(t.requiredScopes) ? t.requiredScopes : [],
    ),
  );
  for (const pair of pairs) {
    const tokenScopes = pair.request['x-token-scopes'];
    if (tokenScopes === undefined) continue;
    if (!Array.isArray(tokenScopes) || tokenScopes.some((s) => !scopes.has(s))) {
      problems.push(
        `request example '${pair.name}': x-token-scopes ${JSON.stringify(tokenScopes)} names a scope no tool uses (known: ${[...scopes].join(', ')})`,
      );
    }
  }
  if (!requestSchemaPointer(doc))
    problems.push('POST / has no application/json request body schema');
  // A paired response answers its request: same ids, and each tool's result is that tool's.
  const tools = documentedTools(doc);
  for (const pair of pairs) {
    const requests = [pair.request.value].flat().filter((m) => isObject(m) && 'id' in m);
    const replies = [pair.response?.example?.value].flat().filter(isObject);
    if (!pair.response?.example) continue;
    for (const request of requests) {
      const reply = replies.find((r) => isDeepStrictEqual(r.id, request.id));
      if (!reply) {
        problems.push(
          `response example '${pair.name}' has no reply with id ${JSON.stringify(request.id)}`,
        );
        continue;
      }
      const tool = request.method === 'tools/call' ? tools.get(request.params?.name) : undefined;
      const structured = reply.result?.structuredContent;
      if (tool?.resultName && structured !== undefined) {
        const pointer = join('', 'components', 'schemas', tool.resultName);
        const errors = schemas.validate(pointer, structured);
        if (errors.length > 0) {
          problems.push(
            `response example '${pair.name}' (id ${JSON.stringify(request.id)}): structuredContent does not match ${pointer}: ${summarize(errors)}`,
          );
        }
      }
    }
  }
  return pairs.length;
}

/**
 * Every problem of the document, [] when there is none. `server` is what the server lists:
 * `{ tools: <tools/list entries>, requiredScopes: { <tool>: [scope…] } }`.
 */
export async function checkOpenApi(doc, server) {
  const problems = [];
  const stats = { examples: 0, pairs: 0, tools: 0 };
  await checkStructure(doc, problems);
  checkRefs(doc, problems);
  let schemas;
  try {
    schemas = createSchemaValidator(doc);
  } catch (err) {
    problems.push(
      `the document's schemas cannot be loaded into ajv: ${err instanceof Error ? err.message : String(err)}`,
    );
    return { problems, stats };
  }
  checkExamples(doc, schemas, problems, stats);
  stats.pairs = checkPairs(doc, schemas, problems);
  if (server) checkTools(doc, schemas, server, problems, stats);
  return { problems, stats };
}

/** The built server's tools/list and each tool's scopes. */
export async function serverTools() {
  const dist = new URL('../dist/server.js', import.meta.url);
  let mod;
  try {
    mod = await import(dist.href);
  } catch (err) {
    throw new Error(
      `cannot load ${fileURLToPath(dist)}: run \`pnpm build\` first (${err instanceof Error ? err.message : String(err)})`,
    );
  }
  const { connectRaw } = await import('@mcpkit/protocol/testing');
  // warm: false — no collector runs: only the tool definitions are needed.
  const { server } = mod.createSystemInfoServer({ scopes: ['core', 'sensitive'], warm: false });
  const peer = connectRaw(server);
  const tools = [];
  let cursor;
  do {
    const request = {
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/list',
      ...(cursor ? { params: { cursor } } : {}),
    };
    // send resolves undefined only for a notification; String() is what JSON.parse does anyway.
    const reply = JSON.parse(String(await peer.send(JSON.stringify(request))));
    if (!reply.result) throw new Error(`tools/list failed: ${JSON.stringify(reply.error)}`);
    tools.push(...reply.result.tools);
    cursor = reply.result.nextCursor;
  } while (cursor);
  await peer.close();
  const requiredScopes = Object.fromEntries(
    server.listTools().map((t) => [t.name, [...t.requiredScopes]]),
  );
  return { tools, requiredScopes };
}

async function main() {
  const file = process.argv[2] ?? OPENAPI_FILE;
  let doc;
  let server;
  try {
    doc = await loadDocument(file);
    server = await serverTools();
  } catch (err) {
    console.error(`lint-openapi: ${err instanceof Error ? err.message : String(err)}`);
    return 1;
  }
  const { problems, stats } = await checkOpenApi(doc, server);
  if (problems.length > 0) {
    console.error(`lint-openapi: ${file}: ${problems.length} problem(s)`);
    for (const p of problems) console.error(`  - ${p}`);
    return 1;
  }
  console.log(
    `lint-openapi: ${file} is valid OpenAPI ${doc.openapi}; ${stats.examples} example values match their schemas; ${stats.pairs} request examples are paired; ${stats.tools} tools match tools/list`,
  );
  return 0;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  process.exitCode = await main();
}
