/**
 * Hooks around backend tool calls (`gateway.hooks`) over the wire, both eras: the built-in
 * `redact` takes secrets out of a result's text, embedded resources and structured content
 * (images untouched), `size_caps` refuses oversized arguments and replaces an oversized result
 * with a tool error, and an operator's own module refuses, rewrites arguments, or — failing
 * after the call — withholds the result. A module that cannot be loaded stops the start.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type CallToolResult, type McpClient, RpcError } from '@mcpkit/protocol';
import {
  type HttpProcess,
  killSpawned,
  removeTempDirs,
  runProcess,
  tempDir,
} from '@mcpkit/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backend, CLI, spawnHttpGateway } from './helpers.js';

const SECRET = 'hunter2-very-secret-0123';
const PNG_PREFIX = 'iVBORw0KGgo';

/** An operator's hook: refuses 'prod', shouts echo's text, and fails after `fails`. */
const OWN_HOOK = `
export default (options) => ({
  name: 'house-rules',
  before(call) {
    if (String(call.args.text ?? '').includes(options.forbidden)) {
      throw new Error('not on ' + options.forbidden);
    }
    if (call.original === 'echo') return { ...call.args, text: String(call.args.text).toUpperCase() };
    return undefined;
  },
  after(call, result) {
    if (call.original === 'fails') throw new Error('audit store is down');
    return undefined;
  },
});
`;

let gw: HttpProcess;
let dir: string;
beforeAll(async () => {
  dir = tempDir('gw-hooks-');
  writeFileSync(join(dir, 'house-rules.mjs'), OWN_HOOK);
  gw = await spawnHttpGateway(
    {
      gateway: {
        hooks: [
          { use: 'redact', tools: ['leaky__*'] },
          { use: 'size_caps', max_args_bytes: 4096, max_result_bytes: 65_536 },
          {
            module: './house-rules.mjs',
            options: { forbidden: 'prod' },
            tools: ['rich__echo', 'rich__fails'],
          },
        ],
      },
      mcpServers: { leaky: backend('leaky'), rich: backend('rich') },
    },
    { dir },
  );
});
afterAll(async () => {
  await gw?.stop();
  killSpawned();
  removeTempDirs();
});

const call = (client: McpClient, name: string, args: Record<string, unknown> = {}) =>
  client.callTool(name, args).then(
    (r: CallToolResult) => r,
    (err: unknown) => (RpcError.is(err) ? `${err.code} ${err.message}` : String(err)),
  );
const textOf = (r: CallToolResult | string) =>
  typeof r === 'string' ? r : r.content.map((b) => ('text' in b ? b.text : b.type)).join('\n');

describe.each(['legacy', 'auto'] as const)('hooks over HTTP (%s)', (protocol) => {
  it('redact: no secret in text, embedded resources or structured content; images as they were', async () => {
    const client = await gw.connect({ protocol });
    try {
      const result = (await client.callTool('leaky__read_config', {
        secret: SECRET,
      })) as CallToolResult;
      expect(JSON.stringify(result)).not.toContain(SECRET);
      expect(result.content[0]).toEqual({
        type: 'text',
        text: 'DATABASE_URL=postgres://app:[REDACTED]@db:5432/app\nLOG_LEVEL=info',
      });
      expect(result.content[1]).toMatchObject({ resource: { text: 'API_KEY=[REDACTED]' } });
      expect(result.content[2]).toMatchObject({ type: 'image' });
      expect((result.content[2] as { data: string }).data.startsWith(PNG_PREFIX)).toBe(true);
      expect(result.structuredContent).toEqual({
        service: 'app',
        password: '[REDACTED]',
        headers: { Authorization: '[REDACTED]' },
      });
      // Only the tools it is for: rich's echo of the same text is another hook's business.
      expect(textOf(await call(client, 'leaky__plain'))).toBe('nothing to hide here');
    } finally {
      await client.close();
    }
  });

  it('size_caps: big arguments refused before the backend, a big result replaced by a tool error', async () => {
    const client = await gw.connect({ protocol });
    try {
      expect(await call(client, 'rich__sleep', { ms: 0, pad: 'x'.repeat(5000) })).toMatch(
        /^-32602 The arguments of 'rich__sleep' are \d+ bytes, over the gateway's cap of 4096$/,
      );
      const big = (await call(client, 'rich__big', { mb: 0.1 })) as CallToolResult;
      expect(big.isError).toBe(true);
      expect(textOf(big)).toMatch(
        /^The result of 'rich__big' was \d+ bytes, over the gateway's cap of 65536: it was not passed on/,
      );
      const small = (await call(client, 'rich__big', { mb: 0.01 })) as CallToolResult;
      expect(small.isError).toBeFalsy();
    } finally {
      await client.close();
    }
  });

  it("an operator's module refuses, rewrites arguments, and withholds a result it cannot check", async () => {
    const client = await gw.connect({ protocol });
    try {
      expect(await call(client, 'rich__echo', { text: 'deploy to prod' })).toBe(
        "-32600 Tool 'rich__echo' refused by hook 'house-rules': not on prod",
      );
      expect(textOf(await call(client, 'rich__echo', { text: 'hello' }))).toBe('HELLO');
      expect(await call(client, 'rich__fails')).toBe(
        "-32603 The result of 'rich__fails' was withheld: hook 'house-rules' failed: audit store is down",
      );
      // A tool it does not name is left alone.
      expect(textOf(await call(client, 'rich__sleep', { ms: 1 }))).toBe('slept 1');
    } finally {
      await client.close();
    }
  });
});

describe('hooks, elsewhere', () => {
  it('records refusals as events naming the hook', async () => {
    const client = await gw.connect();
    try {
      await expect
        .poll(async () => {
          const events = textOf(
            (await client.callTool('get_events', { event_type: 'hook.refused' })) as CallToolResult,
          );
          return events.includes('house-rules') && events.includes('size_caps');
        })
        .toBe(true);
    } finally {
      await client.close();
    }
  });

  it('a module that cannot be loaded stops the start, naming it', async () => {
    const bad = tempDir('gw-hooks-bad-');
    writeFileSync(join(bad, 'empty.mjs'), 'export default 42;\n');
    for (const [module, expected] of [
      ['./missing.mjs', /gateway\.hooks\.0: cannot load .*missing\.mjs/],
      ['./empty.mjs', /gateway\.hooks\.0: .*empty\.mjs must export by default a hook/],
    ] as const) {
      const file = join(bad, 'gateway.json');
      writeFileSync(
        file,
        JSON.stringify({ gateway: { hooks: [{ module }] }, mcpServers: { rich: backend('rich') } }),
      );
      const run = await runProcess(process.execPath, [CLI, '--config', file], {
        timeoutMs: 30_000,
      });
      expect(run.code, module).toBe(2);
      expect(run.stderr, module).toMatch(expected);
    }
  });

  it('refuses size_caps without a cap', async () => {
    const file = join(tempDir('gw-hooks-cfg-'), 'gateway.json');
    writeFileSync(
      file,
      JSON.stringify({ gateway: { hooks: [{ use: 'size_caps' }] }, mcpServers: {} }),
    );
    const run = await runProcess(process.execPath, [CLI, '--config', file], { timeoutMs: 30_000 });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('size_caps needs max_args_bytes, max_result_bytes or both');
  });
});
