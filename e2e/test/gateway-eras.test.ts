// @module-tag process
/**
 * The gateway between the two MCP eras, over Streamable HTTP: 2025 clients (initialize, a
 * session) and 2026-07-28 clients (per-request `_meta`, `server/discover`, `input_required`)
 * in front of backends of either era — server-everything (2025 only), SDK v2 servers that refuse
 * 2025 (`strict` over stdio, `strict_http` over HTTP), one that serves both (`dual`, linked
 * modern by `auto`, and `dual_legacy`, the same server linked with `protocol: 'legacy'`) and our
 * system-info app. What crosses the gateway: the era each link negotiated (gateway_status), tool
 * calls, sampling and elicitation asked by a backend of one era and answered by a client of the
 * other, and change notifications (tools list_changed, resource updates) to subscribed clients.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { killGroup, waitFor } from '@mcpkit/testing';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as HttpTransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ResourceUpdatedNotificationSchema,
  ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  appEnv,
  backendPids,
  checkSimpleResult,
  cliOf,
  E2E,
  type HttpApp,
  isAlive,
  killAll,
  LEGACY_VERSIONS,
  type Scratch,
  scratch,
  startHttp,
  startHttpServer,
  waitGone,
  within,
} from './helpers.js';

const REQUEST = { timeout: 20_000 };
const FIXTURE = join(E2E, 'fixtures', 'sdk-v2-eras-server.mjs');
const EVERYTHING_PACKAGE = createRequire(import.meta.url).resolve(
  '@modelcontextprotocol/server-everything/package.json',
);
const EVERYTHING = join(
  dirname(EVERYTHING_PACKAGE),
  (JSON.parse(readFileSync(EVERYTHING_PACKAGE, 'utf8')) as { bin: Record<string, string> }).bin[
    'mcp-server-everything'
  ] as string,
);

afterAll(killAll);

// ---------------------------------------------------------------------------------------------
// The clients, one interface over SDK v1 and SDK v2.

type ClientKind = 'SDK v1' | 'SDK v2 pinned' | 'SDK v2 auto';
const CLIENTS: readonly ClientKind[] = ['SDK v1', 'SDK v2 pinned', 'SDK v2 auto'];

/** What each client's user and model answer when a backend asks through the gateway. */
const ANSWERS: Record<ClientKind, { name: string; model: string }> = {
  'SDK v1': { name: 'Ada Lovelace', model: 'the 2025 model' },
  'SDK v2 pinned': { name: 'Grace Hopper', model: 'the 2026 model' },
  'SDK v2 auto': { name: 'Edsger Dijkstra', model: 'the auto model' },
};

interface ToolResult {
  content?: unknown;
  structuredContent?: unknown;
  isError?: boolean;
}

interface Peer {
  /** The era it speaks to the gateway. */
  readonly era: string | undefined;
  /** What its handlers were asked: each sampling prompt, each elicitation message. */
  readonly asked: string[];
  /** `notifications/tools/list_changed` heard (SDK v1). */
  listChanged: number;
  /** Tool lists its `listChanged` handler was given (SDK v2). */
  readonly refreshed: string[][];
  /** URIs of `notifications/resources/updated` heard. */
  readonly updated: string[];
  /** Whether it can hear notifications the gateway sends unasked (GET stream, listen). */
  listening(): boolean;
  tools(): Promise<string[]>;
  resources(): Promise<string[]>;
  call(name: string, args?: Record<string, unknown>): Promise<ToolResult>;
  /** resources/subscribe on 2025, a `subscriptions/listen` for the URI on 2026-07-28. */
  subscribe(uri: string): Promise<void>;
  close(): Promise<void>;
}

/** The first text block of a sampling request's first message. */
function promptOf(messages: readonly { content: unknown }[]): string {
  const content = messages[0]?.content;
  const block = (Array.isArray(content) ? content[0] : content) as { text?: unknown } | undefined;
  return typeof block?.text === 'string' ? block.text : '';
}

const text = (result: ToolResult): string =>
  ((result.content ?? []) as { text?: string }[]).map((c) => c.text ?? '').join('\n');

const opened: Peer[] = [];
afterEach(async () => {
  await Promise.all(
    opened.splice(0).map((p) => within(p.close(), 10_000, 'close').catch(() => {})),
  );
});

async function connectV1(url: string, answers: { name: string; model: string }): Promise<Peer> {
  const client = new ClientV1(
    { name: 'mcpkit-e2e-eras-v1', version: '0.0.0' },
    { capabilities: { sampling: {}, elicitation: {} } },
  );
  let stream = false;
  const peer: Peer = {
    era: 'legacy',
    asked: [],
    listChanged: 0,
    refreshed: [],
    updated: [],
    listening: () => stream,
    tools: async () => (await client.listTools({}, REQUEST)).tools.map((t) => t.name),
    resources: async () => (await client.listResources({}, REQUEST)).resources.map((r) => r.uri),
    call: async (name, args = {}) =>
      (await client.callTool({ name, arguments: args }, undefined, REQUEST)) as ToolResult,
    subscribe: async (uri) => {
      await client.subscribeResource({ uri }, REQUEST);
    },
    close: () => client.close(),
  };
  client.setRequestHandler(CreateMessageRequestSchema, async (request) => {
    peer.asked.push(promptOf(request.params.messages));
    return { model: 'e2e', role: 'assistant', content: { type: 'text', text: answers.model } };
  });
  client.setRequestHandler(ElicitRequestSchema, async (request) => {
    peer.asked.push(request.params.message);
    return { action: 'accept', content: { name: answers.name } };
  });
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
    peer.listChanged++;
  });
  client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => {
    peer.updated.push(n.params.uri);
  });
  // The gateway sends what nobody asked for on the session's GET stream: it is there once the
  // GET is answered (the gateway sends its headers at once).
  const recording = async (input: string | URL, init?: RequestInit): Promise<Response> => {
    const response = await fetch(input, init);
    if (init?.method === 'GET' && response.ok) stream = true;
    return response;
  };
  await within(
    client.connect(new HttpTransportV1(new URL(url), { fetch: recording }), REQUEST),
    30_000,
    'SDK v1 connect',
  );
  return peer;
}

async function connectV2(url: string, kind: ClientKind): Promise<Peer> {
  const answers = ANSWERS[kind];
  const refreshed: string[][] = [];
  const client = new Client(
    { name: 'mcpkit-e2e-eras-v2', version: '0.0.0' },
    {
      versionNegotiation: {
        mode: kind === 'SDK v2 pinned' ? { pin: '2026-07-28' } : 'auto',
      },
      capabilities: { sampling: {}, elicitation: {} },
      listChanged: {
        tools: {
          onChanged: (error, tools) => {
            if (!error && tools) refreshed.push(tools.map((t) => t.name));
          },
        },
      },
    },
  );
  const asked: string[] = [];
  client.setRequestHandler('sampling/createMessage', async (request) => {
    asked.push(promptOf(request.params.messages));
    return {
      model: 'e2e',
      role: 'assistant' as const,
      content: { type: 'text' as const, text: answers.model },
    };
  });
  client.setRequestHandler('elicitation/create', async (request) => {
    asked.push(request.params.message);
    return { action: 'accept' as const, content: { name: answers.name } };
  });
  const updated: string[] = [];
  client.setNotificationHandler('notifications/resources/updated', (n) => {
    updated.push(n.params.uri);
  });
  await within(
    client.connect(new StreamableHTTPClientTransport(new URL(url)), REQUEST),
    30_000,
    `${kind} connect`,
  );
  return {
    era: client.getProtocolEra(),
    asked,
    listChanged: 0,
    refreshed,
    updated,
    // The subscription the client opens for its listChanged handler, once acknowledged.
    listening: () => client.autoOpenedSubscription !== undefined,
    tools: async () => (await client.listTools({}, REQUEST)).tools.map((t) => t.name),
    resources: async () => (await client.listResources({}, REQUEST)).resources.map((r) => r.uri),
    call: (name, args = {}) => client.callTool({ name, arguments: args }, REQUEST),
    subscribe: async (uri) => {
      await client.listen({ resourceSubscriptions: [uri] }, REQUEST);
    },
    close: () => client.close(),
  };
}

// ---------------------------------------------------------------------------------------------
// The backends

const BACKENDS = [
  'everything',
  'strict',
  'strict_http',
  'dual',
  'dual_legacy',
  'system-info',
] as const;
type BackendName = (typeof BACKENDS)[number];

/** The era and `protocol` setting gateway_status must show for each backend's link. */
const ERAS: Record<BackendName, { setting: string; era: 'legacy' | 'modern' }> = {
  everything: { setting: 'auto', era: 'legacy' },
  strict: { setting: 'auto', era: 'modern' },
  strict_http: { setting: 'auto', era: 'modern' },
  dual: { setting: 'auto', era: 'modern' },
  dual_legacy: { setting: 'legacy', era: 'legacy' },
  'system-info': { setting: 'auto', era: 'modern' },
};

/** A cheap tool of each backend (advertised name), its arguments and what it must answer. */
const SIMPLE: Record<BackendName, [string, Record<string, unknown>, (r: ToolResult) => void]> = {
  everything: [
    'everything__echo',
    { message: 'über ✓' },
    (r) => expect(text(r)).toBe('Echo: über ✓'),
  ],
  strict: ['strict__echo', { text: 'strict ✓' }, (r) => expect(text(r)).toBe('strict ✓')],
  strict_http: ['strict_http__echo', { text: 'http ✓' }, (r) => expect(text(r)).toBe('http ✓')],
  dual: ['dual__echo', { text: 'dual ✓' }, (r) => expect(text(r)).toBe('dual ✓')],
  dual_legacy: ['dual_legacy__echo', { text: 'old ✓' }, (r) => expect(text(r)).toBe('old ✓')],
  'system-info': [
    'sysinfo__get_uptime',
    {},
    (r) => expect(checkSimpleResult('system-info', r.structuredContent)).toBeUndefined(),
  ],
};

interface Ask {
  tool: string;
  args: Record<string, unknown>;
  /** What the client's handler must have been asked. */
  asked: string;
  /** What the result must contain, given the client's answers. */
  answer: (a: { name: string; model: string }) => string;
}

const PROMPT = 'what is the answer?';
/** Tools that ask the client for input mid-call: sampling, then elicitation. */
const FIXTURE_ASKS: [Ask, Ask] = [
  {
    tool: 'ask_model',
    args: { prompt: PROMPT },
    asked: PROMPT,
    answer: (a) => `model said: ${a.model}`,
  },
  { tool: 'confirm', args: {}, asked: 'Who is asking?', answer: (a) => `confirmed: ${a.name}` },
];
const ASKS: Partial<Record<BackendName, [Ask, Ask]>> = {
  everything: [
    {
      tool: 'trigger-sampling-request',
      args: { prompt: PROMPT },
      asked: `Resource trigger-sampling-request context: ${PROMPT}`,
      answer: (a) => `"text": "${a.model}"`,
    },
    {
      tool: 'trigger-elicitation-request',
      args: {},
      asked: 'Please provide inputs for the following fields:',
      answer: (a) => `- Name: ${a.name}`,
    },
  ],
  dual_legacy: FIXTURE_ASKS,
  strict: FIXTURE_ASKS,
  strict_http: FIXTURE_ASKS,
};

// ---------------------------------------------------------------------------------------------

describe('the gateway between MCP 2025 and 2026-07-28 clients and backends', () => {
  let s: Scratch;
  let strictHttp: HttpApp;
  let gateway: HttpApp;
  let pids: number[] = [];
  const connect = (kind: ClientKind): Promise<Peer> => {
    const peer =
      kind === 'SDK v1'
        ? connectV1(gateway.mcpUrl, ANSWERS[kind])
        : connectV2(gateway.mcpUrl, kind);
    return peer.then((p) => {
      opened.push(p);
      return p;
    });
  };
  const status = async (peer: Peer) =>
    (await peer.call('gateway_status')).structuredContent as {
      backends: Record<string, { status: string; protocol: Record<string, unknown> }>;
    };

  beforeAll(async () => {
    s = scratch('gateway-eras');
    const env = appEnv(s);
    strictHttp = await startHttpServer({
      label: 'strict_http',
      command: process.execPath,
      args: [FIXTURE, 'http', 'reject'],
      env,
    });
    const node = process.execPath;
    const config = s.path('gateway.json');
    writeFileSync(
      config,
      JSON.stringify({
        mcpServers: {
          everything: { command: node, args: [EVERYTHING, 'stdio'] },
          strict: { command: node, args: [FIXTURE, 'stdio', 'reject'] },
          strict_http: { url: strictHttp.mcpUrl },
          dual: { command: node, args: [FIXTURE, 'stdio', 'dual'] },
          dual_legacy: { command: node, args: [FIXTURE, 'stdio', 'dual'], protocol: 'legacy' },
          // As the gateway's default config has it.
          'system-info': {
            command: node,
            args: [cliOf('system-info'), '--log-level', 'warn'],
            namespace: 'sysinfo',
          },
        },
      }),
    );
    gateway = await startHttp(
      'gateway',
      ['--config', config, '--events', s.path('events.db'), '--log-level', 'info'],
      env,
    );
    // Every backend running, server-everything's tools for clients that can sample and elicit
    // (it adds them after initialize, with list_changed) among the gateway's.
    const observer = await connect('SDK v2 pinned');
    await waitFor(
      'every backend running',
      async () => {
        const { backends } = await status(observer);
        return BACKENDS.every((b) => backends[b]?.status === 'running');
      },
      20_000,
      100,
    );
    await waitFor(
      "server-everything's sampling and elicitation tools",
      async () => {
        const tools = await observer.tools();
        return (
          tools.includes('everything__trigger-sampling-request') &&
          tools.includes('everything__trigger-elicitation-request')
        );
      },
      30_000,
      100,
    );
    pids = backendPids(await status(observer));
    await observer.close();
    opened.splice(0);
  }, 50_000);

  afterAll(async () => {
    await gateway?.stop();
    await strictHttp?.stop();
    // The backends lead process groups of their own: a gateway killed hard leaves them behind.
    for (const pid of pids) if (isAlive(pid)) killGroup(pid);
    s?.cleanup();
  });

  it('gateway_status shows the era each backend link negotiated under its protocol setting', async () => {
    const peer = await connect('SDK v2 pinned');
    const { backends } = await status(peer);
    for (const name of BACKENDS) {
      const { setting, era } = ERAS[name];
      expect(backends[name], name).toMatchObject({ status: 'running', protocol: { setting, era } });
      const version = backends[name]?.protocol.version;
      if (era === 'modern') expect(version, name).toBe('2026-07-28');
      else expect(LEGACY_VERSIONS, name).toContain(version);
    }
  });

  it.each(CLIENTS)(
    '%s lists the tools of every backend and calls a simple one of each',
    async (kind) => {
      const peer = await connect(kind);
      expect(peer.era).toBe(kind === 'SDK v1' ? 'legacy' : 'modern');
      const tools = await peer.tools();
      expect(tools).toEqual(
        expect.arrayContaining(['gateway_status', ...BACKENDS.map((b) => SIMPLE[b][0])]),
      );
      for (const backend of BACKENDS) {
        const [tool, args, check] = SIMPLE[backend];
        const result = await within(peer.call(tool, args), 25_000, tool);
        expect(result.isError ?? false, tool).toBe(false);
        check(result);
      }
    },
  );

  const INPUT_CELLS = (['SDK v1', 'SDK v2 pinned'] as const).flatMap((kind) =>
    (Object.keys(ASKS) as BackendName[]).map(
      (backend) => [kind, backend, ERAS[backend].era] as const,
    ),
  );
  it.each(INPUT_CELLS)(
    '%s × %s (%s link): the backend samples and elicits, the client answers',
    async (kind, backend) => {
      const peer = await connect(kind);
      for (const ask of ASKS[backend] ?? []) {
        const tool = `${backend}__${ask.tool}`;
        const result = await within(peer.call(tool, ask.args), 25_000, tool);
        expect(result.isError ?? false, tool).toBe(false);
        expect(text(result), tool).toContain(ask.answer(ANSWERS[kind]));
        expect(peer.asked, tool).toContain(ask.asked);
      }
      expect(peer.asked).toHaveLength(2);
    },
  );

  const GROWING = (['strict', 'strict_http', 'dual', 'dual_legacy'] as const).map(
    (backend) => [backend, ERAS[backend].era] as const,
  );
  it.each(GROWING)(
    '%s (%s link) adds a tool at run time: an SDK v1 client hears list_changed, an SDK v2 one relists',
    async (backend) => {
      const legacy = await connect('SDK v1');
      const modern = await connect('SDK v2 pinned');
      await waitFor('SDK v1: its GET stream', () => legacy.listening());
      await waitFor('SDK v2: its listen subscription', () => modern.listening());
      const name = `late_${backend}`;
      const advertised = `${backend}__${name}`;
      expect(await legacy.tools()).not.toContain(advertised);

      await legacy.call(`${backend}__add_tool`, { name });
      await waitFor('SDK v1: notifications/tools/list_changed', () => legacy.listChanged > 0);
      await waitFor('SDK v1: the new tool listed', async () =>
        (await legacy.tools()).includes(advertised),
      );
      await waitFor('SDK v2: the refreshed list with the new tool', () =>
        modern.refreshed.some((names) => names.includes(advertised)),
      );
      expect(text(await modern.call(advertised))).toBe(`I am ${name}`);
      expect(text(await legacy.call(advertised))).toBe(`I am ${name}`);
      // One change, one notification — not one per tool the gateway re-registered.
      expect(legacy.listChanged).toBe(1);
    },
  );

  it("server-everything's resource updates reach a subscribed client of each era", async () => {
    const legacy = await connect('SDK v1');
    const modern = await connect('SDK v2 pinned');
    await waitFor('SDK v1: its GET stream', () => legacy.listening());
    const uri = (await legacy.resources()).find((u) => u.startsWith('demo://resource/'));
    expect(uri).toBeDefined();
    await legacy.subscribe(uri as string);
    await modern.subscribe(uri as string);
    // It sends an update for every subscribed resource at once, then every 5 s until toggled off.
    await legacy.call('everything__toggle-subscriber-updates');
    try {
      await waitFor('SDK v1: notifications/resources/updated', () =>
        legacy.updated.includes(uri as string),
      );
      await waitFor('SDK v2: notifications/resources/updated', () =>
        modern.updated.includes(uri as string),
      );
    } finally {
      await legacy.call('everything__toggle-subscriber-updates');
    }
  });

  it('stopping the gateway ends every backend it started', async () => {
    expect(pids).toHaveLength(BACKENDS.length - 1); // strict_http is no child of the gateway
    await gateway.stop();
    expect(await waitGone(pids)).toEqual([]);
  });
});
