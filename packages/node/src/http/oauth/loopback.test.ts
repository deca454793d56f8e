import { afterEach, describe, expect, it } from 'vitest';
import { type LoopbackAuthorization, loopbackAuthorization } from './loopback.js';

let loopback: LoopbackAuthorization | undefined;
afterEach(async () => {
  await loopback?.close();
  loopback = undefined;
});

describe('loopbackAuthorization', () => {
  it("hands the browser's redirect back, after showing the URL; other requests get 404", async () => {
    const shown: string[] = [];
    loopback = await loopbackAuthorization({ open: (url) => void shown.push(url.href) });
    expect(loopback.redirectUri).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback$/);
    const back = loopback.authorize(new URL('https://auth.example/authorize?x=1'));
    expect(shown).toEqual(['https://auth.example/authorize?x=1']);
    expect(
      (await fetch(`${loopback.redirectUri.replace('/callback', '/favicon.ico')}`)).status,
    ).toBe(404);
    expect((await fetch(loopback.redirectUri)).status).toBe(404);
    const page = await fetch(
      `${loopback.redirectUri}?code=abc&state=s1&iss=https%3A%2F%2Fauth.example`,
    );
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('You can close this window');
    const url = await back;
    expect(url.searchParams.get('code')).toBe('abc');
    expect(url.searchParams.get('iss')).toBe('https://auth.example');
    // The listener stays for a step-up: a second sign-in is handed back too.
    const second = loopback.authorize(new URL('https://auth.example/authorize?x=2'));
    await fetch(`${loopback.redirectUri}?error=access_denied&state=s2`);
    expect((await second).searchParams.get('error')).toBe('access_denied');
  });

  it('gives up when the browser does not come back', async () => {
    loopback = await loopbackAuthorization({ open: () => {}, timeoutMs: 50 });
    await expect(loopback.authorize(new URL('https://auth.example/a'))).rejects.toThrow(
      /did not come back/,
    );
  });
});
