import { describe, expect, it } from 'vitest';
import type { HttpPage } from '../http/pages.js';
import { startupLines } from './runner.js';

const page = (shown?: HttpPage['shown']): HttpPage => ({
  ...(shown ? { shown } : {}),
  matches: () => false,
  handle: () => {},
});

describe('startupLines', () => {
  it('says where, then labels each URL: Streamable HTTP, plain JSON-RPC, pages, metrics', () => {
    const text = startupLines('mcp-gateway', '1.2.3', 'http://127.0.0.1:3000', {
      streamablePath: '/mcp',
      plainPaths: ['/messages/', '/messages'],
      pages: [page({ label: 'status page', path: '/' }), page()],
      metricsPath: '/metrics',
    });
    expect(text.split('\n')).toEqual([
      'mcp-gateway 1.2.3 listening on http://127.0.0.1:3000',
      '  Streamable HTTP: http://127.0.0.1:3000/mcp',
      '  plain JSON-RPC:  http://127.0.0.1:3000/messages/',
      '  status page:     http://127.0.0.1:3000/',
      '  metrics:         http://127.0.0.1:3000/metrics',
      '',
    ]);
  });

  it('leaves out what is not served', () => {
    expect(
      startupLines('mcp-x', '0.1.0', 'http://[::1]:1', {
        streamablePath: false,
        plainPaths: ['/rpc'],
        pages: [],
        metricsPath: undefined,
      }),
    ).toBe('mcp-x 0.1.0 listening on http://[::1]:1\n  plain JSON-RPC: http://[::1]:1/rpc\n');
  });
});
