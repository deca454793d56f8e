import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { safeParseFast, toJsonSchema } from './json-schema.js';
import {
  defineTool,
  isCallToolResult,
  TOOL_NAME,
  ToolError,
  toCallToolResult,
  toolErrorResult,
} from './tool.js';

const noop = () => 'ok';

describe('defineTool', () => {
  it.each(['get_project', 'a', 'Tool-1.v2', 'x'.repeat(128)])('accepts the name %j', (name) => {
    expect(defineTool({ name, description: 'd', handler: noop }).name).toBe(name);
  });

  it.each([
    ['a space', 'get project'],
    ['a colon', 'ns:get'],
    ['a slash', 'ns/get'],
    ['an empty name', ''],
    ['129 characters', 'x'.repeat(129)],
    ['a non-ASCII letter', 'grüße'],
    ['a trailing newline', 'tool\n'],
  ])('rejects a name with %s', (_label, name) => {
    expect(() => defineTool({ name, description: 'd', handler: noop })).toThrow(TypeError);
  });

  it('requires a description', () => {
    expect(() => defineTool({ name: 'x', description: '', handler: noop })).toThrow(/description/);
    expect(() =>
      defineTool({ name: 'x', handler: noop } as unknown as Parameters<typeof defineTool>[0]),
    ).toThrow(TypeError);
  });

  it('builds a frozen list entry in the MCP field order', () => {
    const tool = defineTool({
      name: 'get_project',
      title: 'Get project',
      description: 'Details of one project',
      inputSchema: z.object({ projectId: z.string() }),
      outputSchema: z.object({ name: z.string() }),
      annotations: { readOnlyHint: true },
      icons: [{ src: 'https://x.example/i.png' }],
      _meta: { 'example.com/k': 1 },
      requiredScopes: ['projects:read'],
      handler: ({ projectId }) => ({ name: projectId }),
    });
    expect(Object.keys(tool.listEntry)).toEqual([
      'name',
      'title',
      'description',
      'inputSchema',
      'outputSchema',
      'annotations',
      'icons',
      '_meta',
    ]);
    expect(Object.isFrozen(tool.listEntry)).toBe(true);
    expect(tool.requiredScopes).toEqual(['projects:read']);
    expect(tool.listEntry).not.toHaveProperty('requiredScopes');
  });

  it('lists an empty object schema when there is no inputSchema', () => {
    const tool = defineTool({ name: 'x', description: 'd', handler: noop });
    expect(tool.listEntry.inputSchema).toEqual({ type: 'object', properties: {}, required: [] });
    expect(tool.inputSchema).toBeUndefined();
    expect(tool.requiredScopes).toEqual([]);
  });

  it('lists inputJsonSchema instead of the derived schema but keeps validating with zod', async () => {
    const custom = {
      type: 'object',
      properties: { node: { $ref: '#/$defs/node' } },
      required: ['node'],
      $defs: { node: { type: 'object', properties: { id: { type: 'string' } } } },
    };
    const inputSchema = z.object({ node: z.object({ id: z.string() }) });
    const tool = defineTool({
      name: 'tree',
      description: 'd',
      inputSchema,
      inputJsonSchema: custom,
      handler: noop,
    });
    expect(tool.listEntry.inputSchema).toEqual(custom);
    expect(tool.inputSchema).toBe(inputSchema);
    const parsed = tool.inputSchema && (await safeParseFast(tool.inputSchema, { node: { id: 1 } }));
    expect(parsed?.success).toBe(false);
  });

  it('matches TOOL_NAME exactly as documented', () => {
    expect(TOOL_NAME.test('abc_DEF-1.2')).toBe(true);
    expect(TOOL_NAME.test('abc def')).toBe(false);
  });
});

describe('toJsonSchema', () => {
  it('drops $schema', () => {
    const json = toJsonSchema(z.object({ a: z.string() }), 'input');
    expect(json).not.toHaveProperty('$schema');
    expect(json).toEqual({
      type: 'object',
      properties: { a: { type: 'string' } },
      required: ['a'],
    });
  });

  it('drops the ±(2^53 - 1) bounds zod adds to integers, at any depth', () => {
    const json = toJsonSchema(
      z.object({
        n: z.int(),
        nested: z.object({ m: z.number().int() }),
        list: z.array(z.int()),
      }),
      'input',
    );
    expect(json).toEqual({
      type: 'object',
      properties: {
        n: { type: 'integer' },
        nested: { type: 'object', properties: { m: { type: 'integer' } }, required: ['m'] },
        list: { type: 'array', items: { type: 'integer' } },
      },
      required: ['n', 'nested', 'list'],
    });
    expect(JSON.stringify(json)).not.toContain(String(Number.MAX_SAFE_INTEGER));
  });

  it('keeps bounds the author set', () => {
    const json = toJsonSchema(
      z.object({ n: z.int().min(1).max(10), x: z.number().max(0.5) }),
      'input',
    );
    expect(json.properties).toEqual({
      n: { type: 'integer', minimum: 1, maximum: 10 },
      x: { type: 'number', maximum: 0.5 },
    });
  });

  it('always adds properties and required to an object schema', () => {
    expect(toJsonSchema(z.object({}), 'input')).toEqual({
      type: 'object',
      properties: {},
      required: [],
    });
    const optionalOnly = toJsonSchema(z.object({ a: z.string().optional() }), 'input');
    expect(optionalOnly.required).toEqual([]);
    expect(optionalOnly.properties).toEqual({ a: { type: 'string' } });
  });

  it('does not add properties to non-object schemas', () => {
    const json = toJsonSchema(z.string(), 'input');
    expect(json).toEqual({ type: 'string' });
  });

  it('distinguishes input and output for defaults', () => {
    const schema = z.object({ n: z.number().default(1) });
    expect(toJsonSchema(schema, 'input').required).toEqual([]);
    expect(toJsonSchema(schema, 'output').required).toEqual(['n']);
  });

  it('is what defineTool lists for inputSchema and outputSchema', () => {
    const input = z.object({ a: z.int() });
    const output = z.object({ b: z.string() });
    const tool = defineTool({
      name: 't',
      description: 'd',
      inputSchema: input,
      outputSchema: output,
      handler: () => ({ b: 'x' }),
    });
    expect(tool.listEntry.inputSchema).toEqual(toJsonSchema(input, 'input'));
    expect(tool.listEntry.outputSchema).toEqual(toJsonSchema(output, 'output'));
  });
});

describe('isCallToolResult', () => {
  it.each([
    [{ content: [] }],
    [{ content: [{ type: 'text', text: 'hi' }] }],
    [{ content: [{ type: 'image', data: 'AA', mimeType: 'image/png' }], isError: true }],
    [
      {
        content: [
          { type: 'audio', data: 'AA', mimeType: 'audio/wav' },
          { type: 'resource', resource: { uri: 'x://1', text: 't' } },
          { type: 'resource_link', uri: 'x://2', name: 'n' },
        ],
      },
    ],
  ])('accepts %j', (value) => {
    expect(isCallToolResult(value)).toBe(true);
  });

  it.each([
    [null],
    [undefined],
    ['text'],
    [42],
    [[{ type: 'text', text: 'hi' }]],
    [{}],
    [{ content: 'hi' }],
    [{ content: [{ type: 'video' }] }],
    [{ content: [{ text: 'no type' }] }],
    [{ content: [null] }],
    [{ content: [{ type: 'text', text: 'ok' }, 'loose string'] }],
  ])('rejects %j', (value) => {
    expect(isCallToolResult(value)).toBe(false);
  });
});

describe('toCallToolResult and toolErrorResult', () => {
  const plain = defineTool({ name: 'p', description: 'd', handler: noop });
  const structured = defineTool({
    name: 's',
    description: 'd',
    outputSchema: z.object({ v: z.string() }),
    handler: () => ({ v: 'x' }),
  });

  it('fills in isError: false and keeps an explicit isError', () => {
    expect(toCallToolResult({ content: [] }, plain)).toEqual({ content: [], isError: false });
    const failed = { content: [{ type: 'text' as const, text: 'x' }], isError: true };
    expect(toCallToolResult(failed, plain)).toBe(failed);
  });

  it('turns undefined into empty content', () => {
    expect(toCallToolResult(undefined, plain)).toEqual({ content: [], isError: false });
  });

  it('JSON-encodes non-object values without structuredContent', () => {
    expect(toCallToolResult(42, plain)).toEqual({
      content: [{ type: 'text', text: '42' }],
      isError: false,
    });
    expect(toCallToolResult([1, 2], plain)).toEqual({
      content: [{ type: 'text', text: '[1,2]' }],
      isError: false,
    });
    expect(toCallToolResult(null, plain)).toEqual({
      content: [{ type: 'text', text: 'null' }],
      isError: false,
    });
  });

  it('JSON-encodes a string when the tool has an outputSchema', () => {
    expect(toCallToolResult('hi', structured)).toEqual({
      content: [{ type: 'text', text: '"hi"' }],
      isError: false,
    });
  });

  it('builds error results', () => {
    expect(toolErrorResult('bad')).toEqual({
      content: [{ type: 'text', text: 'bad' }],
      isError: true,
    });
    expect(toolErrorResult('bad', { k: 1 })).toEqual({
      content: [{ type: 'text', text: 'bad' }],
      isError: true,
      structuredContent: { k: 1 },
    });
  });

  it('ToolError carries its message and structured content', () => {
    const err = new ToolError('nope', { reason: 'x' });
    expect(err).toBeInstanceOf(Error);
    expect(err.name).toBe('ToolError');
    expect(err.message).toBe('nope');
    expect(err.structuredContent).toEqual({ reason: 'x' });
  });
});

describe('toJsonSchema keeps properties named like keywords', () => {
  it('drops only the root $schema', () => {
    const json = toJsonSchema(z.object({ $schema: z.string(), id: z.string() }), 'input');
    expect(json.$schema).toBeUndefined();
    expect(json.properties).toEqual({ $schema: { type: 'string' }, id: { type: 'string' } });
    expect(json.required).toEqual(['$schema', 'id']);
  });
});

describe('safeParseFast', () => {
  it('parses synchronously when it can and falls back to async refinements', async () => {
    const sync = safeParseFast(z.object({ a: z.number() }), { a: 1 });
    expect(sync).not.toBeInstanceOf(Promise);
    expect(sync).toMatchObject({ success: true, data: { a: 1 } });
    const asyncSchema = z.object({ a: z.number().refine(async (n) => n > 0, 'must be positive') });
    const pending = safeParseFast(asyncSchema, { a: -1 });
    expect(pending).toBeInstanceOf(Promise);
    expect(await pending).toMatchObject({ success: false });
  });
});

describe('defineTool: x-mcp-header declarations', () => {
  const withSchema = (inputJsonSchema: Record<string, unknown>) =>
    defineTool({ name: 'h', description: 'd', inputJsonSchema, handler: () => 'ok' });

  it('records each statically reachable primitive, zod .meta() included', () => {
    const tool = withSchema({
      type: 'object',
      properties: {
        region: { type: 'string', 'x-mcp-header': 'Region' },
        n: { type: ['integer', 'null'], 'x-mcp-header': 'N' },
        nested: {
          type: 'object',
          properties: { on: { type: 'boolean', 'x-mcp-header': 'On' } },
        },
        // Data that merely looks like an annotation is not one.
        mode: { type: 'string', enum: [{ 'x-mcp-header': 'X' }], default: 'a' },
      },
    });
    expect(tool.headerParams).toEqual([
      { name: 'Region', path: ['region'], type: 'string' },
      { name: 'N', path: ['n'], type: 'integer' },
      { name: 'On', path: ['nested', 'on'], type: 'boolean' },
    ]);
    const fromZod = defineTool({
      name: 'z',
      description: 'd',
      inputSchema: z.object({ region: z.string().meta({ 'x-mcp-header': 'Region' }) }),
      handler: () => 'ok',
    });
    expect(fromZod.headerParams).toEqual([{ name: 'Region', path: ['region'], type: 'string' }]);
    expect(withSchema({ type: 'object', properties: {} }).headerParams).toBeUndefined();
  });

  it.each([
    ['a number', { a: { type: 'number', 'x-mcp-header': 'A' } }, /string, integer or boolean/],
    ['an object', { a: { type: 'object', 'x-mcp-header': 'A' } }, /string, integer or boolean/],
    ['an empty name', { a: { type: 'string', 'x-mcp-header': '' } }, /HTTP token/],
    ['a name with a space', { a: { type: 'string', 'x-mcp-header': 'My Region' } }, /HTTP token/],
    ['a name with CR LF', { a: { type: 'string', 'x-mcp-header': 'A\r\nB' } }, /HTTP token/],
    [
      'a duplicate name (case-insensitively)',
      {
        a: { type: 'string', 'x-mcp-header': 'Region' },
        b: { type: 'string', 'x-mcp-header': 'region' },
      },
      /repeats the header name 'region'/,
    ],
    [
      'a parameter under items',
      { a: { type: 'array', items: { type: 'string', 'x-mcp-header': 'A' } } },
      /not on a property reachable/,
    ],
    [
      'a parameter under anyOf',
      { a: { anyOf: [{ type: 'string', 'x-mcp-header': 'A' }] } },
      /not on a property reachable/,
    ],
  ])('throws for %s', (_label, properties, message) => {
    expect(() => withSchema({ type: 'object', properties })).toThrow(message);
  });

  it('throws for an annotation on the root or behind $defs', () => {
    expect(() => withSchema({ type: 'string', 'x-mcp-header': 'Root' })).toThrow(TypeError);
    expect(() =>
      withSchema({
        type: 'object',
        properties: { a: { $ref: '#/$defs/A' } },
        $defs: { A: { type: 'string', 'x-mcp-header': 'A' } },
      }),
    ).toThrow(/'h': x-mcp-header at '\(root\)'/);
  });
});
