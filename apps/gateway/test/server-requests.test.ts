// @module-tag process
/**
 * A backend's requests to the client (sampling, elicitation) during a call, through the gateway,
 * answered by the official SDK client — over a 2025 link (the backend sends the gateway a
 * request) and a 2026-07-28 one (the backend answers `input_required`).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { removeTempDirs, tempDir } from '@mcpkit/testing';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI, EVERYTHING } from './helpers.js';

afterAll(removeTempDirs);

function connect(
  protocol: 'legacy' | 'auto',
  capabilities: Record<string, unknown>,
  sampleDelayMs = 0,
) {
  const dir = tempDir('gw-requests-');
  const config = join(dir, 'gateway.json');
  writeFileSync(
    config,
    JSON.stringify({
      mcpServers: {
        everything: {
          command: process.execPath,
          args: [EVERYTHING, '--log-level', 'warn'],
          protocol,
        },
      },
    }),
  );
  const client = new Client({ name: 'requests-e2e', version: '1.0.0' }, { capabilities });
  if (capabilities.sampling) {
    client.setRequestHandler(CreateMessageRequestSchema, async (request) => {
      await new Promise((r) => setTimeout(r, sampleDelayMs));
      const first = request.params.messages[0]?.content as { text?: string } | undefined;
      return {
        model: 'test-model',
        role: 'assistant',
        content: { type: 'text', text: `echo: ${first?.text}` },
      };
    });
  }
  if (capabilities.elicitation) {
    client.setRequestHandler(ElicitRequestSchema, async () => ({
      action: 'accept',
      content: { username: 'ada', email: 'ada@example.com' },
    }));
  }
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI, '--config', config, '--events', join(dir, 'events.db'), '--log-level', 'warn'],
    stderr: 'pipe',
  });
  return { client, transport };
}

describe.each(['legacy', 'auto'] as const)(
  'sampling and elicitation through the gateway (backend link: %s)',
  (protocol) => {
    const { client, transport } = connect(protocol, { sampling: {}, elicitation: {} }, 100);
    beforeAll(async () => {
      await client.connect(transport);
    });
    afterAll(async () => {
      await client.close();
    });

    it("routes a backend's sampling request to the client whose call is in flight", async () => {
      const result = await client.callTool({
        name: 'everything__test_sampling',
        arguments: { prompt: 'hello' },
      });
      expect(result.content).toEqual([{ type: 'text', text: 'LLM response: echo: hello' }]);
    });

    it('routes elicitation the same way', async () => {
      const result = await client.callTool({
        name: 'everything__test_elicitation',
        arguments: { message: 'who?' },
      });
      expect(JSON.stringify(result.content)).toContain('ada@example.com');
    });

    // Each link era has its own rule for concurrent asks; neither test is registered for the other.
    const legacyOnly = protocol === 'legacy' ? it : () => {};
    const modernOnly = protocol === 'auto' ? it : () => {};
    legacyOnly(
      'refuses rather than guesses when another call in flight on that backend could be the asker',
      async () => {
        // A call that asks nothing, in flight first (the gateway forwards in the order it reads):
        // the sampling call's ask could be either's, as far as a 2025 link can tell.
        const controller = new AbortController();
        const waiting = client
          .callTool({ name: 'everything__wait_for_cancel', arguments: {} }, undefined, {
            signal: controller.signal,
          })
          .catch(() => 'cancelled');
        await expect(
          client.callTool({ name: 'everything__test_sampling', arguments: { prompt: 'a' } }),
        ).rejects.toThrow(/cannot tell which client/);
        controller.abort();
        await waiting;
      },
    );

    modernOnly(
      "routes each call's ask to its own client when several are in flight (a modern link says whose it is)",
      async () => {
        const results = await Promise.all([
          client.callTool({ name: 'everything__test_sampling', arguments: { prompt: 'a' } }),
          client.callTool({ name: 'everything__test_sampling', arguments: { prompt: 'b' } }),
        ]);
        expect(results.map((r) => r.content)).toEqual([
          [{ type: 'text', text: 'LLM response: echo: a' }],
          [{ type: 'text', text: 'LLM response: echo: b' }],
        ]);
      },
    );
  },
);

describe.each(['legacy', 'auto'] as const)(
  'a client without the capability (backend link: %s)',
  (protocol) => {
    const { client, transport } = connect(protocol, {});
    beforeAll(async () => {
      await client.connect(transport);
    });
    afterAll(async () => {
      await client.close();
    });

    it('gets the backend tool’s error, not a hang', async () => {
      await expect(
        client.callTool({ name: 'everything__test_sampling', arguments: { prompt: 'x' } }),
      ).rejects.toThrow(/does not support sampling/);
    });
  },
);
