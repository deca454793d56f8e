/**
 * context (issue #30): what a virtual server saves a model. A gateway over this repository's
 * apps (projects, system-info), @mcpkit/node's everything fixture and a second projects server
 * — 60-odd tools — and a virtual server of the 8 a design job needs: the size of `tools/list`
 * at `/mcp` and at the virtual server, in tokens of OpenAI's o200k_base encoding
 * (`gpt-tokenizer`: the tokenizer of GPT-4o and later; other models' differ by a few per cent),
 * counted over the list's JSON as a client hands it to a model.
 *
 * Target: the virtual server's list is at most a quarter of the whole one's.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { EventLog, Gateway, parseConfig } from '@mcpkit/gateway';
import { createLinkedTransports, McpClient, type McpServer } from '@mcpkit/protocol';
import { countTokens } from 'gpt-tokenizer';

const TARGET = 0.25;
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const node = (script: string, ...args: string[]) => ({
  command: process.execPath,
  args: [join(ROOT, script), ...args, '--log-level', 'warn'],
});

/** The 8 tools of the design job, by backend and name. */
const DESIGN = [
  'projects/list_projects',
  'projects/get_project',
  'projects/list_blocks',
  'projects/get_block',
  'projects/update_block',
  'projects/get_design_system',
  'projects/update_design_tokens',
  'system-info/get_cpu_info',
];

async function listOf(server: McpServer): Promise<unknown[]> {
  const [clientSide, serverSide] = createLinkedTransports();
  server.connect(serverSide);
  const client = new McpClient({ timeoutMs: 30_000 });
  await client.connect(clientSide);
  try {
    return await client.listTools();
  } finally {
    await client.close();
  }
}

export async function contextBench(): Promise<boolean> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-context-'));
  const projects = (db: string) => ({
    ...node('apps/projects/dist/cli.js', '--user', 'demo@codefluss.local', '--seed-demo'),
    env: { DATABASE_URL: join(dir, db) },
  });
  const config = parseConfig({
    gateway: { servers: { design: { tools: DESIGN } } },
    mcpServers: {
      projects: projects('projects.db'),
      archive: projects('archive.db'),
      'system-info': { ...node('apps/system-info/dist/cli.js'), namespace: 'sysinfo' },
      everything: node('packages/node/dist/fixtures/everything.js'),
    },
  });
  const gateway = new Gateway(config, { events: EventLog.open(':memory:') });
  try {
    await gateway.start();
    const design = gateway.virtual.get('design');
    if (!design) throw new Error('the design server is missing');
    const all = await listOf(gateway.server);
    const chosen = await listOf(design.server);
    const tokens = (list: unknown[]) => countTokens(JSON.stringify({ tools: list }));
    const [allTokens, chosenTokens] = [tokens(all), tokens(chosen)];
    const ratio = chosenTokens / allTokens;
    const ok = chosen.length === DESIGN.length && all.length >= 60 && ratio <= TARGET;
    console.log(
      '\ncontext: tools/list in tokens (o200k_base), the whole gateway and one virtual server',
    );
    console.log(
      `  /mcp                      ${String(all.length).padStart(4)} tools  ${String(allTokens).padStart(7)} tokens`,
    );
    console.log(
      `  /servers/design/mcp       ${String(chosen.length).padStart(4)} tools  ${String(chosenTokens).padStart(7)} tokens`,
    );
    console.log(
      `  ratio design / all        ${(ratio * 100).toFixed(1).padStart(12)} %   target ≤ ${TARGET * 100} %  ${ok ? 'OK' : 'MISSED'}`,
    );
    return ok;
  } finally {
    await gateway.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
