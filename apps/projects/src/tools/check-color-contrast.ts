import { defineTool, pollTurn } from '@mcpkit/protocol';
import Color from 'colorjs.io';
import { z } from 'zod';
import { caller, ownProject } from '../access.js';
import { validationError } from '../errors.js';
import {
  type ContrastResult,
  colorTokens,
  contrast,
  defaultPairs,
  WCAG,
} from '../tokens/contrast.js';
import { projectId, READ, READ_ONLY, type ToolDeps } from './common.js';
import { currentTokens, modeTokens } from './tokens-common.js';

/** Pairs one call checks at most. */
export const MAX_PAIRS = 2_500;

const colorRef = z
  .string()
  .min(1)
  .max(200)
  .describe('A colour token’s path (color.text.default) or a CSS colour (#777777, oklch(…))');

/** A token path of the project, or else a CSS colour: the colour, or why it is neither. */
function colorOf(colors: Map<string, Color>, ref: string, field: string): Color {
  const token = colors.get(ref.replace(/^\{|\}$/g, ''));
  if (token) return token;
  try {
    return new Color(ref);
  } catch {
    throw validationError(
      field,
      `'${ref}' is neither a colour token of the project nor a CSS colour`,
    );
  }
}

export const checkColorContrast = (deps: ToolDeps) =>
  defineTool({
    name: 'check_color_contrast',
    title: 'Check colour contrast',
    description: `Checks text/background colour pairs of a project’s design tokens against WCAG 2.2 contrast (AA: ${WCAG.aa}:1, large text ${WCAG.aaLarge}:1; AAA: ${WCAG.aaa}:1, large ${WCAG.aaaLarge}:1). Name pairs (token paths or CSS colours), or leave them out to check every text colour on every surface colour (by the words in their paths: text, foreground, on… / surface, background…). Projects with modes are checked in every mode unless one is named. Failures first; at most ${MAX_PAIRS} pairs.`,
    inputSchema: z.object({
      projectId,
      pairs: z
        .array(z.object({ foreground: colorRef, background: colorRef }))
        .max(MAX_PAIRS)
        .optional(),
      level: z.enum(['AA', 'AAA']).optional().describe('The level a pair must meet (default AA)'),
      largeText: z
        .boolean()
        .optional()
        .describe('Judge as large text (≥ 24px, or ≥ 18.66px bold); default false'),
      mode: z
        .record(z.string(), z.string())
        .optional()
        .describe(
          'For a project with modes: the mode to check, e.g. {"theme": "dark"} (default: every mode)',
        ),
    }),
    outputSchema: z.object({
      projectId: z.string(),
      level: z.enum(['AA', 'AAA']),
      largeText: z.boolean(),
      required: z.number().describe('The ratio a pair needs'),
      results: z.array(
        z.object({
          foreground: z.string(),
          background: z.string(),
          ratio: z.number(),
          passes: z.boolean(),
          aa: z.boolean(),
          aaLarge: z.boolean(),
          aaa: z.boolean(),
          aaaLarge: z.boolean(),
          mode: z.string().optional().describe('The mode, e.g. theme=dark'),
        }),
      ),
      counts: z.object({
        checked: z.number().int(),
        passing: z.number().int(),
        failing: z.number().int(),
      }),
    }),
    annotations: READ_ONLY,
    requiredScopes: READ,
    handler: async ({ projectId: id, pairs, level = 'AA', largeText = false, mode }, ctx) => {
      await ownProject(deps.store, caller(ctx), id);
      const { tokens, resolver } = await currentTokens(deps.store, id);
      const key = `${level.toLowerCase()}${largeText ? 'Large' : ''}` as keyof typeof WCAG;
      const results: (ContrastResult & { passes: boolean; mode?: string })[] = [];
      for (const one of modeTokens(tokens, resolver, mode)) {
        if (results.length >= MAX_PAIRS) break;
        // A mode of a large document is milliseconds of work: one per turn of the event loop.
        await pollTurn();
        const colors = colorTokens(one.tokens);
        const checked =
          pairs?.map(({ foreground, background }, i) => ({
            foreground,
            background,
            fg: colorOf(colors, foreground, `pairs.${i}.foreground`),
            bg: colorOf(colors, background, `pairs.${i}.background`),
          })) ??
          [...defaultPairs(colors, MAX_PAIRS - results.length)].map(([foreground, background]) => ({
            foreground,
            background,
            fg: colors.get(foreground) as Color,
            bg: colors.get(background) as Color,
          }));
        for (const { foreground, background, fg, bg } of checked) {
          if (results.length >= MAX_PAIRS) break;
          const verdict = contrast(fg, bg);
          results.push({
            foreground,
            background,
            ...verdict,
            passes: verdict[key],
            ...(one.label === '' ? {} : { mode: one.label }),
          });
        }
      }
      results.sort((a, b) => Number(a.passes) - Number(b.passes) || a.ratio - b.ratio);
      const failing = results.filter((r) => !r.passes).length;
      return {
        projectId: id,
        level,
        largeText,
        required: WCAG[key],
        results,
        counts: { checked: results.length, passing: results.length - failing, failing },
      };
    },
  });
