// Matching URIs against RFC 6570 templates (the reverse of expansion): see UriTemplate.

interface Expression {
  operator: '' | '+' | '#' | '/' | '.' | '?' | '&' | ';';
  names: string[];
}

const VAR_NAME = /^[A-Za-z0-9_.%]+$/;
const MAX_URI_LENGTH = 4096;
const PREFIXED = new Set<Expression['operator']>(['/', '.', '#']);

/**
 * Matching URIs against RFC 6570 templates (the reverse of expansion), for resource templates
 * such as `codefluss://design-system/{projectId}`. Supports the operators MCP servers use:
 * `{var}`, `{+var}`, `{#var}`, `{/var}`, `{.var}`, `{?a,b}`, `{&a}` and comma lists of names.
 * Expansion libraries exist, but none of the maintained ones matches; this is the small part we
 * need.
 */
export class UriTemplate {
  /** The template as given. */
  readonly template: string;
  /** Its variables, in order of appearance. */
  readonly variableNames: readonly string[];
  readonly #regex: RegExp;
  readonly #groups: { name: string; operator: Expression['operator'] }[] = [];
  readonly #query: string[] = [];

  constructor(template: string) {
    this.template = template;
    const parts = tokenize(template);
    const names: string[] = [];
    let pattern = '^';
    let reserved = 0;
    let queryStarted = false;
    parts.forEach((part, index) => {
      if (queryStarted)
        throw new TypeError(`template '${template}': nothing may follow a query expression`);
      if (typeof part === 'string') {
        pattern += escapeRegex(part);
        return;
      }
      names.push(...part.names);
      if (part.operator === '?' || part.operator === '&') {
        queryStarted = true;
        this.#query.push(...part.names);
        return;
      }
      if (part.operator === '+' || part.operator === '#') reserved++;
      const previous = parts[index - 1];
      if (previous !== undefined && typeof previous !== 'string' && !PREFIXED.has(part.operator)) {
        throw new TypeError(
          `template '${template}': adjacent expressions are ambiguous; separate them with text`,
        );
      }
      const next = parts[index + 1];
      pattern += this.#expressionPattern(part, typeof next === 'string' ? next[0] : undefined);
    });
    // Each extra lazy group multiplies the backtracking a hostile URI can cause.
    if (reserved > 1)
      throw new TypeError(`template '${template}': at most one {+…} or {#…} expression`);
    if (queryStarted) pattern += '(?:[?&](.*))?';
    pattern += '$';
    this.variableNames = names;
    this.#regex = new RegExp(pattern, 's');
  }

  #expressionPattern(expr: Expression, nextChar: string | undefined): string {
    const { operator, names } = expr;
    const sep = operator === '/' ? '/' : operator === '.' ? '.' : ',';
    // A simple value cannot contain what expansion escapes, nor the separator that ends it:
    // every group stops at one place, so matching never backtracks.
    const stop = escapeClass(`/?#,${sep}${nextChar ?? ''}`);
    const value = operator === '+' || operator === '#' ? '(.*?)' : `([^${stop}]*)`;
    const prefix = operator === '#' ? '#' : operator === '/' ? '/' : operator === '.' ? '\\.' : '';
    for (const name of names) this.#groups.push({ name, operator });
    return prefix + names.map(() => value).join(escapeRegex(sep));
  }

  /** The variables of a matching URI (percent-decoded), or undefined. */
  match(uri: string): Record<string, string> | undefined {
    if (uri.length > MAX_URI_LENGTH) return undefined;
    const m = this.#regex.exec(uri);
    if (!m) return undefined;
    const vars: Record<string, string> = {};
    let g = 1;
    for (const { name } of this.#groups) {
      const raw = m[g++] ?? '';
      const decoded = safeDecode(raw);
      if (decoded === undefined) return undefined;
      vars[name] = decoded;
    }
    if (this.#query.length > 0) {
      const query = m[g];
      if (query) {
        for (const pair of query.split('&')) {
          const eq = pair.indexOf('=');
          const key = safeDecode(eq === -1 ? pair : pair.slice(0, eq));
          const value = safeDecode(eq === -1 ? '' : pair.slice(eq + 1));
          if (key !== undefined && value !== undefined && this.#query.includes(key))
            vars[key] = value;
        }
      }
    }
    return vars;
  }

  /** Expand with values (simple string expansion, percent-encoding as RFC 6570 says). */
  expand(vars: Record<string, string>): string {
    return this.template.replace(/\{([^}]*)\}/g, (_all, body: string) => {
      const expr = parseExpression(body, this.template);
      const present = expr.names.filter((n) => vars[n] !== undefined);
      if (present.length === 0) return '';
      const enc = (v: string) =>
        expr.operator === '+' || expr.operator === '#' ? encodeURI(v) : encodeURIComponent(v);
      switch (expr.operator) {
        case '?':
        case '&':
          return (
            expr.operator +
            present.map((n) => `${encodeURIComponent(n)}=${enc(vars[n] as string)}`).join('&')
          );
        case '/':
          return `/${present.map((n) => enc(vars[n] as string)).join('/')}`;
        case '.':
          return `.${present.map((n) => enc(vars[n] as string)).join('.')}`;
        case '#':
          return `#${present.map((n) => enc(vars[n] as string)).join(',')}`;
        default:
          return present.map((n) => enc(vars[n] as string)).join(',');
      }
    });
  }
}

function parseExpression(body: string, template: string): Expression {
  const first = body[0] ?? '';
  const operator = (
    '+#/.?&;'.includes(first) && first !== '' ? first : ''
  ) as Expression['operator'];
  const names = (operator ? body.slice(1) : body).split(',').map((n) => n.replace(/\*$/, ''));
  if (names.some((n) => !VAR_NAME.test(n)))
    throw new TypeError(`template '${template}': bad expression {${body}}`);
  if (operator === ';') throw new TypeError(`template '${template}': {;…} is not supported`);
  return { operator, names };
}

function tokenize(template: string): (string | Expression)[] {
  const parts: (string | Expression)[] = [];
  let i = 0;
  while (i < template.length) {
    const open = template.indexOf('{', i);
    if (open === -1) {
      parts.push(template.slice(i));
      break;
    }
    if (open > i) parts.push(template.slice(i, open));
    const close = template.indexOf('}', open);
    if (close === -1) throw new TypeError(`template '${template}': unclosed expression`);
    parts.push(parseExpression(template.slice(open + 1, close), template));
    i = close + 1;
  }
  return parts;
}

function escapeClass(chars: string): string {
  return [...new Set(chars)].map((c) => (/[\\\]^-]/.test(c) ? `\\${c}` : c)).join('');
}

function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function safeDecode(text: string): string | undefined {
  try {
    return decodeURIComponent(text);
  } catch {
    return undefined;
  }
}
