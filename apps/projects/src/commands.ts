import { CliUsageError, type RunContext } from '@mcpkit/node';
import { type ApiKey, ConflictError, type Scope, type Store } from './db/types.js';
import { generateKey, SHOWN_CHARS } from './keys.js';
import { tokenProblems } from './tools/tokens-common.js';

/** Emails compare case-insensitively: stored and looked up in lower case. */
export const normalizeEmail = (email: string) => email.trim().toLowerCase();

const SCOPES: readonly Scope[] = ['read', 'write'];
const EMAIL = /^[^\s@]+@[^\s@]+$/;

export function parseKeyScopes(list: string | undefined): Scope[] {
  const scopes = (list ?? 'read')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  for (const s of scopes) {
    if (!(SCOPES as readonly string[]).includes(s))
      throw new CliUsageError(`unknown scope '${s}'; scopes: read, write`);
  }
  if (scopes.length === 0) throw new CliUsageError('--scopes needs at least one of read, write');
  return [...new Set(scopes)] as Scope[];
}

async function userByEmail(store: Store, email: unknown) {
  if (typeof email !== 'string' || !EMAIL.test(email))
    throw new CliUsageError('--user <email> is required');
  const user = await store.getUserByEmail(normalizeEmail(email));
  if (!user) throw new CliUsageError(`no user ${email}; create one with: users create ${email}`);
  return user;
}

/** The subcommands of each command group, in the order `--help` lists them. */
export const SUBCOMMANDS: Readonly<Record<string, readonly string[]>> = Object.freeze({
  users: Object.freeze(['create', 'list']),
  keys: Object.freeze(['create', 'list', 'revoke']),
  tokens: Object.freeze(['validate']),
});

/**
 * Refuses, with a usage error that names the choices, a command line whose group or subcommand
 * is missing or unknown (`users`, `keys frob`). The CLI asks this before it opens the database,
 * so a mistyped command neither creates a database file nor leaves the user guessing.
 */
export function checkCommand(positionals: readonly string[]): void {
  const [group, action] = positionals;
  const actions = group !== undefined && Object.hasOwn(SUBCOMMANDS, group) && SUBCOMMANDS[group];
  if (!actions) {
    throw new CliUsageError(
      `unknown command '${positionals.join(' ')}'; commands: ${Object.keys(SUBCOMMANDS).join(', ')} (see --help)`,
    );
  }
  if (action === undefined)
    throw new CliUsageError(`${group} needs a subcommand: ${actions.join(', ')} (see --help)`);
  if (!actions.includes(action)) {
    throw new CliUsageError(
      `unknown command '${group} ${action}'; ${group} subcommands: ${actions.join(', ')} (see --help)`,
    );
  }
}

/** One line of `keys list`: the prefix, never the key (which is not stored) nor its hash. */
function keyLine(k: ApiKey, owner?: string): string {
  return [
    ...(owner === undefined ? [] : [owner]),
    k.prefix,
    k.scopes.join(','),
    `created ${k.createdAt}`,
    k.lastUsedAt ? `used ${k.lastUsedAt}` : 'never used',
    k.revokedAt ? `REVOKED ${k.revokedAt}` : 'active',
  ].join('  ');
}

/**
 * `users create <email>`, `users list`, `keys create --user <email> [--scopes read,write]`,
 * `keys list [--user <email>]`, `keys revoke <prefix>`. Output goes to stdout (this is a CLI,
 * not the stdio server); a new key is printed once and never again.
 */
export async function runCommand(store: Store, ctx: RunContext): Promise<number> {
  const [group, action, arg] = ctx.positionals;
  const out = (line: string) => process.stdout.write(`${line}\n`);
  if (group === 'users' && action === 'create') {
    if (typeof arg !== 'string' || !EMAIL.test(arg))
      throw new CliUsageError('usage: users create <email>');
    const email = normalizeEmail(arg);
    const user = await store
      .createUser(email, (ctx.values.name as string | undefined) ?? null)
      .catch((err: unknown) => {
        if (err instanceof ConflictError) throw new CliUsageError(`user ${email} already exists`);
        throw err;
      });
    out(`created user ${user.email} (${user.id})`);
    return 0;
  }
  if (group === 'users' && action === 'list') {
    if (arg !== undefined) throw new CliUsageError('usage: users list');
    for (const user of await store.listUsers()) {
      const keys = await store.listApiKeys(user.id);
      const live = keys.filter((k) => !k.revokedAt).length;
      out(
        [
          user.email,
          user.id,
          ...(user.name ? [JSON.stringify(user.name)] : []),
          `created ${user.createdAt}`,
          `${live} active key${live === 1 ? '' : 's'}${keys.length > live ? ` (${keys.length - live} revoked)` : ''}`,
        ].join('  '),
      );
    }
    return 0;
  }
  if (group === 'keys' && action === 'create') {
    const user = await userByEmail(store, ctx.values.user);
    const scopes = parseKeyScopes(ctx.values.scopes as string | undefined);
    const { key, prefix, hash } = generateKey();
    await store.createApiKey(user.id, prefix, hash, scopes);
    out(key);
    process.stderr.write(
      `API key for ${user.email} with scopes ${scopes.join(',')}; shown once, store it now. Prefix: ${prefix}\n`,
    );
    return 0;
  }
  if (group === 'keys' && action === 'list') {
    if (ctx.values.user !== undefined) {
      const user = await userByEmail(store, ctx.values.user);
      for (const k of await store.listApiKeys(user.id)) out(keyLine(k));
      return 0;
    }
    // Every user's keys, each line led by its owner's email.
    for (const user of await store.listUsers()) {
      for (const k of await store.listApiKeys(user.id)) out(keyLine(k, user.email));
    }
    return 0;
  }
  if (group === 'keys' && action === 'revoke') {
    // At least the whole shown prefix: 'cf_live_sk_' alone would match every key there is.
    if (typeof arg !== 'string' || arg.length < SHOWN_CHARS) {
      throw new CliUsageError(
        `usage: keys revoke <prefix> (the ${SHOWN_CHARS} characters keys list shows)`,
      );
    }
    const count = await store.revokeApiKeys(arg);
    out(`revoked ${count} key${count === 1 ? '' : 's'}`);
    return count > 0 ? 0 : 1;
  }
  if (group === 'tokens' && action === 'validate') return validateStoredTokens(store, arg, out);
  throw new CliUsageError(`unknown command '${ctx.positionals.join(' ')}'`);
}

/** Problems listed per project at most; the count is always given. */
const LISTED_PROBLEMS = 20;

/**
 * `tokens validate [<projectId>]`: checks the stored design tokens (and modes) of one project or
 * of every project against today's rules, one line per project and one per problem. Reports and
 * never rewrites: a document written under older rules stays as it is until someone changes it.
 * Exit code 1 when a document has problems.
 */
async function validateStoredTokens(
  store: Store,
  only: string | undefined,
  out: (line: string) => void,
): Promise<number> {
  const ids: string[] = [];
  if (only !== undefined) {
    if (!(await store.getProject(only))) throw new CliUsageError(`no project ${only}`);
    ids.push(only);
  } else {
    for (const user of await store.listUsers()) {
      let cursor: string | undefined;
      do {
        const page = await store.listProjects(user.id, { cursor, limit: 100 });
        ids.push(...page.items.map((p) => p.id));
        cursor = page.nextCursor;
      } while (cursor);
    }
  }
  let invalid = 0;
  for (const id of ids) {
    const system = await store.getDesignSystem(id);
    if (!system) {
      out(`${id}  ok  (starter tokens, never written)`);
      continue;
    }
    const problems = await tokenProblems(system.tokens, system.resolver);
    if (problems.length === 0) {
      out(`${id}  ok  (version ${system.version}${system.resolver ? ', with modes' : ''})`);
      continue;
    }
    invalid++;
    out(
      `${id}  ${problems.length} problem${problems.length === 1 ? '' : 's'}  (version ${system.version})`,
    );
    for (const p of problems.slice(0, LISTED_PROBLEMS)) out(`  ${p.field}: ${p.error}`);
    if (problems.length > LISTED_PROBLEMS) out(`  … and ${problems.length - LISTED_PROBLEMS} more`);
  }
  out(`${ids.length - invalid} of ${ids.length} token documents valid`);
  return invalid === 0 ? 0 : 1;
}
