/**
 * projects, design tokens at scale: a 10,000-token document of every kind (colours, sizes,
 * aliases, typography, shadows, durations, weights) validated and built for every platform, in
 * process — the work a build's worker thread does — against the budgets below, each run's
 * median printed with the document's size.
 */
import { buildTokens, PLATFORMS, TOKEN_LIMITS, validateTokens } from '@mcpkit/projects';
import { SHORT as short } from './mode.js';

/** Validating the 10,000-token document, median. */
const VALIDATE_BUDGET_MS = 150;
/** Building it for one platform (Style Dictionary, in the worker), median. */
const BUILD_BUDGET_MS = 4_000;
/**
 * The js build's budget: Style Dictionary runs its JS and TypeScript outputs through prettier,
 * unconditionally (lib/common/formats.js), twice the work of the others for the same tokens.
 */
const JS_BUILD_BUDGET_MS = 8_000;

type Json = Record<string, unknown>;

const round = (n: number) => Math.round(n * 1000) / 1000;
const color = (i: number) => {
  const n = (i * 2_654_435_761) % 0x1000000;
  return {
    colorSpace: 'srgb',
    components: [(n >> 16) & 255, (n >> 8) & 255, n & 255].map((c) => round(c / 255)),
  };
};
const px = (value: number) => ({ value, unit: 'px' });

/** `count` tokens: 40 % colours, 20 % sizes, 10 % colour aliases, 10 % typography, 10 % shadows, 5 % durations, 5 % weights. */
export function largeTokens(count: number): Json {
  const share = (f: number) => Math.floor(count * f);
  const colors: Json = { $type: 'color' };
  const sizes: Json = { $type: 'dimension' };
  const aliases: Json = { $type: 'color' };
  const type: Json = { $type: 'typography' };
  const shadows: Json = { $type: 'shadow' };
  const times: Json = { $type: 'duration' };
  const weights: Json = { $type: 'fontWeight' };
  const nColors = count - share(0.2) - share(0.1) * 3 - share(0.05) * 2;
  for (let i = 0; i < nColors; i++) colors[`c${i}`] = { $value: color(i) };
  for (let i = 0; i < share(0.2); i++) sizes[`s${i}`] = { $value: px(i % 97) };
  for (let i = 0; i < share(0.1); i++) aliases[`a${i}`] = { $value: `{color.c${i % nColors}}` };
  for (let i = 0; i < share(0.05); i++) times[`d${i}`] = { $value: { value: 50 + i, unit: 'ms' } };
  for (let i = 0; i < share(0.05); i++) weights[`w${i}`] = { $value: 100 + (i % 9) * 100 };
  for (let i = 0; i < share(0.1); i++) {
    type[`t${i}`] = {
      $value: {
        fontFamily: ['Inter', 'sans-serif'],
        fontSize: `{size.s${i % share(0.2)}}`,
        fontWeight: `{weight.w${i % share(0.05)}}`,
        letterSpacing: px(0),
        lineHeight: 1.4,
      },
    };
  }
  for (let i = 0; i < share(0.1); i++) {
    shadows[`h${i}`] = {
      $value: {
        color: `{color.c${i}}`,
        offsetX: px(0),
        offsetY: px(2),
        blur: px(4),
        spread: px(0),
      },
    };
  }
  return {
    color: colors,
    size: sizes,
    alias: aliases,
    typography: type,
    shadow: shadows,
    time: times,
    weight: weights,
  };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;

export async function tokenBuildsBench(): Promise<boolean> {
  const count = 10_000;
  const doc = largeTokens(count);
  const bytes = Buffer.byteLength(JSON.stringify(doc));
  const problems = validateTokens(doc);
  if (problems.length > 0) throw new Error(`not valid: ${JSON.stringify(problems.slice(0, 3))}`);
  if (bytes > TOKEN_LIMITS.bytes || count > TOKEN_LIMITS.tokens) {
    throw new Error(`past the limits: ${bytes} bytes, ${count} tokens`);
  }
  const validations: number[] = [];
  for (let i = 0; i < (short ? 3 : 7); i++) {
    const start = performance.now();
    validateTokens(doc);
    validations.push(performance.now() - start);
  }
  console.log(
    `\nprojects, design tokens at scale: ${count.toLocaleString('en-US')} tokens (${bytes.toLocaleString('en-US')} bytes: colours, sizes, aliases, typography, shadows, durations, weights), in process`,
  );
  const validateMs = median(validations);
  let ok = validateMs <= VALIDATE_BUDGET_MS;
  console.log(
    `  validateTokens ${validateMs.toFixed(1).padStart(38)} ms   budget ≤ ${VALIDATE_BUDGET_MS} ms   ${validateMs <= VALIDATE_BUDGET_MS ? 'OK' : 'MISSED'}`,
  );
  for (const platform of PLATFORMS) {
    const runs: number[] = [];
    let size = 0;
    for (let i = 0; i < (short ? 1 : 3); i++) {
      const start = performance.now();
      const files = await buildTokens(doc, platform);
      runs.push(performance.now() - start);
      size = files.reduce((n, f) => n + Buffer.byteLength(f.contents), 0);
    }
    const ms = median(runs);
    const budget = platform === 'js' ? JS_BUILD_BUDGET_MS : BUILD_BUDGET_MS;
    const fits = ms <= budget;
    ok &&= fits;
    console.log(
      `  build ${platform.padEnd(9)} ${(size / 1024).toFixed(0).padStart(6)} KB ${ms.toFixed(0).padStart(21)} ms   budget ≤ ${budget} ms   ${fits ? 'OK' : 'MISSED'}`,
    );
  }
  return ok;
}
