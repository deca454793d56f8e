// Apart from events.ts (which loads the sinks): the CLI's --help names the default directory.
import { createHash } from 'node:crypto';
import { homedir } from 'node:os';
import { basename, extname, isAbsolute, join, resolve } from 'node:path';

/**
 * The default event log of a gateway: `${XDG_STATE_HOME ?? ~/.local/state}/mcpkit/`, one file per
 * config so two gateways on one machine do not mix their events — `gateway-events.db` for the
 * built-in config, `gateway-events-<config name>-<hash of its absolute path>.db` for a file.
 */
export function defaultEventLogPath(configPath?: string): string {
  return defaultStatePath('gateway-events', configPath);
}

/**
 * A gateway's state file named `prefix` (the event log, the authorization server's store) in
 * `${XDG_STATE_HOME ?? ~/.local/state}/mcpkit/`: `<prefix>.db` for the built-in config,
 * `<prefix>-<config name>-<hash of its absolute path>.db` for a file.
 */
export function defaultStatePath(prefix: string, configPath?: string): string {
  const xdg = process.env.XDG_STATE_HOME;
  // The XDG spec: a relative (or empty) XDG_STATE_HOME is invalid and must be ignored.
  const base = xdg && isAbsolute(xdg) ? xdg : join(homedir(), '.local', 'state');
  if (configPath === undefined) return join(base, 'mcpkit', `${prefix}.db`);
  const absolute = resolve(configPath);
  const name = basename(absolute, extname(absolute)).replace(/[^A-Za-z0-9._-]+/g, '_') || 'config';
  const hash = createHash('sha256').update(absolute).digest('hex').slice(0, 8);
  return join(base, 'mcpkit', `${prefix}-${name}-${hash}.db`);
}
