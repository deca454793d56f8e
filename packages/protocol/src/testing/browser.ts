import { existsSync } from 'node:fs';

/** Debian's Chromium, where `.ci/run` installs it; the `CHROMIUM` variable points elsewhere. */
export const CHROMIUM_PATH = process.env.CHROMIUM ?? '/usr/bin/chromium';

/** Whether Chromium is at {@link CHROMIUM_PATH}. */
export function haveChromium(): boolean {
  return existsSync(CHROMIUM_PATH);
}

/** What {@link chromiumLaunchOptions} returns: Playwright's persistent-context launch options. */
export interface ChromiumLaunchOptions {
  executablePath: string;
  viewport: { width: number; height: number };
  headless: true;
  timeout: number;
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
