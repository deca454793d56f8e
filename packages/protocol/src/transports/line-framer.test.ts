import { describe, expect, it, vi } from 'vitest';
import { LineFramer } from './line-framer.js';

function collect(max = 1024) {
  const lines: string[] = [];
  const oversized: number[] = [];
  const malformed: number[] = [];
  const framer = new LineFramer(max, {
    line: (t) => lines.push(t),
    oversized: (b) => oversized.push(b),
    malformed: (b) => malformed.push(b),
  });
  return { framer, lines, oversized, malformed };
}

describe('LineFramer', () => {
  it('splits one chunk into lines and keeps the remainder for the next chunk', () => {
    const { framer, lines } = collect();
    framer.push(Buffer.from('a\nbb\ncc'));
    expect(lines).toEqual(['a', 'bb']);
    framer.push(Buffer.from('c\n'));
    expect(lines).toEqual(['a', 'bb', 'ccc']);
  });

  it('decodes a UTF-8 character split across chunks whole', () => {
    const { framer, lines, malformed } = collect();
    const bytes = Buffer.from('"äöü 😀 中文"\n');
    for (let i = 0; i < bytes.length; i++) framer.push(bytes.subarray(i, i + 1));
    expect(lines).toEqual(['"äöü 😀 中文"']);
    expect(malformed).toEqual([]);
  });

  it('strips a trailing CR and skips empty lines', () => {
    const { framer, lines } = collect();
    framer.push(Buffer.from('one\r\n\r\n\ntwo\r'));
    framer.push(Buffer.from('\nthree\n'));
    expect(lines).toEqual(['one', 'two', 'three']);
  });

  it('emits a last line that has no newline when the stream ends', () => {
    const { framer, lines } = collect();
    framer.push(Buffer.from('x\ny'));
    framer.end();
    expect(lines).toEqual(['x', 'y']);
  });

  it('accepts a line of exactly the limit and rejects one byte more', () => {
    const { framer, lines, oversized } = collect(8);
    framer.push(Buffer.from('12345678\n123456789\nok\n'));
    expect(lines).toEqual(['12345678', 'ok']);
    expect(oversized).toEqual([9]);
  });

  it('stops buffering an oversized line that arrives in pieces and resumes after it', () => {
    const { framer, lines, oversized } = collect(16);
    framer.push(Buffer.from('first\n0123456789'));
    framer.push(Buffer.from('0123456789'));
    framer.push(Buffer.from('0123456789'));
    framer.push(Buffer.from('tail\nnext\n'));
    expect(lines).toEqual(['first', 'next']);
    expect(oversized).toEqual([34]);
  });

  it('reports an oversized line that the stream ends in', () => {
    const { framer, oversized } = collect(4);
    framer.push(Buffer.from('abcdefgh'));
    framer.end();
    expect(oversized).toEqual([8]);
  });

  it('rejects bytes that are not UTF-8 but passes a real U+FFFD through', () => {
    const { framer, lines, malformed } = collect();
    framer.push(Buffer.concat([Buffer.from('"'), Buffer.from([0xff, 0xfe]), Buffer.from('"\n')]));
    framer.push(Buffer.from('"\uFFFD"\n'));
    expect(malformed).toEqual([4]);
    expect(lines).toEqual(['"\uFFFD"']);
  });

  it('joins a line that spans many chunks once (linear, not quadratic)', () => {
    const concat = vi.spyOn(Buffer, 'concat');
    try {
      const { framer, lines } = collect(1 << 20);
      const piece = Buffer.alloc(1024, 0x61);
      for (let i = 0; i < 512; i++) framer.push(piece);
      framer.push(Buffer.from('\n'));
      expect(lines).toHaveLength(1);
      expect(lines[0]).toHaveLength(512 * 1024);
      expect(concat).toHaveBeenCalledTimes(1);
    } finally {
      concat.mockRestore();
    }
  });

  it('refuses a non-positive limit', () => {
    expect(() => new LineFramer(0, { line() {}, oversized() {}, malformed() {} })).toThrow(
      RangeError,
    );
  });
});
