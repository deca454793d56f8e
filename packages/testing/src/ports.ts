import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A TCP port free on 127.0.0.1 a moment ago, for a server that cannot be given port 0 (one whose
 * URL must be known before it listens: an OAuth issuer, a HAProxy backend, a systemd unit).
 */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}
