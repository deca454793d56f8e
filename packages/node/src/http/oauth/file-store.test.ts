import { statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { removeTempDirs, tempDir } from '@mcpkit/testing';
import { afterAll, describe, expect, it } from 'vitest';
import { FileOAuthStore } from './file-store.js';

afterAll(removeTempDirs);

describe('FileOAuthStore', () => {
  it('keeps tokens and registrations across instances, in a file only its owner reads', () => {
    const file = join(tempDir('oauth-store-'), 'nested', 'oauth.json');
    const first = new FileOAuthStore(file);
    expect(first.tokens('https://mcp.example/mcp')).toBeUndefined();
    first.saveRegistration('https://auth.example', { clientId: 'c1', authMethod: 'none' });
    first.saveTokens('https://mcp.example/mcp', { accessToken: 'at', refreshToken: 'rt' });
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(join(file, '..')).mode & 0o777).toBe(0o700);
    const second = new FileOAuthStore(file);
    expect(second.tokens('https://mcp.example/mcp')).toEqual({
      accessToken: 'at',
      refreshToken: 'rt',
    });
    expect(second.registration('https://auth.example')).toEqual({
      clientId: 'c1',
      authMethod: 'none',
    });
    second.saveTokens('https://mcp.example/mcp', undefined);
    expect(new FileOAuthStore(file).tokens('https://mcp.example/mcp')).toBeUndefined();
  });

  it('starts empty from a file that is not its own', () => {
    const file = join(tempDir('oauth-store-'), 'oauth.json');
    writeFileSync(file, 'not json');
    expect(new FileOAuthStore(file).registration('https://auth.example')).toBeUndefined();
    writeFileSync(file, '[1,2]');
    expect(new FileOAuthStore(file).tokens('x')).toBeUndefined();
  });
});
