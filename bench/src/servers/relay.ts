/**
 * Baseline of the gateway's hop (#35): a stdio relay that parses and re-serialises every frame,
 * both ways, and does nothing else — no validation, no routing, no events. It runs the command
 * after its own path (`relay.js node rich.js`) as its child and passes frames between the two.
 * What a gateway adds beyond this is what its features cost.
 */
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';

const [command, ...args] = process.argv.slice(2);
if (!command) throw new Error('usage: relay.js <command> [args…]');
const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'inherit'] });
const relay = (from: NodeJS.ReadableStream, to: NodeJS.WritableStream) =>
  createInterface({ input: from, crlfDelay: Number.POSITIVE_INFINITY }).on('line', (line) => {
    if (line.trim() === '') return;
    to.write(`${JSON.stringify(JSON.parse(line))}\n`);
  });
relay(process.stdin, child.stdin);
relay(child.stdout, process.stdout);
process.stdin.on('end', () => child.stdin.end());
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
