import { describe, expect, it } from 'vitest';
import { schemaProblems, wireProblems } from './wire-schema.js';

const reply = (result: unknown, id: number | string = 7) => ({ jsonrpc: '2.0', id, result });
const failure = (code: number) => ({ jsonrpc: '2.0', id: 3, error: { code, message: 'No' } });
const modern = { resultType: 'complete', ttlMs: 0, cacheScope: 'private' };

describe('wireProblems', () => {
  it('accepts a resources/list of concrete URIs in both revisions', () => {
    const resources = [{ uri: 'mem://notes/today', name: 'today' }];
    expect(wireProblems('2025-11-25', reply({ resources }), 'resources/list')).toEqual([]);
    expect(
      wireProblems('2026-07-28', JSON.stringify(reply({ resources, ...modern })), 'resources/list'),
    ).toEqual([]);
  });

  it('refuses a URI template listed as a resource, naming where', () => {
    const listed = reply({ resources: [{ uri: 'mem://notes/{day}', name: 'day' }] });
    const problems = wireProblems('2025-11-25', listed, 'resources/list');
    expect(problems.join('\n')).toMatch(
      /ListResourcesResult\/resources\/0\/uri: must match format "uri"/,
    );
    const templates = reply({
      resourceTemplates: [{ uriTemplate: 'mem://notes/{day}', name: 'day' }],
    });
    expect(wireProblems('2025-11-25', templates, 'resources/templates/list')).toEqual([]);
  });

  it("checks a result by its method's type, and 2026-07-28's required fields", () => {
    expect(wireProblems('2025-11-25', reply({ tools: 'none' }), 'tools/list')).not.toEqual([]);
    // Without resultType a result is a 2025 one.
    expect(wireProblems('2026-07-28', reply({ tools: [] }), 'tools/list').join()).toMatch(
      /resultType/,
    );
    // Without a method only the envelope is checked.
    expect(wireProblems('2025-11-25', reply({ anything: 1 }))).toEqual([]);
    expect(wireProblems('2025-11-25', { jsonrpc: '2.0', id: null, result: {} })).not.toEqual([]);
  });

  it('holds 2026-07-28 errors to its code rules; 2025 errors only to the schema', () => {
    expect(wireProblems('2026-07-28', failure(-32602))).toEqual([]);
    expect(wireProblems('2026-07-28', failure(-32022))).toEqual([]);
    expect(wireProblems('2026-07-28', failure(-32002))).toEqual([
      'error code -32002 must not be emitted in 2026-07-28',
    ]);
    expect(wireProblems('2026-07-28', failure(-32042))).toHaveLength(1);
    expect(wireProblems('2026-07-28', failure(-32013)).join()).toMatch(/legacy range/);
    expect(wireProblems('2026-07-28', failure(-32050)).join()).toMatch(/not defined/);
    expect(wireProblems('2025-11-25', failure(-32003))).toEqual([]);
    expect(wireProblems('2025-11-25', { jsonrpc: '2.0', id: 3, error: { code: 'x' } })).not.toEqual(
      [],
    );
  });

  it('checks notifications and server requests, and each message of a batch', () => {
    const changed = { jsonrpc: '2.0', method: 'notifications/tools/list_changed' };
    expect(wireProblems('2025-11-25', changed)).toEqual([]);
    expect(
      wireProblems('2025-11-25', { jsonrpc: '2.0', method: 'notifications/nope' }),
    ).not.toEqual([]);
    const ask = { jsonrpc: '2.0', id: 1, method: 'roots/list' };
    expect(wireProblems('2025-11-25', ask)).toEqual([]);
    expect(wireProblems('2026-07-28', ask)).toEqual([
      'a 2026-07-28 server sends no requests: roots/list',
    ]);
    expect(wireProblems('2025-11-25', [reply({}), failure(-32601), 42])).toEqual([
      'not a JSON-RPC message: 42',
    ]);
  });

  it('names a definition the schema lacks', () => {
    expect(() => schemaProblems('2026-07-28', 'InitializeResult', {})).toThrow(
      'the 2026-07-28 schema has no definition InitializeResult',
    );
  });
});
