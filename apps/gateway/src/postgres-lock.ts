/**
 * One transaction holding a PostgreSQL advisory lock: what the gateway's stores (events, sign-in,
 * pins) create their tables under — instances of a fleet starting together, one creates them and
 * the others wait and find them — and what the sign-in store runs its exclusive steps in.
 */
import type pg from 'pg';

/**
 * Run `fn` in a transaction that holds the advisory lock `mcpkit.<name>` (released at its end):
 * committed when `fn` resolves, rolled back when it throws.
 */
export async function lockedTransaction<T>(
  pool: pg.Pool,
  name: string,
  fn: (client: pg.PoolClient) => Promise<T>,
): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`mcpkit.${name}`]);
    const result = await fn(client);
    await client.query('COMMIT');
    return result;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => {});
    throw err;
  } finally {
    client.release();
  }
}
