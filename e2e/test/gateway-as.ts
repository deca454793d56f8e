/**
 * A gateway that is the authorization server its clients sign in to, for the e2e tests: one
 * person, alice, whose password hash `mcp-gateway hash-password` makes as an operator would.
 */
import { writeFileSync } from 'node:fs';
import { cliOf, freePort, type HttpApp, run, type Scratch, startHttp } from './helpers.js';

/** alice's password at every gateway this starts. */
export const ALICE_PASSWORD = 'a password for the e2e tests';

/**
 * Start the gateway with `gateway.authorization_server` (alice as its one user, its store in the
 * scratch directory) and `mcpServers`, on a port known before it listens (its issuer is its URL).
 */
export async function startSignInGateway(
  s: Scratch,
  mcpServers: Record<string, unknown> = {},
): Promise<HttpApp> {
  const hashed = await run(process.execPath, [cliOf('gateway'), 'hash-password'], {
    env: { PATH: process.env.PATH ?? '' },
    input: `${ALICE_PASSWORD}\n`,
    timeoutMs: 20_000,
  });
  if (hashed.code !== 0) throw new Error(`hash-password failed: ${hashed.stderr}`);
  const config = s.path('gateway.json');
  writeFileSync(
    config,
    JSON.stringify({
      gateway: {
        authorization_server: {
          users: [{ username: 'alice', password_hash: hashed.stdout.trim() }],
          store: s.path('auth.db'),
        },
      },
      mcpServers,
    }),
  );
  return startHttp(
    'gateway',
    [
      '--config',
      config,
      '--events',
      s.path('events.db'),
      '--port',
      String(await freePort()),
      '--log-level',
      'info',
    ],
    { PATH: process.env.PATH ?? '', HOME: s.path('home'), XDG_STATE_HOME: s.path('state') },
  );
}
