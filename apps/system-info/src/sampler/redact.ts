/**
 * Redaction of secrets in text the machine produced (command lines, log lines). Patterns are
 * conservative: a value next to a secret-sounding name, credentials in URLs, bearer tokens,
 * well-known key formats. What is removed becomes `[REDACTED]`.
 */
const REDACTED = '[REDACTED]';
const SECRET_NAME = `(?:pass(?:word|wd|phrase)?|pwd|secret|token|api[-_]?key|access[-_]?key|private[-_]?key|client[-_]?secret|auth(?:orization)?|credentials?|session[-_]?id|cookie)`;

// Environment variables whose names look secret but hold none.
const NOT_SECRET = new Set(['PWD', 'OLDPWD']);
const keepOrRedact = (whole: string, key: string, sep: string) =>
  NOT_SECRET.has(key.toUpperCase()) ? whole : `${key}${sep}${REDACTED}`;

const PATTERNS: [RegExp, string | ((...m: string[]) => string)][] = [
  // Bearer / Basic credentials first, so "Authorization: Bearer x" keeps its scheme word.
  [/\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]{8,}/g, (_m, scheme) => `${scheme} ${REDACTED}`],
  // "password": "x" (JSON)
  [
    new RegExp(String.raw`("[\w.-]*${SECRET_NAME}[\w.-]*"\s*:\s*)"(?:[^"\\]|\\.)*"`, 'gi'),
    (_m, k) => `${k}"${REDACTED}"`,
  ],
  // --password=x, --api-key x (not --no-password, and a following flag is not a value)
  [
    new RegExp(
      String.raw`(--?(?!no-)[\w-]*${SECRET_NAME}[\w-]*)(=|\s+)(?!-|\[REDACTED\])("[^"]*"|'[^']*'|\S+)`,
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
  // scheme://user:password@host
  [/\b([a-z][a-z0-9+.-]*:\/\/[^\s:/@]+):[^\s@/]+@/gi, (_m, prefix) => `${prefix}:${REDACTED}@`],
  // AWS access keys, GitHub and Slack tokens, JWTs, PEM blocks
  [/\b(AKIA|ASIA)[0-9A-Z]{16}\b/g, REDACTED],
  [/\bgh[pousr]_[A-Za-z0-9]{20,}\b/g, REDACTED],
  [/\bxox[abprs]-[A-Za-z0-9-]{10,}\b/g, REDACTED],
  [/\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\b/g, REDACTED],
  [/-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(-----END [A-Z ]*PRIVATE KEY-----|$)/g, REDACTED],
];

/** `text` with secrets replaced: passwords, tokens and keys in flags, variables and known formats. */
export function redact(text: string): string {
  let out = text;
  for (const [pattern, replacement] of PATTERNS) {
    out = out.replace(pattern, replacement as string);
  }
  return out;
}
