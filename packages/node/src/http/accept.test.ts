import { describe, expect, it } from 'vitest';
import { acceptsMediaType } from './accept.js';

describe('acceptsMediaType', () => {
  it.each([
    ['application/json, text/event-stream', 'application/json', true],
    ['application/json, text/event-stream', 'text/event-stream', true],
    ['Application/JSON', 'application/json', true],
    ['text/*', 'text/event-stream', true],
    ['*/*', 'application/json', true],
    ['application/json;q=0.5', 'application/json', true],
    ['application/json ; charset=utf-8', 'application/json', true],
  ])('%j admits %s', (accept, type, expected) => {
    expect(acceptsMediaType(accept, type)).toBe(expected);
  });

  it.each([
    [undefined, 'application/json'],
    ['', 'application/json'],
    // Substrings are not media types.
    ['application/json-seq', 'application/json'],
    ['text/event-streams', 'text/event-stream'],
    ['xapplication/json', 'application/json'],
    // q=0 refuses, and the most specific range decides over a wildcard.
    ['text/event-stream;q=0', 'text/event-stream'],
    ['*/*, text/event-stream; q=0', 'text/event-stream'],
    ['text/*;q=0, */*', 'text/event-stream'],
    ['application/json', 'text/event-stream'],
  ])('%j does not admit %s', (accept, type) => {
    expect(acceptsMediaType(accept, type)).toBe(false);
  });

  it('takes a malformed weight as 1 and a listed type over a refused wildcard', () => {
    expect(acceptsMediaType('application/json;q=abc', 'application/json')).toBe(true);
    expect(acceptsMediaType('*/*;q=0, application/json', 'application/json')).toBe(true);
  });
});
