/**
 * Redaction of secrets in text the machine produced (command lines, log lines). Patterns are
 * conservative: the secret options of well-known tools (`mysql -p<pw>`, see ./redact-tools.ts), a
 * value next to a secret-sounding name, credentials in URLs, bearer tokens, well-known key
 * formats. What is removed becomes `[REDACTED]`.
 */
import { REDACTED, settleToolSecrets } from './redact-tools.js';

const SECRET_NAME = `(?:pass(?:word|wd|phrase)?|pwd|secret|token|api[-_]?key|access[-_]?key|private[-_]?key|client[-_]?secret|auth(?:orization)?|credentials?|session[-_]?id|cookie)`;

// Names that look secret but hold none: the working directory; flags that take no value or name a
// program (`--askpass`, `--ask-password`, `--password-stdin`, `SSH_ASKPASS=/usr/bin/ksshaskpass`);
// settings that say how to authenticate (`--authenticationDatabase admin`, `authSource=admin`).
const NOT_SECRET = new Set(['PWD', 'OLDPWD']);
const NOT_SECRET_NAME =
  /ask-?pass|-stdin$|auth(?:entication)?[-_]?(?:source|mechanism|method|mode|type|database|db)$/i;
const keepOrRedact = (whole: string, key: string, sep: string) =>
  NOT_SECRET.has(key.toUpperCase()) || NOT_SECRET_NAME.test(key)
    ? whole
    : `${key}${sep}${REDACTED}`;

/**
 * A field name that ends in a secret's word, once lower-cased and without separators
 * (`password`, `db_password`, `apiKey`, `X-Auth-Token`, `client_secret`, `Authorization`) —
 * not one that merely contains it (`author`, `token_count`, `passenger`).
 */
const SECRET_FIELD =
  /(?:pass(?:word|wd|phrase)?|pwd|secrets?|tokens?|apikey|accesskey|privatekey|credentials?|sessionid|cookies?|authorization|^auth)$/;

/**
 * Whether a field of that name holds a secret: what a structured value's field is redacted by,
 * whatever its value looks like.
 */
export function isSecretName(name: string): boolean {
  if (NOT_SECRET.has(name.toUpperCase()) || NOT_SECRET_NAME.test(name)) return false;
  return SECRET_FIELD.test(name.toLowerCase().replace(/[-_.\s]/g, ''));
}

type Pattern = [RegExp, string | ((...m: string[]) => string)];

// Bearer / Basic credentials first, so "Authorization: Bearer x" keeps its scheme word.
const BEARER: Pattern = [
  /\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]{8,}/g,
  (_m, scheme) => `${scheme} ${REDACTED}`,
];

// A value next to a secret-sounding name.
const NAMED: Pattern[] = [
  // "password": "x" (JSON)
  [
    new RegExp(String.raw`("[\w.-]*${SECRET_NAME}[\w.-]*"\s*:\s*)"(?:[^"\\]|\\.)*"`, 'gi'),
    (_m, k) => `${k}"${REDACTED}"`,
  ],
  // --password=x, --api-key x (not --no-password, and a following flag is not a value)
  [
    new RegExp(
      String.raw`(?<![\w-])(--?(?!-|no-)[\w-]*${SECRET_NAME}[\w-]*)(=|\s+)(?!-|\[REDACTED\])("[^"]*"|'[^']*'|\S+)`,
      'gi',
    ),
    (m, k, sep) => keepOrRedact(m, k, sep),
  ],
  // TOKEN=x, password: x (but not the scheme word of an Authorization header)
  [
    new RegExp(
      String.raw`\b([\w.-]*${SECRET_NAME}[\w.-]*)(\s*[=:]\s*)(?!(?:Bearer|Basic)\s|\[REDACTED\])("[^"]*"|'[^']*'|[^\s&;,]+)`,
      'gi',
    ),
    (m, k, sep) => keepOrRedact(m, k, sep),
  ],
];

// Secrets recognised by their form.
const FORMATS: Pattern[] = [
  // scheme://user:password@host, also redis://:password@host; up to the last @ of the authority
  [/\b([a-z][a-z0-9+.-]*:\/\/[^\s:/@]*):[^\s/?#]+@/gi, (_m, prefix) => `${prefix}:${REDACTED}@`],
  // AWS access keys, GitHub and Slack tokens, JWTs, PEM blocks
  [/\b(AKIA|ASIA)[0-9A-Z]{16}\b/g, REDACTED],
  [/\bgh[pousr]_[A-Za-z0-9]{20,}\b/g, REDACTED],
  [/\bxox[abprs]-[A-Za-z0-9-]{10,}\b/g, REDACTED],
  [/\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\b/g, REDACTED],
  [/-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(-----END [A-Z ]*PRIVATE KEY-----|$)/g, REDACTED],
];

const PATTERNS: Pattern[] = [BEARER, ...NAMED, ...FORMATS];

/**
 * A character of the Unicode private use area that `text` does not hold, to mark the words the
 * tool rules settled; none when a line holds all 6,400 of them.
 */
function unusedChar(text: string): string | undefined {
  const used = new Set<number>();
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code >= 0xe000 && code <= 0xf8ff) used.add(code);
  }
  for (let code = 0xe000; code <= 0xf8ff; code++) {
    if (!used.has(code)) return String.fromCharCode(code);
  }
  return undefined;
}

/**
 * `text` with secrets replaced: passwords, tokens and keys in the options of well-known tools,
 * in flags, variables and known formats.
 */
export function redact(text: string): string {
  const mark = unusedChar(text);
  const settled: string[] = [];
  let out =
    mark === undefined
      ? text
      : settleToolSecrets(text, (word) => `${mark}${settled.push(word) - 1}${mark}`);
  for (const [pattern, replacement] of PATTERNS) {
    out = out.replace(pattern, replacement as string);
  }
  if (mark === undefined || settled.length === 0) return out;
  out = out
    .replace(new RegExp(`${mark}(\\d+)${mark}`, 'g'), (_m, i: string) => settled[Number(i)] ?? '')
    .replaceAll(mark, '');
  // What a tool rule kept may still hold a key of a known form (curl -u ghp_…:x-oauth-basic).
  for (const [pattern, replacement] of [BEARER, ...FORMATS]) {
    out = out.replace(pattern, replacement as string);
  }
  return out;
}
