import { describe, expect, it } from 'vitest';
import { McpServer } from '../mcp/server.js';
import { defineTool } from '../mcp/tool.js';
import { connectRaw } from './raw.js';

const server = () =>
  new McpServer({ name: 'raw', version: '1' }).addTool(
    defineTool({ name: 'hi', description: 'Says hi', handler: () => 'hi' }),
  );

describe('connectRaw', () => {
  it('returns the reply text exactly as the server wrote it', async () => {
    const peer = connectRaw(server());
    expect(await peer.send('{"jsonrpc":"2.0","id":"a","method":"ping"}')).toBe(
      '{"jsonrpc":"2.0","id":"a","result":{}}',
    );
    expect(peer.received).toEqual(['{"jsonrpc":"2.0","id":"a","result":{}}']);
  });

  it('matches parse errors, invalid requests and batches to the frame that caused them', async () => {
    const peer = connectRaw(server());
    const [parse, invalid, batch, ping] = await Promise.all([
      peer.send('{"jsonrpc":"2.0","id":1,"method":'),
      peer.send('{"jsonrpc":"2.0","id":2}'),
      peer.send('[{"jsonrpc":"2.0","id":3,"method":"ping"},{"jsonrpc":"2.0","method":"x"}]'),
      peer.send('{"jsonrpc":"2.0","id":4,"method":"ping"}'),
    ]);
    expect(JSON.parse(parse as string)).toMatchObject({ id: null, error: { code: -32700 } });
    expect(JSON.parse(invalid as string)).toMatchObject({ id: 2, error: { code: -32600 } });
    expect(JSON.parse(batch as string)).toEqual([{ jsonrpc: '2.0', id: 3, result: {} }]);
    expect(JSON.parse(ping as string)).toEqual({ jsonrpc: '2.0', id: 4, result: {} });
  });

  it('resolves undefined for a frame that asks for no reply', async () => {
    const peer = connectRaw(server());
    await expect(peer.send('{"jsonrpc":"2.0","method":"notifications/initialized"}')).resolves.toBe(
      undefined,
    );
    expect(peer.session.initialized).toBe(true);
    expect(peer.received).toEqual([]);
  });

  it('initialize(), request() and close()', async () => {
    const s = server();
    const peer = connectRaw(s);
    const init = await peer.initialize();
    expect(init.result).toMatchObject({ serverInfo: { name: 'raw' } });
    expect(peer.session.initialized).toBe(true);
    const call = await peer.request('tools/call', { name: 'hi' });
    expect(call.result).toMatchObject({ content: [{ type: 'text', text: 'hi' }] });
    await peer.close();
    expect(s.sessionCount).toBe(0);
    await expect(peer.send('{"jsonrpc":"2.0","id":9,"method":"ping"}')).resolves.toBeUndefined();
  });
});

describe('result(), error() and callTool()', () => {
  it('resolve with the result or the error object, and refuse the other', async () => {
    const peer = connectRaw(server());
    expect(await peer.result('ping')).toEqual({});
    expect(await peer.error('nope')).toEqual({
      code: -32601,
      message: 'Method not found',
      data: { method: 'nope' },
    });
    await expect(peer.error('ping')).rejects.toThrow('ping did not fail');
    await expect(peer.result('nope')).rejects.toThrow(/nope failed: .*-32601/);
    expect((await peer.callTool('hi')).result).toMatchObject({ content: [{ text: 'hi' }] });
    expect((await peer.callTool('missing', {})).error).toMatchObject({ code: -32602 });
    await peer.close();
  });
});
