// @module-tag process
/**
 * Two backends that offer the same resource template (two hosts of one server): the first keeps
 * it, the second's is advertised rewritten as its URIs are (`gateway://<ns>/` and the template's
 * literal parts percent-encoded), and a URI expanded from it is read from the second backend
 * under the URI the client asked for.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gatewayTemplate, gatewayUri, originalUri } from '../src/names.js';
import { backend, type InProcessGateway, startInProcess } from './helpers.js';

let gw: InProcessGateway;

beforeAll(async () => {
  gw = await startInProcess({ mcpServers: { one: backend('rich'), two: backend('rich') } });
}, 30_000);
afterAll(() => gw?.stop());

const rewritten = gatewayTemplate('two', 'fixture://items/{id}');
/** The templates the gateway lists. */
const listed = async () =>
  (
    ((await gw.client.request('resources/templates/list')).result?.resourceTemplates ?? []) as {
      uriTemplate: string;
    }[]
  ).map((t) => t.uriTemplate);

describe('a resource template two backends share', () => {
  it('is listed once as it is and once rewritten for the second backend', async () => {
    expect(rewritten).toBe('gateway://two/fixture%3A%2F%2Fitems%2F{id}');
    expect((await listed()).sort()).toEqual(['fixture://items/{id}', rewritten].sort());
  });

  it('reads what the rewritten template expands to from the second backend, under the URI asked for', async () => {
    // What a client expands from the rewritten template is the rewritten URI of the backend's.
    const uri = gatewayUri('two', 'fixture://items/7');
    expect(uri).toBe(rewritten.replace('{id}', '7'));
    expect(originalUri(uri, 'two')).toBe('fixture://items/7');
    const reply = await gw.client.request('resources/read', { uri });
    expect(reply.result?.contents).toEqual([expect.objectContaining({ uri, text: 'item 7' })]);
    // The second backend's: once it stops, its template goes and the read is refused; the
    // first backend's template still answers.
    await gw.gateway.backends.get('two')?.stop();
    expect(await listed()).toEqual(['fixture://items/{id}']);
    expect((await gw.client.request('resources/read', { uri })).error).toBeDefined();
    const first = await gw.client.request('resources/read', { uri: 'fixture://items/7' });
    expect(first.result?.contents).toEqual([expect.objectContaining({ text: 'item 7' })]);
  });
});
