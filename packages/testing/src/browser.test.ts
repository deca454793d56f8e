import { deflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { pngStats } from './browser.js';
import { seededRandom } from './random.js';

/** CRC-32 of PNG chunks (the decoder ignores it; written right so the files are real PNGs). */
function crc32(bytes: Buffer): number {
  let c = ~0;
  for (const byte of bytes) {
    c ^= byte;
    for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ 0xedb88320 : c >>> 1;
  }
  return ~c >>> 0;
}

function chunk(type: string, data: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'latin1');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])), 0);
  return Buffer.concat([head, data, crc]);
}

/**
 * A PNG of `pixels` (rows of [r, g, b] or [r, g, b, a]), each row written with the filter
 * `filterOf(y)`: every predictor the decoder must undo.
 */
function encode(pixels: number[][][], channels: 3 | 4, filterOf: (y: number) => number): Buffer {
  const height = pixels.length;
  const width = pixels[0]?.length ?? 0;
  const stride = width * channels;
  const rows: number[] = [];
  let prior: number[] = new Array(stride).fill(0);
  for (let y = 0; y < height; y++) {
    const row = (pixels[y] as number[][]).flat();
    const filter = filterOf(y);
    rows.push(filter);
    for (let i = 0; i < stride; i++) {
      const a = i >= channels ? (row[i - channels] as number) : 0;
      const b = prior[i] as number;
      const c = i >= channels ? (prior[i - channels] as number) : 0;
      const p = a + b - c;
      const paeth =
        Math.abs(p - a) <= Math.abs(p - b) && Math.abs(p - a) <= Math.abs(p - c)
          ? a
          : Math.abs(p - b) <= Math.abs(p - c)
            ? b
            : c;
      const predicted = [0, a, b, (a + b) >> 1, paeth][filter] as number;
      rows.push(((row[i] as number) - predicted) & 0xff);
    }
    prior = row;
  }
  return assemble(width, height, channels === 3 ? 2 : 6, Buffer.from(rows));
}

/** A PNG file of filtered scanlines `rows` (each led by its filter byte). */
function assemble(width: number, height: number, colourType: number, rows: Buffer): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr.set([8, colourType, 0, 0, 0], 8);
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(rows)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

/** A 24×16 image of seeded noise, a third of it white: every predictor's branches get used. */
function picture(channels: 3 | 4): number[][][] {
  const random = seededRandom(7);
  return Array.from({ length: 16 }, () =>
    Array.from({ length: 24 }, () => {
      const rgb =
        random() < 0.33 ? [255, 255, 255] : [0, 0, 0].map(() => Math.floor(random() * 256));
      return channels === 4 ? [...rgb, Math.floor(random() * 256)] : rgb;
    }),
  );
}

describe('pngStats', () => {
  it('decodes every filter type, RGB and RGBA, to the same counts', () => {
    for (const channels of [3, 4] as const) {
      const pixels = picture(channels);
      const expected = new Set(pixels.flat().map(([r, g, b]) => `${r},${g},${b}`)).size;
      const inked = pixels.flat().filter(([r, g, b]) => (r ?? 0) + (g ?? 0) + (b ?? 0) < 384);
      for (const filterOf of [() => 0, () => 1, () => 2, () => 3, () => 4, (y: number) => y % 5]) {
        expect(pngStats(encode(pixels, channels, filterOf))).toEqual({
          width: 24,
          height: 16,
          distinct: expected,
          inked: inked.length,
        });
      }
    }
  });

  it('refuses what it cannot read with a clear error', () => {
    expect(() => pngStats(Buffer.from('GIF89a not a png'))).toThrow('not a PNG');
    expect(() => pngStats(assemble(1, 1, 0, Buffer.from([0, 7])))).toThrow(
      'unsupported PNG: bit depth 8, colour type 0',
    );
    expect(() => pngStats(assemble(1, 1, 2, Buffer.from([9, 1, 2, 3])))).toThrow(
      'corrupt PNG: filter type 9',
    );
  });
});
