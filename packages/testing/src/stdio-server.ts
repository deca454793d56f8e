import {
  McpClient,
  type McpClientOptions,
  type ProcessExit,
  type StdioClientOptions,
  StdioClientTransport,
} from '@mcpkit/protocol';

/** How {@link spawnServer} starts the server (`StdioClientTransport`'s options) and its client. */
export interface SpawnServerOptions extends Omit<StdioClientOptions, 'command' | 'args'> {
  /** How the client introduces itself, which server requests it answers, its deadlines. */
  client?: McpClientOptions;
}

/** A server process with an initialized McpClient on its stdio, as {@link spawnServer} made it. */
export interface SpawnedServer {
  /** The initialized client. */
  readonly client: McpClient;
  /** The child behind the client: `pid`, `exited`, `stderrTail`. */
  readonly transport: StdioClientTransport;
  /** The server's process id (undefined if it could not be started). */
  readonly pid: number | undefined;
  /** Resolves when the process has exited (or failed to start). */
  readonly exited: Promise<ProcessExit>;
  /** The last 8 KiB the server wrote to stderr. */
  stderr(): string;
  /** Close the client (EOF, then SIGTERM, then SIGKILL to its group); resolves with the exit. */
  close(): Promise<ProcessExit>;
}

/**
 * Start an MCP server as a child process and connect an `McpClient` to it over stdio
 * (`StdioClientTransport`: a minimal environment plus `options.env`, its own process group,
 * stderr captured). Resolves once initialized; when the server does not get that far, rejects
 * with the reason and the end of its stderr.
 *
 * @example
 * ```ts
 * const server = await spawnServer(process.execPath, ['dist/cli.js', '--log-level', 'warn']);
 * const tools = await server.client.listTools();
 * expect((await server.close()).code).toBe(0);
 * ```
 */
export async function spawnServer(
  command: string,
  args: readonly string[] = [],
  options: SpawnServerOptions = {},
): Promise<SpawnedServer> {
  const { client: clientOptions, ...stdio } = options;
  const transport = new StdioClientTransport({ ...stdio, command, args });
  let client: McpClient;
  try {
    client = await McpClient.connect(transport, clientOptions);
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    throw new Error(
      `${command} ${args.join(' ')} did not initialize: ${reason}\n--- stderr ---\n${transport.stderrTail}`,
      { cause: err },
    );
  }
  return {
    client,
    transport,
    get pid() {
      return transport.pid;
    },
    exited: transport.exited,
    stderr: () => transport.stderrTail,
    async close() {
      await client.close();
      return transport.exited;
    },
  };
}
