/**
 * The gateway's own user list, for a team without an identity provider: people sign in at the
 * gateway's authorization server with a name and a password whose scrypt hash is in the config.
 */
import { randomBytes, scrypt, timingSafeEqual } from 'node:crypto';
import { promisify } from 'node:util';

const scryptAsync = promisify(scrypt) as (
  password: string,
  salt: Buffer,
  keylen: number,
  options: { N: number; r: number; p: number; maxmem: number },
) => Promise<Buffer>;

/** scrypt's cost (OWASP's minimum for scrypt: N=2^17, r=8, p=1), 32-byte key. */
const COST = { N: 2 ** 17, r: 8, p: 1 } as const;
const KEY_BYTES = 32;
const MAX_PASSWORD_CHARS = 1024;

/** A person of the user list, as configured. */
export interface GatewayUser {
  /** Their sign-in name: the `sub` of their tokens. */
  username: string;
  /** `scrypt$<N>$<r>$<p>$<salt>$<key>` (base64url), as `mcp-gateway hash-password` prints it. */
  password_hash: string;
  /** Their email, put in ID tokens when a client asks for it. */
  email?: string;
  /** Their groups, a claim rules can read. */
  groups?: string[];
  /** The scopes they may grant a client. Default: every scope but `gateway:admin`. */
  scopes?: string[];
}

/** The hash of `password` to put in the config (`password_hash`). */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await scryptAsync(password, salt, KEY_BYTES, { ...COST, maxmem: 256 * 1024 * 1024 });
  return [
    'scrypt',
    COST.N,
    COST.r,
    COST.p,
    salt.toString('base64url'),
    key.toString('base64url'),
  ].join('$');
}

/** Whether `hash` has the form {@link hashPassword} makes (checked when the config is read). */
export function isPasswordHash(hash: string): boolean {
  return parse(hash) !== undefined;
}

function parse(hash: string) {
  const m = /^scrypt\$(\d+)\$(\d+)\$(\d+)\$([A-Za-z0-9_-]{16,})\$([A-Za-z0-9_-]{32,})$/.exec(hash);
  if (!m) return undefined;
  const [N, r, p] = [Number(m[1]), Number(m[2]), Number(m[3])];
  // Bounds: a config cannot make one sign-in cost gigabytes or minutes.
  if (N < 2 ** 14 || N > 2 ** 20 || (N & (N - 1)) !== 0 || r < 1 || r > 32 || p < 1 || p > 4)
    return undefined;
  return {
    N,
    r,
    p,
    salt: Buffer.from(m[4] as string, 'base64url'),
    key: Buffer.from(m[5] as string, 'base64url'),
  };
}

/** A hash of nothing anyone knows: an unknown name costs what a known one does. */
let decoy: Promise<string> | undefined;

/**
 * The user whose name and password these are; undefined otherwise. Takes as long for an unknown
 * name as for a wrong password (one scrypt either way), and compares in constant time.
 */
export async function checkPassword(
  users: readonly GatewayUser[],
  username: string,
  password: string,
): Promise<GatewayUser | undefined> {
  if (password.length > MAX_PASSWORD_CHARS) return undefined;
  const user = users.find((u) => u.username === username);
  decoy ??= hashPassword(randomBytes(16).toString('hex'));
  const stored = parse(user?.password_hash ?? (await decoy));
  if (!stored) return undefined;
  const key = await scryptAsync(password, stored.salt, stored.key.length, {
    N: stored.N,
    r: stored.r,
    p: stored.p,
    maxmem: 256 * stored.N * stored.r + 1024 * 1024,
  });
  return timingSafeEqual(key, stored.key) && user ? user : undefined;
}

/**
 * `mcp-gateway hash-password`: reads one password from stdin (typed, or piped: `printf %s … |`)
 * and prints its hash for `gateway.authorization_server.users[].password_hash`.
 */
export async function hashPasswordCommand(): Promise<number> {
  if (process.stdin.isTTY) process.stderr.write('password (then Enter): ');
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) {
    chunks.push(chunk as Buffer);
    if (process.stdin.isTTY && chunk.includes(10)) break;
  }
  const password = Buffer.concat(chunks)
    .toString('utf8')
    .replace(/\r?\n$/, '');
  if (password.length < 8 || password.length > MAX_PASSWORD_CHARS) {
    process.stderr.write('mcp-gateway: a password of 8 to 1024 characters, please\n');
    return 2;
  }
  process.stdout.write(`${await hashPassword(password)}\n`);
  return 0;
}
