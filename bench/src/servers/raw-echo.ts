/**
 * Baseline: a raw Node line echo. readline splits stdin into lines and each line is written
 * back as it comes — the least any stdio JSON-RPC server must do.
 */
import { createInterface } from 'node:readline';

const rl = createInterface({ input: process.stdin, crlfDelay: Number.POSITIVE_INFINITY });
rl.on('line', (line) => {
  process.stdout.write(`${line}\n`);
});
