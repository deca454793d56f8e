// Raw frames on purpose: pre-serialized requests measure the server alone, with no client cost.
import { spawn } from 'node:child_process';
import { burst, type Child } from './stdio-driver.js';

const INITIALIZE = `${JSON.stringify({
  jsonrpc: '2.0',
  id: 0,
  method: 'initialize',
  params: {
    protocolVersion: '2025-06-18',
    capabilities: {},
    clientInfo: { name: 'mcpkit-bench', version: '0.0.0' },
  },
})}\n${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`;

/** `count` pipelined `tools/call add {a: i, b: 2}` requests, ids 1…count. */
function toolCalls(count: number): string {
  const requests: string[] = [];
  for (let i = 1; i <= count; i++) {
    requests.push(
      `{"jsonrpc":"2.0","id":${i},"method":"tools/call","params":{"name":"add","arguments":{"a":${i},"b":2}}}\n`,
    );
  }
  return requests.join('');
}

/**
 * Measures one pipelined MCP run: initialize + notifications/initialized (waiting for the
 * initialize reply), a warm-up burst of `count` tools/call whose replies are checked, then the
 * measured burst of `count` tools/call in the same child.
 */
export async function mcpPipelinedRun(command: string[], count: number): Promise<number> {
  const [bin, ...args] = command as [string, ...string[]];
  const child: Child = spawn(bin, args, { stdio: ['pipe', 'pipe', 'inherit'] });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  try {
    const init = collect(child);
    await burst(child, INITIALIZE, 1);
    const initReply = JSON.parse(init.stop().trim()) as { id?: unknown; result?: unknown };
    if (initReply.id !== 0 || typeof initReply.result !== 'object')
      throw new Error(`${command.at(-1)}: bad initialize reply ${JSON.stringify(initReply)}`);

    const payload = toolCalls(count);
    // Warm-up: load the child and let the JIT settle; verify every reply while at it.
    const warm = collect(child);
    await burst(child, payload, count);
    verifyReplies(warm.stop(), count, command.at(-1) ?? bin);

    const start = performance.now();
    child.stdin.write(payload);
    const end = await burst(child, undefined, count);
    child.stdin.end();
    await exited;
    return count / ((end - start) / 1000);
  } finally {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill();
      await exited;
    }
  }
}

function collect(child: Child): { stop(): string } {
  const chunks: Buffer[] = [];
  const onData = (chunk: Buffer) => chunks.push(chunk);
  child.stdout.on('data', onData);
  return {
    stop() {
      child.stdout.off('data', onData);
      return Buffer.concat(chunks).toString('utf8');
    },
  };
}

/** Every call 1…count answered once, with the text of a + b. */
function verifyReplies(text: string, count: number, who: string): void {
  const seen = new Set<number>();
  for (const line of text.split('\n')) {
    if (line === '') continue;
    const reply = JSON.parse(line) as {
      id?: number;
      result?: { content?: { text?: string }[]; isError?: boolean };
    };
    const id = reply.id ?? 0;
    if (reply.result?.content?.[0]?.text !== String(id + 2) || reply.result.isError === true)
      throw new Error(`${who}: unexpected reply ${line.slice(0, 200)}`);
    seen.add(id);
  }
  if (seen.size !== count) throw new Error(`${who}: ${seen.size}/${count} calls answered`);
}
