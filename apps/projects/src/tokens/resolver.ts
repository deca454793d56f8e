/**
 * A project's modes — light/dark, brand variants — as a DTCG Resolver Module 2025.10 document:
 * `sets` of tokens, `modifiers` whose `contexts` each hold tokens, and a `resolutionOrder` that
 * lays them over each other. A mode is one input, e.g. `{ "theme": "dark" }`: one context per
 * modifier (its `default` where the input names none).
 *
 * The project's own token document is the first layer; the resolver's `resolutionOrder` is laid
 * over it (a later occurrence of a token wins, groups merge — the module's §6.2). Sources are
 * inline token documents or same-document reference objects (`{"$ref": "#/sets/brand"}`): a
 * project's resolver has no files beside it to point at. Aliases are resolved after merging,
 * so a mode may re-point `{color.surface}` to a token of its own.
 */

import { isObject } from '../json.js';
import { mergeTokens } from './merge.js';

/** Modes a project may have: the product of its modifiers' contexts. */
export const MAX_MODES = 32;

/** What is wrong with a resolver document, or with an input. */
export interface ResolverProblem {
  /** Where: `modifiers.theme.default`, `resolutionOrder.1`, `(root)`, `mode.theme`. */
  field: string;
  error: string;
}

/** One modifier as the tools show it. */
export interface ModeAxis {
  name: string;
  contexts: string[];
  default: string | undefined;
}

type Json = Record<string, unknown>;

const ROOT_KEYS = new Set([
  '$schema',
  'name',
  'version',
  'description',
  'sets',
  'modifiers',
  'resolutionOrder',
  '$defs',
]);

/** An item of `resolutionOrder`, resolved: a set's sources, or a modifier's contexts. */
export type ResolverLayer =
  | { kind: 'set'; name: string; sources: Json[] }
  | { kind: 'modifier'; name: string; contexts: Map<string, Json[]>; default: string | undefined };

/** A reference object's target, if it is one: `#/sets/x` → ['sets', 'x']. */
function pointer(value: unknown): string[] | undefined {
  if (!isObject(value) || typeof value.$ref !== 'string') return undefined;
  const ref = value.$ref;
  if (!ref.startsWith('#/')) return [''];
  return ref
    .slice(2)
    .split('/')
    .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'));
}

/**
 * The resolver, checked and reduced to its layers in resolution order — or its problems. Refs
 * are same-document only, to sets (from sources, contexts and the order) or modifiers (from the
 * order only, §4.2.1); a modifier has at least 2 contexts (§4.1.5: SHOULD, and the schema's
 * minimum), a `default` among them.
 */
export function readResolver(
  doc: unknown,
): { layers: ResolverLayer[] } | { problems: ResolverProblem[] } {
  const problems: ResolverProblem[] = [];
  const problem = (field: string, error: string) => problems.push({ field, error });
  if (!isObject(doc))
    return { problems: [{ field: '(root)', error: 'a resolver is a JSON object' }] };
  for (const key of Object.keys(doc)) {
    if (!ROOT_KEYS.has(key)) problem(key, `a resolver document has no property '${key}'`);
  }
  if (doc.version !== '2025.10') problem('version', 'version is "2025.10"');
  const sets = isObject(doc.sets) ? doc.sets : {};
  const modifiers = isObject(doc.modifiers) ? doc.modifiers : {};
  if (doc.sets !== undefined && !isObject(doc.sets)) problem('sets', 'sets is an object');
  if (doc.modifiers !== undefined && !isObject(doc.modifiers)) {
    problem('modifiers', 'modifiers is an object');
  }

  /** Sources of a set or context: inline documents, and the sources of the sets referenced. */
  const sources = (list: unknown, field: string, seen: string[]): Json[] => {
    if (!Array.isArray(list)) {
      problem(field, 'a list of token documents and {"$ref": "#/sets/…"} objects');
      return [];
    }
    return list.flatMap((source, i): Json[] => {
      const at = `${field}.${i}`;
      const path = pointer(source);
      if (path === undefined) {
        if (isObject(source)) return [source];
        problem(at, 'a source is a token document or a reference object');
        return [];
      }
      const [kind, name, ...rest] = path;
      if (kind !== 'sets' || name === undefined || rest.length > 0) {
        problem(
          at,
          kind === 'modifiers'
            ? 'sets and contexts cannot reference a modifier (§4.2.1)'
            : 'only #/sets/<name> here: a project’s resolver has no files to reference',
        );
        return [];
      }
      return setSources(name, at, seen);
    });
  };
  const setSources = (name: string, at: string, seen: string[]): Json[] => {
    const set = sets[name];
    if (!isObject(set)) {
      problem(at, `no set '${name}'`);
      return [];
    }
    if (seen.includes(name)) {
      problem(at, `sets reference each other in a circle: ${[...seen, name].join(' → ')}`);
      return [];
    }
    for (const key of Object.keys(set)) {
      if (!['description', 'sources', '$extensions'].includes(key)) {
        problem(`sets.${name}.${key}`, `a set has no property '${key}'`);
      }
    }
    return sources(set.sources, `sets.${name}.sources`, [...seen, name]);
  };
  const modifier = (value: unknown, name: string, field: string): ResolverLayer | undefined => {
    if (!isObject(value) || !isObject(value.contexts)) {
      problem(field, 'a modifier is {contexts: {<name>: [sources]}, default?}');
      return undefined;
    }
    for (const key of Object.keys(value)) {
      if (!['description', 'contexts', 'default', '$extensions', 'name', 'type'].includes(key)) {
        problem(`${field}.${key}`, `a modifier has no property '${key}'`);
      }
    }
    const names = Object.keys(value.contexts);
    if (names.length < 2) {
      problem(`${field}.contexts`, 'a modifier has at least 2 contexts (one is a set)');
    }
    const contexts = new Map<string, Json[]>();
    for (const context of names) {
      contexts.set(context, sources(value.contexts[context], `${field}.contexts.${context}`, []));
    }
    const fallback = value.default;
    if (fallback !== undefined && (typeof fallback !== 'string' || !contexts.has(fallback))) {
      problem(`${field}.default`, `the default is one of the contexts: ${names.join(', ')}`);
    }
    return {
      kind: 'modifier',
      name,
      contexts,
      default: typeof fallback === 'string' ? fallback : undefined,
    };
  };

  const order = doc.resolutionOrder;
  if (!Array.isArray(order) || order.length === 0) {
    problem('resolutionOrder', 'resolutionOrder is a non-empty list of sets and modifiers');
    return { problems };
  }
  const layers: ResolverLayer[] = [];
  const inlineNames = new Set<string>();
  order.forEach((item, i) => {
    const field = `resolutionOrder.${i}`;
    const path = pointer(item);
    if (path !== undefined) {
      const [kind, name, ...rest] = path;
      if (name === undefined || rest.length > 0 || (kind !== 'sets' && kind !== 'modifiers')) {
        problem(
          field,
          kind === 'resolutionOrder'
            ? 'a reference cannot point into resolutionOrder (§4.2.1)'
            : 'only #/sets/<name> or #/modifiers/<name> here',
        );
        return;
      }
      if (kind === 'sets') {
        layers.push({ kind: 'set', name, sources: setSources(name, field, []) });
      } else if (!isObject(modifiers[name])) {
        problem(field, `no modifier '${name}'`);
      } else {
        const layer = modifier(modifiers[name], name, `modifiers.${name}`);
        if (layer) layers.push(layer);
      }
      return;
    }
    // §4.1.6.1: an inline set or modifier names itself and says which it is.
    if (
      !isObject(item) ||
      typeof item.name !== 'string' ||
      (item.type !== 'set' && item.type !== 'modifier')
    ) {
      problem(field, 'an inline item has a name and a type ("set" or "modifier")');
      return;
    }
    if (inlineNames.has(item.name)) problem(`${field}.name`, `the name '${item.name}' is taken`);
    inlineNames.add(item.name);
    if (item.type === 'set') {
      layers.push({
        kind: 'set',
        name: item.name,
        sources: sources(item.sources, `${field}.sources`, []),
      });
    } else {
      const layer = modifier(item, item.name, field);
      if (layer) layers.push(layer);
    }
  });
  const names = layers.filter((l) => l.kind === 'modifier').map((l) => l.name.toLowerCase());
  if (new Set(names).size !== names.length) {
    problem(
      'resolutionOrder',
      'a modifier appears twice (inputs name modifiers, case-insensitively)',
    );
  }
  const count = modeCount(layers);
  if (count > MAX_MODES) {
    problem(
      'modifiers',
      `at most ${MAX_MODES} modes (the product of the contexts); these make ${count}`,
    );
  }
  return problems.length > 0 ? { problems } : { layers };
}

function modeCount(layers: ResolverLayer[]): number {
  return layers.reduce((n, l) => (l.kind === 'modifier' ? n * Math.max(1, l.contexts.size) : n), 1);
}

/** The modifiers (mode axes) of checked layers. */
export function modeAxes(layers: ResolverLayer[]): ModeAxis[] {
  return layers.flatMap((l) =>
    l.kind === 'modifier'
      ? [{ name: l.name, contexts: [...l.contexts.keys()], default: l.default }]
      : [],
  );
}

/** Every mode: one input per combination of contexts, the defaults' combination first. */
export function allModes(layers: ResolverLayer[]): Record<string, string>[] {
  let modes: Record<string, string>[] = [{}];
  for (const axis of modeAxes(layers)) {
    const contexts = [...axis.contexts].sort((a, b) =>
      a === axis.default ? -1 : b === axis.default ? 1 : 0,
    );
    modes = modes.flatMap((mode) => contexts.map((c) => ({ ...mode, [axis.name]: c })));
  }
  return modes;
}

/**
 * The full input a mode stands for — every modifier with its context, names as the resolver
 * spells them — or the problems of the input (§6.1: unknown modifiers and contexts, a modifier
 * without default left out, a value that is not a string). Matching ignores case (§5.1).
 */
export function modeInput(
  layers: ResolverLayer[],
  input: Record<string, unknown>,
): { mode: Record<string, string> } | { problems: ResolverProblem[] } {
  const problems: ResolverProblem[] = [];
  const axes = modeAxes(layers);
  const byName = new Map(axes.map((a) => [a.name.toLowerCase(), a]));
  const mode: Record<string, string> = {};
  for (const [key, value] of Object.entries(input)) {
    const axis = byName.get(key.toLowerCase());
    if (!axis) {
      problems.push({
        field: `mode.${key}`,
        error: `unknown modifier "${key}"; modifiers: ${axes.map((a) => a.name).join(', ') || 'none'}`,
      });
      continue;
    }
    if (typeof value !== 'string') {
      problems.push({ field: `mode.${key}`, error: 'a mode names contexts as strings (§5.2)' });
      continue;
    }
    const context = axis.contexts.find((c) => c.toLowerCase() === value.toLowerCase());
    if (context === undefined) {
      problems.push({
        field: `mode.${key}`,
        error: `invalid context "${value}" for modifier "${axis.name}"; contexts: ${axis.contexts.join(', ')}`,
      });
      continue;
    }
    mode[axis.name] = context;
  }
  for (const axis of axes) {
    if (
      mode[axis.name] !== undefined ||
      problems.some((p) => p.field.toLowerCase() === `mode.${axis.name.toLowerCase()}`)
    )
      continue;
    if (axis.default === undefined) {
      problems.push({
        field: `mode.${axis.name}`,
        error: `missing modifier "${axis.name}" (it has no default)`,
      });
    } else {
      mode[axis.name] = axis.default;
    }
  }
  return problems.length > 0 ? { problems } : { mode };
}

/** `theme=dark, size=compact`: a mode as people read it (empty for the document without modes). */
export const modeLabel = (mode: Record<string, string>) =>
  Object.entries(mode)
    .map(([k, v]) => `${k}=${v}`)
    .join(', ');

/** The token document of a mode: the project's tokens, then each layer's sources in order. */
export function resolveMode(
  base: Record<string, unknown>,
  layers: ResolverLayer[],
  mode: Record<string, string>,
): Record<string, unknown> {
  let doc = base;
  for (const layer of layers) {
    const sources =
      layer.kind === 'set' ? layer.sources : (layer.contexts.get(mode[layer.name] ?? '') ?? []);
    for (const source of sources) doc = mergeTokens(doc, source);
  }
  return doc;
}
