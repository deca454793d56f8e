import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const made: string[] = [];
let hooked = false;

/**
 * A fresh directory under the system's temp dir (databases, config files, event logs, a HOME).
 * Removed, with everything in it, by {@link removeTempDirs} — call that in `afterAll` /
 * `afterEach` — and at the latest when the process exits.
 *
 * @example
 * ```ts
 * afterAll(removeTempDirs);
 * const file = join(tempDir('projects-'), 'projects.db');
 * ```
 */
export function tempDir(prefix = 'mcpkit-test-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  made.push(dir);
  if (!hooked) {
    hooked = true;
    process.once('exit', removeTempDirs);
  }
  return dir;
}

/** Remove every directory {@link tempDir} made so far. Never throws. */
export function removeTempDirs(): void {
  for (const dir of made.splice(0)) {
    try {
      rmSync(dir, { recursive: true, force: true });
    } catch {
      // a file still held open (Windows) — the OS cleans temp dirs eventually
    }
  }
}
