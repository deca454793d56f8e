/**
 * Tools whose schemas come from another schema library or another copy of zod than the one this
 * package depends on: an app's own zod 3 or zod 4, valibot, any Standard Schema.
 */
import type { StandardJSONSchemaV1, StandardSchemaV1 } from '@standard-schema/spec';
import * as v from 'valibot';
import { describe, expect, expectTypeOf, it, vi } from 'vitest';
import { z } from 'zod';
import { z as zod3 } from 'zod-v3';
import { z as otherZod4 } from 'zod-v3/v4';
import { connectRaw } from '../testing/raw.js';
import {
  argumentIssues,
  describeIssues,
  issueList,
  safeParseFast,
  toJsonSchema,
} from './json-schema.js';
import { McpServer } from './server.js';
import { defineTool, type Tool, ToolError } from './tool.js';
import type { CallToolResult } from './types.js';

interface Reply {
  result?: CallToolResult;
  error?: { code: number; message: string; data?: unknown };
}

/** tools/call to a real McpServer, over a connection as a client would send it. */
async function callTool(tool: Tool, args: unknown): Promise<Reply> {
  const server = new McpServer({ name: 't', version: '1' }).addTool(tool);
  const peer = connectRaw(server);
  const reply = await peer.request<CallToolResult>('tools/call', {
    name: tool.name,
    arguments: args,
  });
  await peer.close();
  return reply;
}

// A stand-in for a database lookup: the kind of check that needs an async refinement.
const taken = async (name: string) => {
  await new Promise((resolve) => setTimeout(resolve, 1));
  return name === 'taken';
};

describe('a zod 4 schema from another copy of zod', () => {
  // zod@3.25 ships zod 4.0 as `zod/v4`: a second, older copy, as an app with its own zod has.
  const input = otherZod4.object({
    user: otherZod4.object({
      // zod 4.0 drops a description on `.refine()`, so it comes last.
      name: otherZod4
        .string()
        .refine(async (n) => !(await taken(n)), 'name is taken')
        .describe('login name'),
      age: otherZod4.int().min(0),
    }),
    tags: otherZod4.array(otherZod4.string()).default([]),
  });

  it('is not our copy', () => {
    expect(otherZod4.string()._zod.version).not.toBe(z.string()._zod.version);
  });

  it('validates arguments, async refinements included, and passes the parsed data', async () => {
    const handler = vi.fn((args: { user: { name: string; age: number }; tags: string[] }) => ({
      greeting: `hi ${args.user.name} (${args.tags.length} tags)`,
    }));
    const tool = defineTool({
      name: 'register',
      description: 'd',
      inputSchema: input,
      handler: (args) => {
        expectTypeOf(args).toEqualTypeOf<{
          user: { name: string; age: number };
          tags: string[];
        }>();
        return handler(args);
      },
    });
    const ok = await callTool(tool, { user: { name: 'ada', age: 36 } });
    expect(ok.result).toMatchObject({
      isError: false,
      structuredContent: { greeting: 'hi ada (0 tags)' },
    });
    expect(handler).toHaveBeenCalledWith({ user: { name: 'ada', age: 36 }, tags: [] });

    const refused = await callTool(tool, { user: { name: 'taken', age: 36 } });
    expect(refused.error).toBeUndefined();
    expect(refused.result?.isError).toBe(true);
    expect(refused.result?.content).toEqual([
      { type: 'text', text: 'Invalid arguments for tool register: user.name: name is taken' },
    ]);
    expect(refused.result?.structuredContent).toEqual({
      error: 'invalid_arguments',
      issues: [{ path: 'user.name', message: 'name is taken' }],
    });

    const wrongType = await callTool(tool, { user: { name: 'bob', age: -1 } });
    expect(wrongType.result?.isError).toBe(true);
    expect(wrongType.result?.structuredContent).toMatchObject({ issues: [{ path: 'user.age' }] });
    expect(handler).toHaveBeenCalledTimes(1);
  });

  it('is listed through z.toJSONSchema, with descriptions from its own registry', () => {
    const tool = defineTool({
      name: 'register',
      description: 'd',
      inputSchema: input,
      handler() {},
    });
    const same = z.object({
      user: z.object({ name: z.string().describe('login name'), age: z.int().min(0) }),
      tags: z.array(z.string()).default([]),
    });
    expect(tool.listEntry.inputSchema).toEqual(toJsonSchema(same, 'input'));
    expect(tool.listEntry.inputSchema).toMatchObject({
      properties: { user: { properties: { name: { type: 'string', description: 'login name' } } } },
      required: ['user'],
    });
  });

  it('checks output: parsed data is sent, a mismatch is an internal error', async () => {
    const output = otherZod4.object({
      id: otherZod4.string().refine(async (id) => id.startsWith('u_'), 'not a user id'),
    });
    const good = defineTool({
      name: 'make',
      description: 'd',
      outputSchema: output,
      handler: () => ({ id: 'u_1', secret: 'not declared, not sent' }),
    });
    expect(good.listEntry.outputSchema).toEqual(
      toJsonSchema(z.object({ id: z.string() }), 'output'),
    );
    expect((await callTool(good, {})).result).toEqual({
      content: [{ type: 'text', text: '{"id":"u_1"}' }],
      structuredContent: { id: 'u_1' },
      isError: false,
    });
    const bad = defineTool({
      name: 'make',
      description: 'd',
      outputSchema: output,
      handler: () => ({ id: 'x' }),
    });
    expect((await callTool(bad, {})).error).toMatchObject({ code: -32603 });
  });
});

describe('a zod 3 schema', () => {
  const input = zod3.object({
    name: zod3.string().refine(async (n) => !(await taken(n)), 'name is taken'),
  });
  const inputJsonSchema = {
    type: 'object',
    properties: { name: { type: 'string' } },
    required: ['name'],
  };

  it('cannot describe itself: defineTool asks for inputJsonSchema', () => {
    expect(() =>
      defineTool({ name: 'register', description: 'd', inputSchema: input, handler() {} }),
    ).toThrow(/tool 'register': its inputSchema \(zod\) .*give inputJsonSchema/);
    expect(() =>
      defineTool({
        name: 'make',
        description: 'd',
        outputSchema: input,
        handler: () => ({ name: 'x' }),
      }),
    ).toThrow(/give outputJsonSchema/);
  });

  it('validates with async refinements when inputJsonSchema is given', async () => {
    const tool = defineTool({
      name: 'register',
      description: 'd',
      inputSchema: input,
      inputJsonSchema,
      handler: ({ name }) => {
        expectTypeOf(name).toEqualTypeOf<string>();
        return `welcome ${name}`;
      },
    });
    expect(tool.listEntry.inputSchema).toBe(inputJsonSchema);
    expect((await callTool(tool, { name: 'ada' })).result).toEqual({
      content: [{ type: 'text', text: 'welcome ada' }],
      isError: false,
    });
    const refused = await callTool(tool, { name: 'taken' });
    expect(refused.result?.isError).toBe(true);
    expect(refused.result?.structuredContent).toEqual({
      error: 'invalid_arguments',
      issues: [{ path: 'name', message: 'name is taken' }],
    });
  });

  it('checks output against a zod 3 outputSchema listed as outputJsonSchema', async () => {
    const outputJsonSchema = { type: 'object', properties: { n: { type: 'number' } } };
    const tool = defineTool({
      name: 'count',
      description: 'd',
      outputSchema: zod3.object({ n: zod3.number() }),
      outputJsonSchema,
      handler: () => ({ n: 3, extra: true }),
    });
    expect(tool.listEntry.outputSchema).toBe(outputJsonSchema);
    expect((await callTool(tool, {})).result?.structuredContent).toEqual({ n: 3 });
  });
});

describe('a valibot schema', () => {
  const input = v.objectAsync({
    name: v.string(),
    tags: v.arrayAsync(
      v.pipeAsync(
        v.string(),
        v.checkAsync(async (t) => !(await taken(t)), 'tag taken'),
      ),
    ),
  });

  it('needs inputJsonSchema, then validates with `{ key }` path segments mapped', async () => {
    expect(() =>
      defineTool({ name: 'tag', description: 'd', inputSchema: input, handler() {} }),
    ).toThrow(/\(valibot\).*inputJsonSchema/);
    const tool = defineTool({
      name: 'tag',
      description: 'd',
      inputSchema: input,
      inputJsonSchema: { type: 'object', properties: {}, required: [] },
      handler: ({ name, tags }) => {
        expectTypeOf(tags).toEqualTypeOf<string[]>();
        return `${name}: ${tags.join(',')}`;
      },
    });
    expect((await callTool(tool, { name: 'n', tags: ['a', 'b'] })).result?.content).toEqual([
      { type: 'text', text: 'n: a,b' },
    ]);
    const refused = await callTool(tool, { name: 'n', tags: ['a', 'taken'] });
    expect(refused.result?.isError).toBe(true);
    expect(refused.result?.structuredContent).toEqual({
      error: 'invalid_arguments',
      issues: [{ path: 'tags.1', message: 'tag taken' }],
    });
  });
});

/** A hand-written Standard Schema that also speaks Standard JSON Schema. */
function evenNumberSchema(): StandardSchemaV1<{ n: number }> & StandardJSONSchemaV1<{ n: number }> {
  const json = (target: string) => ({
    $schema: `https://json-schema.org/${target}/schema`,
    type: 'object',
    properties: { n: { type: 'integer', multipleOf: 2 } },
  });
  return {
    '~standard': {
      version: 1,
      vendor: 'evens',
      validate: (value) => {
        const n = (value as { n?: unknown } | null)?.n;
        return typeof n === 'number' && n % 2 === 0
          ? { value: { n } }
          : { issues: [{ message: 'must be even', path: [{ key: 'n' }] }] };
      },
      jsonSchema: {
        input: ({ target }) => json(target),
        output: ({ target }) => json(target),
      },
    },
  };
}

describe('a Standard JSON Schema from another library', () => {
  it('is listed through ~standard.jsonSchema and validated synchronously', async () => {
    const schema = evenNumberSchema();
    const tool = defineTool({
      name: 'half',
      description: 'd',
      inputSchema: schema,
      handler: ({ n }) => String(n / 2),
    });
    expect(tool.listEntry.inputSchema).toEqual({
      type: 'object',
      properties: { n: { type: 'integer', multipleOf: 2 } },
      required: [],
    });
    const sync = safeParseFast(schema, { n: 4 });
    expect(sync).toEqual({ success: true, data: { n: 4 } });
    expect((await callTool(tool, { n: 4 })).result?.content).toEqual([{ type: 'text', text: '2' }]);
    expect((await callTool(tool, { n: 3 })).result?.structuredContent).toEqual({
      error: 'invalid_arguments',
      issues: [{ path: 'n', message: 'must be even' }],
    });
  });

  it('awaits a validate that returns a promise', async () => {
    const base = evenNumberSchema();
    const asyncSchema: StandardSchemaV1<{ n: number }> = {
      '~standard': { ...base['~standard'], validate: async (v) => base['~standard'].validate(v) },
    };
    const pending = safeParseFast(asyncSchema, { n: 1 });
    expect(pending).toBeInstanceOf(Promise);
    expect(await pending).toEqual({
      success: false,
      error: { issues: [{ message: 'must be even', path: [{ key: 'n' }] }] },
    });
  });
});

describe('safeParseFast on our own zod', () => {
  it('hands back zod’s own result: no promise, no wrapper, ~standard not consulted', () => {
    const schema = z.object({ a: z.number() });
    const safeParse = vi.spyOn(schema, 'safeParse');
    const result = safeParseFast(schema, { a: 1 });
    expect(result).not.toBeInstanceOf(Promise);
    expect(result).toBe(safeParse.mock.results[0]?.value);
    expect(Object.hasOwn(schema, '~standard')).toBe(false);
  });
});

describe('issues from any library', () => {
  const error = {
    issues: [
      { message: 'bad', path: [{ key: 'a' }, 0, { key: 'b' }] },
      { message: 'root' },
      { message: 'empty', path: [] },
    ],
  };

  it('map `{ key }` segments and keys to the same dotted paths', () => {
    expect(issueList(error)).toEqual([
      { path: 'a.0.b', message: 'bad' },
      { path: '', message: 'root' },
      { path: '', message: 'empty' },
    ]);
    expect(describeIssues(error)).toBe('a.0.b: bad; (root): root; (root): empty');
  });

  it('mark the ones whose argument is missing', () => {
    expect(
      argumentIssues(
        {
          issues: [
            { message: 'x', path: ['name'] },
            { message: 'x', path: [{ key: 'user' }, 'age'] },
            { message: 'x', path: ['deep', 'er'] },
            { message: 'x', path: [] },
          ],
        },
        { name: 'n', user: {} },
      ),
    ).toEqual([
      { path: 'name', message: 'x' },
      { path: 'user.age', message: 'x', missing: true },
      { path: 'deep.er', message: 'x', missing: true },
      { path: '', message: 'x' },
    ]);
  });
});

// The registry symbol another copy of this package brands its ToolError with.
const OTHER_COPY_BRAND: unique symbol = Symbol.for('mcpkit.ToolError');

describe('ToolError is recognised by its brand', () => {
  it('ToolError.is: true for any copy’s ToolError, false for other values', () => {
    // What a second copy of this package would throw: another class, the same registry symbol.
    class OtherCopyToolError extends Error {
      readonly [OTHER_COPY_BRAND] = true;
    }
    expect(ToolError.is(new ToolError('x'))).toBe(true);
    expect(ToolError.is(new OtherCopyToolError('x'))).toBe(true);
    expect(ToolError.is(new Error('x'))).toBe(false);
    expect(ToolError.is({ name: 'ToolError', message: 'x' })).toBe(false);
    expect(ToolError.is(null)).toBe(false);
    expect(ToolError.is('ToolError')).toBe(false);
  });

  it('a ToolError of another copy becomes an isError result with its structured content', async () => {
    class OtherCopyToolError extends Error {
      readonly [OTHER_COPY_BRAND] = true;
      readonly structuredContent = { reason: 'quota' };
    }
    const tool = defineTool({
      name: 'fail',
      description: 'd',
      handler: () => {
        throw new OtherCopyToolError('over quota');
      },
    });
    expect((await callTool(tool, {})).result).toEqual({
      content: [{ type: 'text', text: 'over quota' }],
      isError: true,
      structuredContent: { reason: 'quota' },
    });
  });
});
