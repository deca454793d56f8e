/**
 * Matching URIs against RFC 6570 templates (the reverse of expansion), for resource templates
 * such as `codefluss://design-system/{projectId}`. Supports the operators MCP servers use:
 * `{var}`, `{+var}`, `{#var}`, `{/var}`, `{.var}`, `{?a,b}`, `{&a}` and comma lists of names.
 * Expansion libraries exist, but none of the maintained ones matches; this is the small part we
 * need.
 */

interface Expression {
  operator: '' | '+' | '#' | '/' | '.' | '?' | '&' | ';';
  names: string[];
}

const VAR_NAME = /^[A-Za-z0-9_.%]+$/;
const MAX_URI_LENGTH = 8192;

export class UriTemplate {
  readonly template: string;
  readonly variableNames: readonly string[];
  readonly #regex: RegExp;
  readonly #groups: { name: string; operator: Expression['operator'] }[] = [];
  readonly #query: string[] = [];

  constructor(template: string) {
    this.template = template;
    const names: string[] = [];
    let pattern = '^';
    let i = 0;
    let queryStarted = false;
    while (i < template.length) {
      const open = template.indexOf('{', i);
      const literalEnd = open === -1 ? template.length : open;
      if (queryStarted && literalEnd > i)
        throw new TypeError(`template '${template}': text after a query expression`);
      pattern += escapeRegex(template.slice(i, literalEnd));
      if (open === -1) break;
      const close = template.indexOf('}', open);
      if (close === -1) throw new TypeError(`template '${template}': unclosed expression`);
      const expr = parseExpression(template.slice(open + 1, close), template);
      names.push(...expr.names);
      if (expr.operator === '?' || expr.operator === '&') {
        queryStarted = true;
        this.#query.push(...expr.names);
      } else {
        pattern += this.#expressionPattern(expr);
      }
      i = close + 1;
    }
    if (queryStarted) pattern += '(?:[?&](.*))?';
    pattern += '$';
    this.variableNames = names;
    this.#regex = new RegExp(pattern, 's');
  }

  #expressionPattern(expr: Expression): string {
    const { operator, names } = expr;
    // Simple and path-style values cannot contain the characters expansion would have escaped.
    const value = operator === '+' || operator === '#' ? '(.*?)' : '([^/?#,]*)';
    const sep = operator === '/' ? '/' : operator === '.' ? '\\.' : ',';
    const prefix = operator === '#' ? '#' : operator === '/' ? '/' : operator === '.' ? '\\.' : '';
    for (const name of names) this.#groups.push({ name, operator });
    return prefix + names.map(() => value).join(sep);
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
