/**
 * The outside services some tests need, how to find each on this machine, and how to get it.
 *
 * A test that needs one carries its name as a Vitest tag (`// @module-tag redis` at the top of a
 * file, or `{ tags: ['redis'] }` on a describe or test). When the service is missing the tag skips
 * those tests and the run ends with one summary naming what was skipped and how to get it; with
 * MCPKIT_REQUIRE_SERVICES=1 (`.ci/run` sets it) a missing service fails the run instead, so CI
 * coverage stays total. The variables below point the tests at a service somewhere else.
 */
import { spawnSync } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { Socket } from 'node:net';
import { tmpdir } from 'node:os';

/** The official conformance suite the e2e test and the conformance scripts run (Node 22 via npx). */
export const CONFORMANCE_SUITE = '@modelcontextprotocol/conformance@0.1.16';
/**
 * The first release of the suite that knows MCP 2026-07-28 (`--requirements 2026-07-28`), which
 * the conformance scripts also run.
 */
export const CONFORMANCE_MODERN_SUITE = '@modelcontextprotocol/conformance@0.2.0-alpha.12';
/** The Node the suite's CLI needs, as npx fetches it. */
export const CONFORMANCE_NODE = 'node@22';

/** `npx` arguments that run the suite's CLI from npm's cache only: nothing is fetched at test time. */
export const CONFORMANCE_NPX_OFFLINE = [
  '--offline',
  '-y',
  '-p',
  CONFORMANCE_NODE,
  '-p',
  CONFORMANCE_SUITE,
  'conformance',
];

/**
 * @typedef {'postgres' | 'redis' | 'haproxy' | 'chromium' | 'conformance' | 'systemd' | 'nspawn'} ServiceName
 *
 * @typedef {object} Service
 * @property {string} what  What the tests need, and where they look for it.
 * @property {string} get   How to get it (`.ci/run` does it all on Debian; CONTRIBUTING has the rest).
 * @property {string} [env] The variable that points the tests at it elsewhere.
 * @property {() => Promise<string | undefined>} probe  Resolves undefined when present, else why not.
 */

const redisUrl = () => process.env.REDIS_URL || 'redis://127.0.0.1:6379';
const postgresUrl = () =>
  process.env.PROJECTS_TEST_DATABASE_URL ||
  process.env.DATABASE_URL ||
  'postgres://postgres@127.0.0.1:5432/test';
const haproxyPath = () => process.env.HAPROXY || '/usr/sbin/haproxy';
const chromiumPath = () => process.env.CHROMIUM || '/usr/bin/chromium';

/** @type {Record<ServiceName, Service>} */
export const SERVICES = {
  postgres: {
    get what() {
      return `PostgreSQL at ${hostPort(postgresUrl(), 5432)} (database \`test\`)`;
    },
    get: 'apt-get install postgresql, or brew install postgresql@15',
    env: 'PROJECTS_TEST_DATABASE_URL (or DATABASE_URL)',
    probe: async () => {
      const url = postgresUrl();
      // A URL that is a file path is SQLite: nothing to reach.
      if (!/^postgres(ql)?:/.test(url)) return `not a postgres:// URL: ${url}`;
      return await reach(hostPort(url, 5432), undefined);
    },
  },
  redis: {
    get what() {
      return `Redis at ${hostPort(redisUrl(), 6379)}`;
    },
    get: 'apt-get install redis-server, or brew install redis',
    env: 'REDIS_URL',
    probe: async () => await reach(hostPort(redisUrl(), 6379), 'PING\r\n'),
  },
  haproxy: {
    get what() {
      return `HAProxy at ${haproxyPath()}`;
    },
    get: 'apt-get install haproxy, or brew install haproxy',
    env: 'HAPROXY',
    probe: async () => executable(haproxyPath()),
  },
  chromium: {
    get what() {
      return `Chromium at ${chromiumPath()}`;
    },
    get: 'apt-get install chromium, or any Chrome or Chromium binary',
    env: 'CHROMIUM',
    probe: async () => executable(chromiumPath()),
  },
  conformance: {
    what: `the MCP conformance suite (${CONFORMANCE_SUITE} with ${CONFORMANCE_NODE}) in npm's cache`,
    get: 'npx -y pnpm@10.34.8 fetch:conformance (needs the npm registry once)',
    probe: async () => {
      const run = spawnSync('npx', [...CONFORMANCE_NPX_OFFLINE, '--version'], {
        cwd: tmpdir(),
        encoding: 'utf8',
        timeout: 60_000,
        env: {
          ...process.env,
          npm_config_engine_strict: 'false',
          npm_config_update_notifier: 'false',
        },
      });
      if (run.status === 0) return undefined;
      return run.error ? run.error.message : 'not in npm cache';
    },
  },
  systemd: {
    what: 'systemd-analyze on PATH (checks the shipped unit)',
    get: 'apt-get install systemd',
    probe: async () =>
      spawnSync('systemd-analyze', ['--version']).status === 0 ? undefined : 'not on PATH',
  },
  nspawn: {
    what: `systemd-nspawn, root, and a Debian rootfs at ${nspawnRootfs()} (boots the shipped unit under real systemd)`,
    get: 'apt-get install systemd-container mmdebstrap && scripts/nspawn/rootfs.sh',
    env: 'MCPKIT_NSPAWN_ROOTFS',
    probe: async () => {
      if (process.getuid?.() !== 0) return 'not root (systemd-nspawn boots containers as root)';
      if (spawnSync('systemd-nspawn', ['--version']).status !== 0)
        return 'systemd-nspawn not on PATH';
      try {
        accessSync(`${nspawnRootfs()}/.mcpkit-rootfs`, constants.R_OK);
      } catch {
        return `no rootfs at ${nspawnRootfs()}`;
      }
      return undefined;
    },
  },
};

/** Where scripts/nspawn/rootfs.sh builds the deploy test's Debian tree. */
export function nspawnRootfs() {
  return process.env.MCPKIT_NSPAWN_ROOTFS || '/var/cache/mcpkit-nspawn/bookworm';
}

/** Every service name, in the order summaries list them. */
export const SERVICE_NAMES = /** @type {ServiceName[]} */ (Object.keys(SERVICES));

/** Whether MCPKIT_REQUIRE_SERVICES asks for every service (CI): a missing one fails the run. */
export function servicesRequired() {
  const v = process.env.MCPKIT_REQUIRE_SERVICES;
  return v !== undefined && v !== '' && v !== '0' && v !== 'false';
}

/**
 * Which of `names` are missing, and why. MCPKIT_TEST_SERVICES, when set (the root test command
 * probes once and passes it down, so it is also part of turbo's cache key), lists the services
 * present and is believed without probing again.
 *
 * @param {readonly ServiceName[]} names
 * @returns {Promise<Map<ServiceName, string>>}
 */
export async function missingServices(names) {
  const known = process.env.MCPKIT_TEST_SERVICES;
  /** @type {Map<ServiceName, string>} */
  const missing = new Map();
  if (known !== undefined) {
    const present = new Set(known.split(',').map((s) => s.trim()));
    for (const name of names) if (!present.has(name)) missing.set(name, 'not found');
    return missing;
  }
  const reasons = await Promise.all(names.map((name) => SERVICES[name].probe()));
  names.forEach((name, i) => {
    const reason = reasons[i];
    if (reason !== undefined) missing.set(name, reason);
  });
  return missing;
}

/** @param {string} url @param {number} port */
function hostPort(url, port) {
  try {
    const u = new URL(url);
    return `${u.hostname || '127.0.0.1'}:${u.port || port}`;
  } catch {
    return `127.0.0.1:${port}`;
  }
}

/**
 * Undefined when `hostPort` accepts a TCP connection (and answers `hello` when given), else why not.
 *
 * @param {string} where
 * @param {string | undefined} hello
 * @returns {Promise<string | undefined>}
 */
function reach(where, hello) {
  const at = where.lastIndexOf(':');
  const host = where.slice(0, at).replace(/^\[|\]$/g, '');
  const port = Number(where.slice(at + 1));
  return new Promise((resolve) => {
    const socket = new Socket();
    /** @param {string | undefined} reason */
    const done = (reason) => {
      socket.destroy();
      resolve(reason);
    };
    socket.setTimeout(5_000, () => done(`no answer from ${where} in 5 s`));
    socket.once('error', (e) =>
      done(`cannot connect (${/** @type {NodeJS.ErrnoException} */ (e).code ?? e.message})`),
    );
    socket.connect(port, host, () => {
      if (hello === undefined) return done(undefined);
      socket.write(hello);
      socket.once('data', () => done(undefined));
    });
  });
}

/** @param {string} path */
function executable(path) {
  try {
    accessSync(path, constants.X_OK);
    return undefined;
  } catch {
    return `${path} is missing or not executable`;
  }
}
