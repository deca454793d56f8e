/**
 * A stricter baseline: split each stdin chunk into lines by hand and write the echoed lines back
 * once per chunk, the same write strategy our transport uses — so the comparison isolates the
 * cost of parsing, dispatching and serializing.
 */
let partial = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk: string) => {
  const text = partial + chunk;
  const last = text.lastIndexOf('\n');
  if (last === -1) {
    partial = text;
    return;
  }
  partial = text.slice(last + 1);
  process.stdout.write(text.slice(0, last + 1));
});
