/**
 * export_project: a whole project as one document, page by page — a task for a 2026-07-28 client
 * that declared the tasks extension (its status counts the blocks), an ordinary call for anyone
 * else; a project too large for one result is refused, saying so.
 */
import { type AuthInfo, META, TASKS_EXTENSION } from '@mcpkit/protocol';
import { connectRaw, type RawPeer, removeTempDirs, waitFor } from '@mcpkit/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authInfo } from '../src/auth.js';
import type { Store } from '../src/db/types.js';
import { generateKey } from '../src/keys.js';
import { createProjectsServer } from '../src/server.js';
import { EXPORT_FORMAT } from '../src/tools/export-project.js';
import { tempStore } from './helpers.js';

const modern = (params: Record<string, unknown>, tasks = true) => ({
  ...params,
  _meta: {
    [META.protocolVersion]: '2026-07-28',
    [META.clientCapabilities]: tasks ? { extensions: { [TASKS_EXTENSION]: {} } } : {},
    [META.clientInfo]: { name: 'export-test', version: '1' },
  },
});

type Exported = {
  format: string;
  project: { id: string; name: string };
  blocks: { position: number; content: { n: number } }[];
  assets: { name: string }[];
  designTokens: Record<string, unknown>;
};
type Task = {
  resultType: string;
  taskId: string;
  status: string;
  statusMessage?: string;
  result?: { structuredContent: Exported; isError?: boolean; content: { text: string }[] };
};

let store: Store;
let auth: AuthInfo;
let projectId = '';
let peer: RawPeer;
const BLOCKS = 250;

beforeAll(async () => {
  ({ store } = await tempStore());
  const user = await store.createUser('exporter@example.com');
  const { prefix, hash } = generateKey();
  auth = authInfo(await store.createApiKey(user.id, prefix, hash, ['read', 'write']), user);
  const project = await store.createProject(user.id, { name: 'Export me' });
  projectId = project.id;
  for (let n = 0; n < BLOCKS; n++)
    await store.createBlock(projectId, { type: 'text', content: { n } });
  await store.createAsset(projectId, {
    name: 'logo.png',
    mimeType: 'image/png',
    sizeBytes: 10,
    url: 'https://example.com/logo.png',
  });
  peer = connectRaw(createProjectsServer({ store }), { auth });
}, 60_000);

afterAll(async () => {
  await peer?.close();
  await store?.close();
  removeTempDirs();
});

const ended = (t: Task) => ['completed', 'failed', 'cancelled'].includes(t.status);

describe('export_project', () => {
  it('exports every block in order, the assets and the tokens — as a task for a client that can', async () => {
    const created = await peer.result<Task>(
      'tools/call',
      modern({ name: 'export_project', arguments: { projectId } }),
    );
    expect(created.resultType).toBe('task');
    const done = await waitFor(
      'exported',
      async () => {
        const task = await peer.result<Task>('tasks/get', modern({ taskId: created.taskId }));
        return ended(task) ? task : undefined;
      },
      60_000,
      20,
    );
    expect(done.status).toBe('completed');
    expect(done.statusMessage).toBe(`exported ${BLOCKS} of ${BLOCKS} blocks`);
    const doc = done.result?.structuredContent as Exported;
    expect(doc.format).toBe(EXPORT_FORMAT);
    expect(doc.project).toMatchObject({ id: projectId, name: 'Export me' });
    expect(doc.blocks.map((b) => b.content.n)).toEqual(Array.from({ length: BLOCKS }, (_, n) => n));
    expect(doc.assets.map((a) => a.name)).toEqual(['logo.png']);
    expect(Object.keys(doc.designTokens).length).toBeGreaterThan(0);
  }, 60_000);

  it('is an ordinary call for a client without tasks, with the same document', async () => {
    const plain = await peer.result<{ resultType: string; structuredContent: Exported }>(
      'tools/call',
      modern({ name: 'export_project', arguments: { projectId } }, false),
    );
    expect(plain.resultType).toBe('complete');
    expect(plain.structuredContent.blocks).toHaveLength(BLOCKS);
  });

  it('refuses a project whose blocks pass 32 MiB as a tool error the model can read', async () => {
    const big = await store.createProject((auth.data as { userId: string }).userId, {
      name: 'Too big',
    });
    // 130 blocks near the 256 KiB content limit: just over 32 MiB.
    const content = { text: 'x'.repeat(256 * 1024 - 64) };
    for (let n = 0; n < 130; n++) await store.createBlock(big.id, { type: 'text', content });
    const reply = await peer.result<{ isError: boolean; content: { text: string }[] }>(
      'tools/call',
      modern({ name: 'export_project', arguments: { projectId: big.id } }, false),
    );
    expect(reply.isError).toBe(true);
    expect(reply.content[0]?.text).toMatch(/too large to export/);
  }, 60_000);
});
