/**
 * rules (issue #30): what the gateway's CEL rules cost. Two figures in one run:
 *
 *   - one decision with 100 rules (99 deny rules on other tools, each evaluated, and the allow
 *     that decides), in-process: the median of per-batch means over 1000-decision batches;
 *   - HTTP `tools/call` through the gateway (rich fixture, `/messages/`, autocannon, 32
 *     connections) with those 100 rules on and with none, in interleaved rounds.
 *
 * Target: with 100 rules ≥ 0.95× the throughput with rules off (median of per-round ratios).
 */
import { fileURLToPath } from 'node:url';
import { type RuleConfig, RuleSet } from '@mcpkit/gateway';
import { type HttpResult, httpRun, TOOL_CALL_EXPECT } from './http-driver.js';
import { median, withEnv } from './shared.js';

const TARGET = 0.95;
const RULES = 100;
const BATCHES = 200;
const BATCH = 1000;

const GATEWAY = [
  process.execPath,
  fileURLToPath(new URL('./servers/gateway-http.js', import.meta.url)),
];
const BODY = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'tools/call',
  params: { name: 'rich__echo', arguments: { text: '5' } },
});

/** The rules the HTTP side runs with (servers/gateway-http.ts makes the same set). */
function rules(n: number): RuleConfig[] {
  return Array.from({ length: n }, (_, i) =>
    i === n - 1
      ? { name: 'rich-for-all', effect: 'allow', when: "tool.backend == 'rich'" }
      : {
          name: `guard-${i}`,
          effect: 'deny',
          when: `tool.name == 'other__tool_${i}' && !('team-${i}' in identity.groups)`,
        },
  );
}

/** Microseconds per decision with `n` rules: the median of batch means. */
function decisionMicros(n: number): number {
  const set = RuleSet.compile(rules(n), 'deny');
  const facts = {
    identity: { subject: 'alice', scopes: ['eng'], groups: ['eng'], claims: {} },
    server: '',
    tool: { name: 'rich__echo', backend: 'rich', original: 'echo', annotations: {} },
    args: { text: 'hello' },
  };
  for (let i = 0; i < BATCH; i++) set.decide(facts);
  const means: number[] = [];
  for (let b = 0; b < BATCHES; b++) {
    const start = process.hrtime.bigint();
    for (let i = 0; i < BATCH; i++) set.decide(facts);
    means.push(Number(process.hrtime.bigint() - start) / 1000 / BATCH);
  }
  return median(means);
}

export async function rulesBench(rounds: number, duration: number): Promise<boolean> {
  const micros = decisionMicros(RULES);
  const sides = [
    { name: 'no rules', env: { GATEWAY_MODE: 'off', GATEWAY_RULES: '0' } },
    { name: `${RULES} rules`, env: { GATEWAY_MODE: 'off', GATEWAY_RULES: String(RULES) } },
  ];
  const samples: HttpResult[][] = sides.map(() => []);
  // At least two rounds, the sides' order alternating (A B, B A …): a drift of the machine over
  // the run (another process, the CPU's clock) weighs on both sides alike, not on the second.
  const total = Math.max(rounds, 2);
  for (let r = 0; r < total; r++) {
    const order = r % 2 === 0 ? [...sides.entries()] : [...sides.entries()].reverse();
    for (const [i, side] of order) {
      samples[i]?.push(
        await withEnv(side.env, () =>
          httpRun(
            { command: GATEWAY, path: '/messages/', body: BODY, expect: TOOL_CALL_EXPECT },
            { connections: 32, durationSec: duration, warmupSec: 1 },
          ),
        ),
      );
    }
  }
  console.log(`\nrules: CEL rules on every tools/call, ${total} interleaved round(s)`);
  console.log(`  one decision, ${RULES} rules (in process)   ${micros.toFixed(2)} µs p50`);
  const rps = samples.map((s) => median(s.map((x) => x.requestsPerSec)));
  const cpu = samples.map((s) => median(s.map((x) => x.cpuMicrosPerRequest ?? Number.NaN)));
  for (const [i, side] of sides.entries()) {
    console.log(
      `  gateway over HTTP, ${side.name.padEnd(10)} ${rps[i]?.toFixed(0).padStart(7)} req/s   ${cpu[i]?.toFixed(1).padStart(6)} µs CPU/req`,
    );
  }
  const ratio = median(
    (samples[1] as HttpResult[]).map(
      (s, r) => s.requestsPerSec / ((samples[0] as HttpResult[])[r] as HttpResult).requestsPerSec,
    ),
  );
  const bad = samples.flat().some((x) => x.non2xx + x.errors + x.timeouts + x.mismatches > 0);
  const ok = !bad && ratio >= TARGET;
  console.log(
    `  ratio ${RULES} rules / none ${(ratio * 100).toFixed(0).padStart(8)} %   target ≥ ${TARGET * 100} %  ${ok ? 'OK' : 'MISSED'}${bad ? ' (errors under load)' : ''}`,
  );
  return ok;
}
