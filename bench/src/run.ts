/**
 * `pnpm bench`: runs every benchmark against its baselines in the same run and prints the
 * ratios next to the targets. Rounds are interleaved so drift in machine load hits all sides.
 *
 *   --rounds N    rounds per side (default 5; the median is reported)
 *   --count N     requests per stdio round (default 20000)
 *   --check       exit 1 when a target is missed
 */
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { pipelinedRun } from './stdio-driver.js';

const { values } = parseArgs({
  // `pnpm bench -- --rounds 3` passes the separator through; it means nothing here.
  args: process.argv.slice(2).filter((a) => a !== '--'),
  options: {
    rounds: { type: 'string', default: '5' },
    count: { type: 'string', default: '20000' },
    check: { type: 'boolean', default: false },
  },
});
const rounds = Number(values.rounds);
const count = Number(values.count);

const server = (name: string) => [
  process.execPath,
  fileURLToPath(new URL(`./servers/${name}.js`, import.meta.url)),
];

interface Side {
  label: string;
  command: string[];
  samples: number[];
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] as number;
};
const fmt = (n: number) => Math.round(n).toLocaleString('en-US').padStart(10);

async function stdioBench(): Promise<boolean> {
  const sides: Side[] = [
    { label: 'raw line echo (readline)', command: server('raw-echo'), samples: [] },
    { label: 'raw line echo (batched writes)', command: server('raw-echo-batched'), samples: [] },
    { label: '@mcpkit/protocol stdio', command: server('engine-stdio'), samples: [] },
  ];
  for (let r = 0; r < rounds; r++) {
    for (const side of sides) side.samples.push(await pipelinedRun(side.command, count));
  }
  const [raw, rawBatched, ours] = sides.map((s) => median(s.samples)) as [number, number, number];
  console.log(`\nstdio: ${count} pipelined calls, median of ${rounds} rounds (calls/s)`);
  for (const side of sides) console.log(`  ${side.label.padEnd(34)} ${fmt(median(side.samples))}`);
  const ratio = ours / raw;
  const ok = ratio >= 0.75;
  console.log(
    `  ratio ours / raw echo            ${(ratio * 100).toFixed(0).padStart(9)} %   target ≥ 75 %  ${ok ? 'OK' : 'MISSED'}`,
  );
  console.log(
    `  ratio ours / batched raw echo    ${((ours / rawBatched) * 100).toFixed(0).padStart(9)} %   (informational)`,
  );
  return ok;
}

const results = [await stdioBench()];
if (values.check && results.some((ok) => !ok)) process.exitCode = 1;
