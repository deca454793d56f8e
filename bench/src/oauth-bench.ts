/**
 * oauth: what OAuth sign-in costs a call. The same 2026-07-28 `tools/call` over HTTP (autocannon,
 * one token for the whole run) against the engine's server with a static bearer token, and with
 * OAuth on — a JWT access token of a real authorization server (oidc-provider, in this process)
 * verified against its keys once and then answered from the verified-token cache — in
 * interleaved rounds, so drift hits both sides alike.
 *
 * Target: OAuth on ≥ 0.85× the static token's throughput (req/s, median of the rounds; CPU per
 * request printed beside it).
 */
import { fileURLToPath } from 'node:url';
import { startAuthorizationServer } from '@mcpkit/testing';
import {
  type HttpResult,
  type HttpTarget,
  httpRun,
  MODERN_HEADERS,
  MODERN_TOOL_CALL_BODY,
  MODERN_TOOL_CALL_EXPECT,
} from './http-driver.js';
import { median, withEnv } from './shared.js';

const TARGET = 0.85;
const STATIC_TOKEN = 'bench-static-token-0123456789';
/** The audience the server is told to expect: any URL, as long as the token names the same. */
const AUDIENCE = 'http://127.0.0.1/bench/mcp';

export async function oauthBench(rounds: number, duration: number): Promise<boolean> {
  const as = await startAuthorizationServer(['bench']);
  try {
    const jwt = await as.token(AUDIENCE, 'bench');
    const target = (token: string): HttpTarget => ({
      command: [
        process.execPath,
        fileURLToPath(new URL('./servers/engine-http-auth.js', import.meta.url)),
      ],
      path: '/mcp',
      body: MODERN_TOOL_CALL_BODY,
      headers: { ...MODERN_HEADERS, authorization: `Bearer ${token}` },
      expect: MODERN_TOOL_CALL_EXPECT,
    });
    const sides: { name: string; env: Record<string, string>; token: string }[] = [
      {
        name: 'static token',
        env: { BENCH_AUTH: 'static', BENCH_TOKEN: STATIC_TOKEN },
        token: STATIC_TOKEN,
      },
      {
        name: 'OAuth (JWT)',
        env: { BENCH_AUTH: 'oauth', BENCH_ISSUER: as.issuer, BENCH_AUDIENCE: AUDIENCE },
        token: jwt,
      },
    ];
    const samples: HttpResult[][] = sides.map(() => []);
    for (let r = 0; r < rounds; r++) {
      for (const [i, side] of sides.entries()) {
        samples[i]?.push(
          await withEnv(side.env, () =>
            httpRun(target(side.token), { connections: 32, durationSec: duration, warmupSec: 1 }),
          ),
        );
      }
    }
    console.log(`\noauth: 2026-07-28 tools/call over HTTP, 32 connections, ${rounds} round(s)`);
    const rps = samples.map((s) => median(s.map((x) => x.requestsPerSec)));
    const cpu = samples.map((s) => median(s.map((x) => x.cpuMicrosPerRequest ?? Number.NaN)));
    for (const [i, side] of sides.entries()) {
      console.log(
        `  ${side.name.padEnd(14)} ${rps[i]?.toFixed(0).padStart(7)} req/s   ${cpu[i]?.toFixed(1).padStart(6)} µs CPU/req`,
      );
    }
    const bad = samples.flat().some((x) => x.non2xx + x.errors + x.timeouts + x.mismatches > 0);
    const ratio = (rps[1] as number) / (rps[0] as number);
    const ok = !bad && ratio >= TARGET;
    console.log(
      `  ratio OAuth / static token ${(ratio * 100).toFixed(0).padStart(4)} %   target ≥ ${TARGET * 100} %  ${ok ? 'OK' : 'MISSED'}${bad ? ' (errors under load)' : ''}   by CPU/req ${(((cpu[0] as number) / (cpu[1] as number)) * 100).toFixed(0)} %`,
    );
    return ok;
  } finally {
    await as.close();
  }
}
