import { Console } from 'node:console';

/**
 * Point the global console at stderr. A dependency that prints to stdout would otherwise inject
 * non-JSON lines into a stdio server's protocol stream.
 */
export function guardStdout(): void {
  globalThis.console = new Console({ stdout: process.stderr, stderr: process.stderr });
}
