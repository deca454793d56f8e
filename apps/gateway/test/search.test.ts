/**
 * The gateway's `search` tool over a real backend (the rich fixture): every kind of entry is
 * found, and a result shows what the backend listed of it (description, title).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backend, type InProcessGateway, startInProcess } from './helpers.js';

let gw: InProcessGateway;

beforeAll(async () => {
  gw = await startInProcess({ mcpServers: { rich: backend('rich') } });
});

afterAll(() => gw?.stop());

interface Found {
  kind: string;
  name: string;
  title?: string;
  description: string;
  backend: string;
}

async function search(query: string): Promise<Found[]> {
  const reply = await gw.client.call('search', { query });
  return (reply.result?.structuredContent as { results: Found[] } | undefined)?.results ?? [];
}

describe('the search tool', () => {
  it('finds a resource template by its URI and shows its title and description', async () => {
    expect(await search('fixture://items')).toEqual([
      {
        kind: 'resource_template',
        name: 'fixture://items/{id}',
        title: 'Fixture item',
        description: 'One numbered item of the rich fixture',
        backend: 'rich',
      },
    ]);
    // Found by the words of its description too, as tools are.
    expect((await search('numbered')).map((r) => r.name)).toEqual(['fixture://items/{id}']);
  });

  it('shows a prompt’s description and finds it by it', async () => {
    expect(await search('greets')).toEqual([
      {
        kind: 'prompt',
        name: 'rich__greet',
        description: 'Greets someone by name',
        backend: 'rich',
      },
    ]);
  });

  it('still finds tools and resources, and leaves out title when there is none', async () => {
    const echo = (await search('echo')).find((r) => r.name === 'rich__echo');
    expect(echo).toEqual({
      kind: 'tool',
      name: 'rich__echo',
      description: 'Returns its text',
      backend: 'rich',
    });
    expect(await search('fixture://readme')).toEqual([
      { kind: 'resource', name: 'fixture://readme', description: '', backend: 'rich' },
    ]);
  });
});
