/**
 * W3C Design Tokens Community Group format, 2025.10: tokens carry `$value` and `$type` (or
 * inherit `$type` from a group), groups nest, `{group.token}` references another token, and
 * product data lives under `$extensions`. This module validates a document before it is stored
 * and builds the document a project starts with.
 */
export const EXTENSION_KEY = 'io.codefluss';
export const MEDIA_TYPE = 'application/design-tokens+json';

const TYPES = new Set([
  'color',
  'dimension',
  'fontFamily',
  'fontWeight',
  'duration',
  'cubicBezier',
  'number',
  'strokeStyle',
  'border',
  'transition',
  'shadow',
  'gradient',
  'typography',
]);
const GROUP_KEYS = new Set([
  '$type',
  '$description',
  '$extensions',
  '$deprecated',
  '$schema',
  '$extends',
]);
const TOKEN_KEYS = new Set(['$value', '$type', '$description', '$extensions', '$deprecated']);
const REFERENCE = /^\{([^{}]+)\}$/;
const MAX_DEPTH = 32;
const MAX_TOKENS = 10_000;

export interface TokenProblem {
  /** Dotted path of the token or group, e.g. `color.brand.primary`. */
  field: string;
  error: string;
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

function checkValue(type: string | undefined, value: unknown): string | undefined {
  if (typeof value === 'string' && REFERENCE.test(value)) return undefined; // resolved later
  switch (type) {
    case 'color':
      if (
        !isObject(value) ||
        typeof value.colorSpace !== 'string' ||
        !Array.isArray(value.components)
      ) {
        return 'a color is {colorSpace, components[, alpha, hex]}';
      }
      if (
        value.alpha !== undefined &&
        (typeof value.alpha !== 'number' || value.alpha < 0 || value.alpha > 1)
      ) {
        return 'alpha must be a number from 0 to 1';
      }
      return undefined;
    case 'dimension':
      return isObject(value) &&
        typeof value.value === 'number' &&
        (value.unit === 'px' || value.unit === 'rem')
        ? undefined
        : 'a dimension is {value: number, unit: "px" | "rem"}';
    case 'duration':
      return isObject(value) &&
        typeof value.value === 'number' &&
        (value.unit === 'ms' || value.unit === 's')
        ? undefined
        : 'a duration is {value: number, unit: "ms" | "s"}';
    case 'number':
      return typeof value === 'number' && Number.isFinite(value)
        ? undefined
        : 'a number token needs a finite number';
    case 'fontWeight':
      return (typeof value === 'number' && value >= 1 && value <= 1000) || typeof value === 'string'
        ? undefined
        : 'a font weight is a number from 1 to 1000 or a keyword';
    case 'fontFamily':
      return typeof value === 'string' ||
        (Array.isArray(value) && value.every((v) => typeof v === 'string'))
        ? undefined
        : 'a font family is a string or a list of strings';
    case 'cubicBezier':
      return Array.isArray(value) && value.length === 4 && value.every((v) => typeof v === 'number')
        ? undefined
        : 'a cubic Bézier is [x1, y1, x2, y2]';
    default:
      return value === undefined ? '$value is required' : undefined;
  }
}

/** Every problem of a token document: structure, names, types, values, references and cycles. */
export function validateTokens(doc: unknown): TokenProblem[] {
  const problems: TokenProblem[] = [];
  if (!isObject(doc)) return [{ field: '(root)', error: 'a token document is a JSON object' }];
  const tokens = new Map<string, { value: unknown; type: string | undefined }>();

  const walk = (
    node: Record<string, unknown>,
    path: string[],
    inheritedType: string | undefined,
  ) => {
    if (path.length > MAX_DEPTH) {
      problems.push({ field: path.join('.'), error: `groups nest at most ${MAX_DEPTH} deep` });
      return;
    }
    const groupType = typeof node.$type === 'string' ? node.$type : inheritedType;
    if (node.$type !== undefined && (typeof node.$type !== 'string' || !TYPES.has(node.$type))) {
      problems.push({
        field: path.join('.') || '(root)',
        error: `unknown $type '${String(node.$type)}'`,
      });
    }
    for (const [name, child] of Object.entries(node)) {
      if (name.startsWith('$')) {
        if (!GROUP_KEYS.has(name))
          problems.push({
            field: [...path, name].join('.'),
            error: `unknown group property ${name}`,
          });
        continue;
      }
      const field = [...path, name].join('.');
      if (/[{}.]/.test(name)) {
        problems.push({ field, error: 'names cannot contain {, } or .' });
        continue;
      }
      if (!isObject(child)) {
        problems.push({ field, error: 'a token or group is a JSON object' });
        continue;
      }
      if ('$value' in child) {
        for (const key of Object.keys(child)) {
          if (!TOKEN_KEYS.has(key))
            problems.push({ field, error: `unknown token property ${key}` });
        }
        const type = typeof child.$type === 'string' ? child.$type : groupType;
        if (
          child.$type !== undefined &&
          (typeof child.$type !== 'string' || !TYPES.has(child.$type))
        ) {
          problems.push({ field, error: `unknown $type '${String(child.$type)}'` });
        }
        const bad = checkValue(type, child.$value);
        if (bad) problems.push({ field, error: bad });
        if (tokens.size >= MAX_TOKENS) {
          problems.push({ field, error: `a document holds at most ${MAX_TOKENS} tokens` });
          return;
        }
        tokens.set(field, { value: child.$value, type });
      } else {
        walk(child, [...path, name], groupType);
      }
    }
  };
  walk(doc, [], undefined);

  // References must resolve, to a token of the same type where both are known, without cycles.
  const resolve = (field: string, seen: Set<string>): string | undefined => {
    const token = tokens.get(field);
    if (!token) return `references {${field}}, which does not exist`;
    if (typeof token.value !== 'string') return undefined;
    const ref = REFERENCE.exec(token.value)?.[1];
    if (ref === undefined) return undefined;
    if (seen.has(ref)) return `reference cycle through {${ref}}`;
    seen.add(ref);
    if (!tokens.has(ref)) return `references {${ref}}, which does not exist`;
    return resolve(ref, seen);
  };
  for (const [field, token] of tokens) {
    if (typeof token.value !== 'string') continue;
    const ref = REFERENCE.exec(token.value)?.[1];
    if (ref === undefined) continue;
    const error = resolve(field, new Set([field]));
    if (error) {
      problems.push({ field, error });
      continue;
    }
    const target = tokens.get(ref);
    if (token.type && target?.type && token.type !== target.type) {
      problems.push({
        field,
        error: `a ${token.type} token cannot reference the ${target.type} token {${ref}}`,
      });
    }
  }
  return problems;
}

const srgb = (hex: string) => {
  const n = Number.parseInt(hex.slice(1), 16);
  return {
    colorSpace: 'srgb',
    components: [((n >> 16) & 255) / 255, ((n >> 8) & 255) / 255, (n & 255) / 255].map(
      (c) => Math.round(c * 1000) / 1000,
    ),
    hex,
  };
};

/** The token document a new project starts with. */
export function defaultTokens(): Record<string, unknown> {
  return {
    color: {
      $type: 'color',
      brand: {
        primary: { $value: srgb('#2563eb'), $description: 'Buttons, links, focus rings' },
        secondary: { $value: srgb('#7c3aed') },
      },
      text: { default: { $value: srgb('#111827') }, muted: { $value: srgb('#6b7280') } },
      surface: { background: { $value: srgb('#ffffff') } },
      action: { $value: '{color.brand.primary}' },
    },
    spacing: {
      $type: 'dimension',
      sm: { $value: { value: 0.5, unit: 'rem' } },
      md: { $value: { value: 1, unit: 'rem' } },
      lg: { $value: { value: 2, unit: 'rem' } },
    },
    font: {
      family: { $type: 'fontFamily', body: { $value: ['Inter', 'system-ui', 'sans-serif'] } },
      weight: { $type: 'fontWeight', regular: { $value: 400 }, bold: { $value: 700 } },
    },
    motion: { $type: 'duration', fast: { $value: { value: 150, unit: 'ms' } } },
  };
}

/** The stored tokens with the product's data under `$extensions`, as clients read them. */
export function tokenDocument(
  tokens: Record<string, unknown>,
  projectId: string,
  updatedAt: string,
) {
  const own = isObject(tokens.$extensions) ? tokens.$extensions : {};
  return { ...tokens, $extensions: { ...own, [EXTENSION_KEY]: { projectId, updatedAt } } };
}
