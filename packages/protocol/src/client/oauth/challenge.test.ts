import { describe, expect, it } from 'vitest';
import { bearerChallenge } from './challenge.js';

describe('bearerChallenge', () => {
  it('reads quoted and token parameters, names lower-cased, escapes undone', () => {
    expect(
      bearerChallenge(
        'Bearer error="insufficient_scope", Resource_Metadata="https://m.example/.well-known/oauth-protected-resource/mcp", scope="read write", realm=mcp, note="a \\"quoted\\" word"',
      ),
    ).toEqual({
      error: 'insufficient_scope',
      resource_metadata: 'https://m.example/.well-known/oauth-protected-resource/mcp',
      scope: 'read write',
      realm: 'mcp',
      note: 'a "quoted" word',
    });
  });

  it('finds the Bearer challenge among others; none without one', () => {
    expect(bearerChallenge('Basic realm="x", Bearer scope="read"')).toEqual({ scope: 'read' });
    expect(bearerChallenge('Bearer')).toEqual({});
    expect(bearerChallenge('Basic realm="x"')).toBeUndefined();
    expect(bearerChallenge(null)).toBeUndefined();
    expect(bearerChallenge('')).toBeUndefined();
  });
});
