/**
 * The virtual servers' HTTP endpoints: `/servers/<name>/mcp` for each, and at the gateway's own
 * endpoint (`/mcp`) the default server of a person whose subject or group one names.
 */
import type { HttpMounts } from '@mcpkit/node';
import type { Gateway } from '../gateway.js';

/** Where virtual servers' endpoints are: `/servers/<name>/mcp`. */
export const SERVERS_PATH = '/servers/';
const ENDPOINT = '/mcp';

/** The virtual server's name in `path`, if `path` is a virtual server's endpoint. */
function nameIn(path: string): string | undefined {
  if (!path.startsWith(SERVERS_PATH) || !path.endsWith(ENDPOINT)) return undefined;
  const name = path.slice(SERVERS_PATH.length, -ENDPOINT.length);
  return name.length > 0 && !name.includes('/') ? name : undefined;
}

/** The gateway's virtual servers as mounts of its HTTP host (read per request: reloads apply). */
export function virtualMounts(gateway: Gateway): HttpMounts {
  return {
    serves: (path) => {
      const name = nameIn(path);
      return name !== undefined && gateway.virtual.get(name) !== undefined;
    },
    select: (path, auth) => {
      if (path === ENDPOINT) return gateway.virtual.defaultFor(auth)?.server;
      const name = nameIn(path);
      return name === undefined ? undefined : gateway.virtual.get(name)?.server;
    },
  };
}
