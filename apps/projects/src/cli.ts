#!/usr/bin/env node
import { type FleetNotifier, shareNotifications } from '@mcpkit/fleet';
import { CliUsageError, type RunContext, runCli } from '@mcpkit/node';
import type { AuthInfo } from '@mcpkit/protocol';
import { authInfo, projectsOAuth } from './auth.js';
import { checkCommand, normalizeEmail, runCommand } from './commands.js';
import { openStore, StoreOpenError } from './db/store.js';
import type { Store } from './db/types.js';
import { DEMO_EMAIL, seedDemo } from './demo.js';
import { hashKey } from './keys.js';
import { createProjectsServer, PACKAGE_VERSION, projectsHttpOptions } from './server.js';

/**
 * The store, or a usage error (one line, exit 2) when it cannot be opened. Its warnings (a
 * database file made owner-only) go to the process's logger, on stderr.
 */
async function open(url: string | undefined, logger: RunContext['logger']): Promise<Store> {
  try {
    return await openStore(url, { warn: (message) => logger.warn(message) });
  } catch (err) {
    if (err instanceof StoreOpenError) throw new CliUsageError(err.message);
    throw err;
  }
}

const positiveInt = (value: unknown, flag: string): number => {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new CliUsageError(`${flag} must be a positive integer`);
  return n;
};

async function stdioIdentity(
  store: Store,
  apiKey: string | undefined,
  email: string | undefined,
): Promise<AuthInfo | undefined> {
  if (apiKey) {
    const found = await store.findApiKey(hashKey(apiKey));
    if (!found) throw new CliUsageError('CODEFLUSS_API_KEY is not a valid, unrevoked key');
    return authInfo(found.key, found.user);
  }
  if (email) {
    const user = await store.getUserByEmail(normalizeEmail(email));
    if (!user) throw new CliUsageError(`no user ${email}; create one with: users create ${email}`);
    // Local use: the machine's owner acts as the user with every scope.
    return {
      subject: `local:${user.email}`,
      scopes: new Set(['read', 'write']),
      data: { userId: user.id },
    };
  }
  return undefined;
}

process.exitCode = await runCli({
  command: 'mcp-projects',
  version: PACKAGE_VERSION,
  description: 'CODEFLUSS projects, blocks, assets and design tokens over MCP',
  options: [
    {
      name: 'database-url',
      env: 'DATABASE_URL',
      description:
        'postgres://… or a SQLite file path (default: ~/.local/share/mcpkit/projects.db)',
      type: 'string',
    },
    {
      name: 'user',
      env: 'CODEFLUSS_USER',
      description: 'stdio: act as this user (local use); keys: the key owner',
      type: 'string',
    },
    {
      name: 'api-key',
      env: 'CODEFLUSS_API_KEY',
      description: 'stdio: act as the user of this API key',
      type: 'string',
      placeholder: '',
    },
    {
      name: 'seed-demo',
      env: 'CODEFLUSS_SEED_DEMO',
      description: `create the demo user ${DEMO_EMAIL} and projects`,
      type: 'boolean',
    },
    {
      name: 'scopes',
      env: 'CODEFLUSS_KEY_SCOPES',
      description: 'keys create: read, write or read,write',
      type: 'string',
    },
    {
      name: 'name',
      env: 'CODEFLUSS_USER_NAME',
      description: 'users create: display name',
      type: 'string',
    },
    {
      name: 'rate-limit',
      env: 'CODEFLUSS_RATE_LIMIT',
      description: 'HTTP requests per key per window',
      type: 'string',
      default: '120',
    },
    {
      name: 'rate-window',
      env: 'CODEFLUSS_RATE_WINDOW',
      description: 'rate limit window in seconds',
      type: 'string',
      default: '60',
    },
  ],
  commands: [
    { usage: 'users create <email> [--name N]', description: 'create a user' },
    { usage: 'users list', description: 'list the users with their count of active keys' },
    {
      usage: 'keys create --user <email> [--scopes read,write]',
      description: 'create an API key (printed once)',
    },
    {
      usage: 'keys list [--user <email>]',
      description: 'list a user’s keys, or every user’s (prefixes only)',
    },
    { usage: 'keys revoke <prefix>', description: 'revoke keys by prefix' },
    {
      usage: 'tokens validate [<projectId>]',
      description:
        'check stored design tokens and modes against DTCG 2025.10; reports, never rewrites',
    },
  ],
  run: async (ctx) => {
    let store: Store;
    try {
      checkCommand(ctx.positionals);
      store = await open(ctx.values['database-url'] as string | undefined, ctx.logger);
    } catch (err) {
      if (!(err instanceof CliUsageError)) throw err;
      process.stderr.write(`mcp-projects: ${err.message}\n`);
      return 2;
    }
    try {
      return await runCommand(store, ctx);
    } catch (err) {
      if (err instanceof CliUsageError) {
        process.stderr.write(`mcp-projects: ${err.message}\n`);
        return 2;
      }
      throw err;
    } finally {
      await store.close();
    }
  },
  build: async ({ values, logger, state, requestState, tasks }) => {
    const points = positiveInt(values['rate-limit'], '--rate-limit');
    const window = positiveInt(values['rate-window'], '--rate-window');
    const store = await open(values['database-url'] as string | undefined, logger);
    logger.info({ database: store.kind }, 'database ready');
    if (values['seed-demo']) {
      const { user, created } = await seedDemo(store);
      logger.info({ user: user.email, created }, 'demo data');
    }
    const stdioAuth = await stdioIdentity(
      store,
      values['api-key'] as string | undefined,
      values.user as string | undefined,
    ).catch(async (err: unknown) => {
      await store.close();
      throw err;
    });
    // Over stdio every call needs an identity: without one the server could only fail each call
    // with -32001, so say what to set now (HTTP takes a key per request instead).
    if (!stdioAuth && values.transport === 'stdio') {
      await store.close();
      throw new CliUsageError(
        'over stdio, say who is calling: set CODEFLUSS_API_KEY (an API key) or --user <email> (local use)',
      );
    }
    // Fleet mode (--redis-url): changes travel over Redis pub/sub to every instance's
    // subscribers. Redis, not PostgreSQL LISTEN/NOTIFY: the fleet has Redis anyway (sessions,
    // rate limits), SQLite has no NOTIFY, and one pub/sub path serves every app the same way.
    let notifier: FleetNotifier | undefined;
    const server = createProjectsServer({
      store,
      logger,
      ...(requestState ? { requestState } : {}),
      ...(tasks ? { tasks } : {}),
      ...(state
        ? {
            announce: (uri: string, userId: string) =>
              void notifier?.resourceUpdated(uri, { userId }),
          }
        : {}),
    });
    if (state) notifier = await shareNotifications(server, state, { logger });
    const http = projectsHttpOptions(store, { points, windowSec: window });
    return {
      server,
      ...(stdioAuth ? { stdioAuth } : {}),
      http: {
        ...http,
        // Ready when the database answers (a query, not just an open pool).
        health: { checks: { database: () => store.getUser('readiness-probe') } },
      },
      oauth: projectsOAuth(store),
      close: async () => {
        await notifier?.close();
        await store.close();
      },
    };
  },
});
