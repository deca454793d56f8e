import { existsSync } from 'node:fs';
import { inflateSync } from 'node:zlib';

/** Debian's Chromium, where `.ci/run` installs it; the `CHROMIUM` variable points elsewhere. */
export const CHROMIUM_PATH = process.env.CHROMIUM ?? '/usr/bin/chromium';

/** Whether Chromium is at {@link CHROMIUM_PATH}. */
export function haveChromium(): boolean {
  return existsSync(CHROMIUM_PATH);
}

/** Fail a browser test at once, saying where Chromium was looked for, when it is not there. */
export function requireChromium(): void {
  if (!haveChromium()) {
    throw new Error(
      `Chromium not found at ${CHROMIUM_PATH} (.ci/run installs it: apt-get install chromium)`,
    );
  }
}

/** What {@link chromiumLaunchOptions} returns: Playwright's persistent-context launch options. */
export interface ChromiumLaunchOptions {
  /** The Debian `chromium` binary ({@link CHROMIUM_PATH}). */
  executablePath: string;
  /** The page size screenshots are taken at. */
  viewport: { width: number; height: number };
  /** Always headless: tests run without a display. */
  headless: true;
  /** ms the launch may take. */
  timeout: number;
  /** Chromium's flags: `--no-sandbox --disable-gpu` and what a container needs. */
  args: string[];
}

/**
 * Options for Playwright's `chromium.launchPersistentContext(profileDir, options)` (pass a fresh
 * `tempDir()` as the profile): headless Chromium that runs as root in CI (no sandbox, no GPU) and
 * sends none of its own traffic — no component updates, sync or QUIC probes, which a closed
 * network refuses by the dozen and a test must not depend on anyway.
 */
export function chromiumLaunchOptions(
  viewport: { width: number; height: number } = { width: 1280, height: 800 },
): ChromiumLaunchOptions {
  return {
    executablePath: CHROMIUM_PATH,
    viewport,
    headless: true,
    timeout: 30_000,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  };
}

/** What {@link pngStats} reads off a screenshot. */
export interface PngStats {
  /** Pixels across. */
  width: number;
  /** Pixels down. */
  height: number;
  /** Distinct RGB colours: a blank (or single-colour) shot has a handful. */
  distinct: number;
  /** Pixels darker than mid-grey (r + g + b under 384): text and lines drawn on a light page. */
  inked: number;
}

/**
 * Decode a PNG as Chromium's screenshots write it (8-bit RGB or RGBA, not interlaced) and count
 * what tells a drawn page from a blank one. Node alone (zlib), so a test checks a shot without
 * a browser page at hand; other PNGs are refused with a clear error.
 */
export function pngStats(png: Uint8Array): PngStats {
  const buf = Buffer.from(png.buffer, png.byteOffset, png.byteLength);
  if (buf.length < 8 || buf.readUInt32BE(0) !== 0x89504e47) throw new Error('not a PNG');
  let width = 0;
  let height = 0;
  let channels = 0;
  const idat: Buffer[] = [];
  for (let at = 8; at + 8 <= buf.length; ) {
    const length = buf.readUInt32BE(at);
    const type = buf.toString('latin1', at + 4, at + 8);
    const data = buf.subarray(at + 8, at + 8 + length);
    if (type === 'IHDR') {
      width = data.readUInt32BE(0);
      height = data.readUInt32BE(4);
      const [depth, colour, , , interlace] = data.subarray(8, 13);
      channels = colour === 2 ? 3 : colour === 6 ? 4 : 0;
      if (depth !== 8 || channels === 0 || interlace !== 0)
        throw new Error(`unsupported PNG: bit depth ${depth}, colour type ${colour}`);
    } else if (type === 'IDAT') idat.push(data);
    else if (type === 'IEND') break;
    at += 12 + length;
  }
  const raw = inflateSync(Buffer.concat(idat));
  const stride = width * channels;
  let prior = new Uint8Array(stride);
  const seen = new Set<number>();
  let inked = 0;
  for (let y = 0; y < height; y++) {
    const filter = raw[y * (stride + 1)];
    const line = raw.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1));
    const row = new Uint8Array(stride);
    for (let i = 0; i < stride; i++) {
      const a = i >= channels ? (row[i - channels] as number) : 0;
      const b = prior[i] as number;
      const c = i >= channels ? (prior[i - channels] as number) : 0;
      row[i] = ((line[i] as number) + unfilter(filter, a, b, c)) & 0xff;
    }
    for (let i = 0; i < stride; i += channels) {
      const [r, g, bl] = [row[i] as number, row[i + 1] as number, row[i + 2] as number];
      seen.add((r << 16) | (g << 8) | bl);
      if (r + g + bl < 384) inked++;
    }
    prior = row;
  }
  return { width, height, distinct: seen.size, inked };
}

/** The predictor PNG filter `filter` adds back (left `a`, up `b`, up-left `c`). */
function unfilter(filter: number | undefined, a: number, b: number, c: number): number {
  switch (filter) {
    case 0:
      return 0;
    case 1:
      return a;
    case 2:
      return b;
    case 3:
      return (a + b) >> 1;
    case 4: {
      const p = a + b - c;
      const pa = Math.abs(p - a);
      const pb = Math.abs(p - b);
      const pc = Math.abs(p - c);
      return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
    }
    default:
      throw new Error(`corrupt PNG: filter type ${filter}`);
  }
}
