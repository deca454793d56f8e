/**
 * Test helper: delete every key under a prefix, so test runs leave nothing behind in the shared
 * Redis (sessions and logs expire by themselves; secrets and fleet groups do not).
 */
import { Redis } from 'ioredis';

export async function dropPrefix(url: string, prefix: string): Promise<void> {
  const redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1 });
  try {
    await redis.connect();
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 500);
      cursor = next;
      if (keys.length > 0) await redis.del(...keys);
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
}
