/**
 * What the design-token tools share: a project's current tokens (the starter document until the
 * first write), the URIs a token change is news for, and the -32004 answer to a document with
 * problems.
 */
import { pollTurn, RpcError } from '@mcpkit/protocol';
import type Color from 'colorjs.io';
import type { Store } from '../db/types.js';
import { defaultTokens, type TokenProblem, validateTokensSliced } from '../dtcg.js';
import { Code, invalidParams } from '../errors.js';
import { type BuildOptions, PLATFORMS, type Platform } from '../tokens/build.js';
import { type ContrastResult, colorTokens, contrast, defaultPairs } from '../tokens/contrast.js';
import { cssString } from '../tokens/css-values.js';
import { CASE } from '../tokens/names.js';
import {
  allModes,
  modeAxes,
  modeInput,
  modeLabel,
  type ResolverProblem,
  readResolver,
  resolveMode,
} from '../tokens/resolver.js';
import { designSystemUri } from './common.js';

/** A project's tokens as they are now: version 0 is the starter document, never written. */
export async function currentTokens(store: Store, projectId: string) {
  const system = await store.getDesignSystem(projectId);
  return system
    ? {
        tokens: system.tokens,
        version: system.version,
        updatedAt: system.updatedAt,
        resolver: system.resolver,
      }
    : { tokens: defaultTokens(), version: 0, updatedAt: undefined, resolver: null };
}

/** `codefluss://projects/{projectId}/tokens/{platform}`: a project's tokens built for a platform. */
export const tokenBuildUri = (projectId: string, platform: Platform) =>
  `codefluss://projects/${projectId}/tokens/${platform}`;

/** Every resource a change of a project's tokens changes: the document and each platform's build. */
export const tokenUris = (projectId: string) => [
  designSystemUri(projectId),
  ...PLATFORMS.map((platform) => tokenBuildUri(projectId, platform)),
];

/** -32004 for a document with problems: the first as `field` and `error`, up to 50 in `problems`. */
export function invalidTokens(problems: TokenProblem[]): RpcError {
  const first = problems[0] as TokenProblem;
  return new RpcError(Code.Validation, 'Validation error', {
    field: first.field === '(root)' ? 'tokens' : `tokens.${first.field}`,
    error: first.error,
    problems: problems.slice(0, 50),
  });
}

/**
 * Runs `fn` after every earlier call for the same key has finished: one project's updates
 * read, merge and write one after the other, though each pauses for other callers meanwhile.
 */
export function serializer() {
  const tails = new Map<string, Promise<void>>();
  return async <T>(key: string, fn: () => Promise<T>): Promise<T> => {
    const before = tails.get(key) ?? Promise.resolve();
    const run = before.then(fn);
    const tail = run.then(
      () => undefined,
      () => undefined,
    );
    tails.set(key, tail);
    try {
      return await run;
    } finally {
      if (tails.get(key) === tail) tails.delete(key);
    }
  };
}

/** One project's token writes, one after the other (see {@link serializer}). */
export type TokenWrites = ReturnType<typeof serializer>;

/**
 * Every problem of a token document — or, for a project with modes, of each of its modes, each
 * problem's error naming the mode: with modes, only a mode is ever built, and a mode may hold
 * tokens the document alone lacks (aliases resolve after the layers merge, Resolver Module §6.3).
 * A resolver's own problems come first, their fields under `resolver.`.
 */
export async function tokenProblems(
  tokens: Record<string, unknown>,
  resolver: Record<string, unknown> | null,
): Promise<TokenProblem[]> {
  if (resolver === null) return validateTokensSliced(tokens);
  const read = readResolver(resolver);
  if ('problems' in read) {
    return read.problems.map((p) => ({
      field: p.field === '(root)' ? 'resolver' : `resolver.${p.field}`,
      error: p.error,
    }));
  }
  for (const mode of allModes(read.layers)) {
    const problems = await validateTokensSliced(resolveMode(tokens, read.layers, mode));
    if (problems.length > 0) {
      return problems.map((p) => ({
        field: p.field,
        error: `in mode ${modeLabel(mode)}: ${p.error}`,
      }));
    }
  }
  return [];
}

/** Refuses (-32004) tokens with problems ({@link tokenProblems}). */
export async function checkTokens(
  tokens: Record<string, unknown>,
  resolver: Record<string, unknown> | null,
): Promise<void> {
  if (resolver !== null) {
    const read = readResolver(resolver);
    if ('problems' in read) throw invalidModes(read.problems);
  }
  const problems = await tokenProblems(tokens, resolver);
  if (problems.length > 0) throw invalidTokens(problems);
}

/** -32004 for a resolver document with problems, fields under `resolver.`. */
export function invalidModes(problems: ResolverProblem[]): RpcError {
  const first = problems[0] as ResolverProblem;
  return new RpcError(Code.Validation, 'Validation error', {
    field: first.field === '(root)' ? 'resolver' : `resolver.${first.field}`,
    error: first.error,
    problems: problems.slice(0, 50),
  });
}

/** A mode's token document, as builds and contrast checks take it. */
export interface ModeTokens {
  /** The mode's input, e.g. `{theme: "dark"}`; empty for a project without modes. */
  mode: Record<string, string>;
  /** `theme=dark`; empty for a project without modes. */
  label: string;
  tokens: Record<string, unknown>;
  /** How its build is set apart from the default mode's (none for the default mode). */
  options: BuildOptions;
}

/** `[data-theme="dark"][data-density="compact"]`: where a mode's CSS variables apply. */
function modeSelector(mode: Record<string, string>): string {
  return Object.entries(mode)
    .map(([name, context]) => `[data-${CASE.kebab([name]) || 'mode'}=${cssString(context)}]`)
    .join('');
}

/**
 * The documents to build or check: for a project without modes, its tokens; with modes, the one
 * `input` names — or, without an input, every mode, the defaults first (built as the plain files,
 * `:root`), the others set apart by selector, file-name suffix and Swift class name.
 */
export function modeTokens(
  tokens: Record<string, unknown>,
  resolver: Record<string, unknown> | null,
  input: Record<string, unknown> | undefined,
): ModeTokens[] {
  if (resolver === null) {
    if (input !== undefined && Object.keys(input).length > 0) {
      throw invalidParams('mode', 'the project has no modes (see update_design_token_modes)');
    }
    return [{ mode: {}, label: '', tokens, options: {} }];
  }
  const read = readResolver(resolver);
  if ('problems' in read) throw invalidModes(read.problems);
  if (input !== undefined) {
    const chosen = modeInput(read.layers, input);
    if ('problems' in chosen) {
      const first = chosen.problems[0] as ResolverProblem;
      throw invalidParams(first.field, first.error);
    }
    const { mode } = chosen;
    return [
      { mode, label: modeLabel(mode), tokens: resolveMode(tokens, read.layers, mode), options: {} },
    ];
  }
  return allModes(read.layers).map((mode, i) => {
    const suffix = CASE.kebab(Object.entries(mode).flat());
    return {
      mode,
      label: modeLabel(mode),
      tokens: resolveMode(tokens, read.layers, mode),
      options:
        i === 0
          ? {}
          : {
              selector: modeSelector(mode),
              suffix,
              className: `DesignTokens${CASE.pascal([suffix])}`,
            },
    };
  });
}

/** The modifiers of a stored resolver (stored ones were checked when written). */
export function modesOf(resolver: Record<string, unknown> | null) {
  if (resolver === null) return [];
  const read = readResolver(resolver);
  if ('problems' in read) return [];
  return modeAxes(read.layers).map((a) =>
    a.default === undefined ? { name: a.name, contexts: a.contexts } : { ...a, default: a.default },
  );
}

/** Pairs the design-system view shows at most. */
const REPORTED_PAIRS = 100;

/** One pair of the contrast report get_design_system carries for its view. */
export interface ContrastEntry extends ContrastResult {
  /** The mode, e.g. `theme=dark`, where the project has modes. */
  mode?: string;
  /** The two colours as CSS (sRGB hex, gamut-mapped), to draw the pair. */
  css: { foreground: string; background: string };
}

/**
 * Every text colour on every surface colour (by their paths' words), in every mode, failing
 * AA first: what the design-system view shows next to the swatches. At most {@link REPORTED_PAIRS}.
 */
export async function contrastReport(
  tokens: Record<string, unknown>,
  resolver: Record<string, unknown> | null,
): Promise<ContrastEntry[]> {
  const out: ContrastEntry[] = [];
  for (const one of modeTokens(tokens, resolver, undefined)) {
    if (out.length >= REPORTED_PAIRS) break;
    // A mode of a large document is milliseconds of work: one per turn of the event loop.
    await pollTurn();
    const colors = colorTokens(one.tokens);
    for (const [fg, bg] of defaultPairs(colors, REPORTED_PAIRS - out.length)) {
      const a = colors.get(fg) as Color;
      const b = colors.get(bg) as Color;
      out.push({
        foreground: fg,
        background: bg,
        ...contrast(a, b),
        ...(one.label === '' ? {} : { mode: one.label }),
        css: {
          foreground: a.to('srgb').toGamut().toString({ format: 'hex' }),
          background: b.to('srgb').toGamut().toString({ format: 'hex' }),
        },
      });
    }
  }
  return out.sort((x, y) => Number(x.aa) - Number(y.aa) || x.ratio - y.ratio);
}
