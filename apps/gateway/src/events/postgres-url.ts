// Apart from postgres-sink.ts: telling a PostgreSQL target from a file needs no `pg` (loaded only
// for such a target).

/** Where an error may show a PostgreSQL URL: host, port and database, never the password. */
export function describePostgresUrl(url: string): string {
  try {
    const u = new URL(url);
    return `postgres://${u.hostname || 'localhost'}:${u.port || '5432'}${u.pathname}`;
  } catch {
    return 'postgres://(unparsable URL)';
  }
}

/** Whether a `--events` value names PostgreSQL rather than a SQLite file. */
export function isPostgresTarget(target: string): boolean {
  return /^postgres(ql)?:\/\//i.test(target);
}
