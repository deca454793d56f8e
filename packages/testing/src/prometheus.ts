/** One sample line of the Prometheus text format. */
export interface PromSample {
  /** The sample's name (a histogram's `_bucket`, `_sum`, `_count` included). */
  name: string;
  /** Its labels. */
  labels: Record<string, string>;
  /** Its value. */
  value: number;
}

/** A metric family: its `# TYPE`, `# HELP` and samples. */
export interface PromFamily {
  /** counter, gauge, histogram, summary or untyped. */
  type: string;
  /** The `# HELP` text. */
  help: string;
  /** The samples, in order. */
  samples: PromSample[];
}

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
const TYPES = new Set(['counter', 'gauge', 'histogram', 'summary', 'untyped']);
const SUFFIXES = ['_bucket', '_sum', '_count', '_total', '_created'];

/**
 * Parse the Prometheus text exposition format (0.0.4) strictly, for tests of a `/metrics`
 * endpoint: every line must be a `# HELP`, `# TYPE`, comment or a well-formed sample of a
 * declared family; a TYPE after its samples, a duplicate series, a counter going negative, a
 * histogram whose buckets are not cumulative or lack `+Inf` = `_count` — each throws, naming
 * the line.
 */
export function parsePrometheusText(text: string): Map<string, PromFamily> {
  const families = new Map<string, PromFamily>();
  const seen = new Set<string>();
  const lines = text.split('\n');
  if (lines.at(-1) !== '') throw new Error('the exposition must end with a newline');
  lines.forEach((line, i) => {
    const where = `line ${i + 1} (${JSON.stringify(line)})`;
    if (line === '') return;
    if (line.startsWith('#')) {
      const m = /^# (HELP|TYPE) (\S+) ?(.*)$/.exec(line);
      if (!m) return; // a comment
      const [, kind, name, rest] = m as unknown as [string, string, string, string];
      if (!NAME.test(name)) throw new Error(`bad metric name at ${where}`);
      const family = families.get(name) ?? { type: 'untyped', help: '', samples: [] };
      if (kind === 'TYPE') {
        if (!TYPES.has(rest)) throw new Error(`unknown type at ${where}`);
        if (family.samples.length > 0) throw new Error(`TYPE after samples at ${where}`);
        family.type = rest;
      } else family.help = rest;
      families.set(name, family);
      return;
    }
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})? (\S+)( -?\d+)?$/.exec(line);
    if (!m) throw new Error(`malformed sample at ${where}`);
    const [, name, , rawLabels = '', rawValue] = m as unknown as [
      string,
      string,
      string,
      string,
      string,
    ];
    const labels = parseLabels(rawLabels, where);
    const value = parseValue(rawValue as string, where);
    const key = `${name}${JSON.stringify(Object.entries(labels).sort())}`;
    if (seen.has(key)) throw new Error(`duplicate series at ${where}`);
    seen.add(key);
    const base = familyOf(name, families);
    if (!base) throw new Error(`sample of an undeclared family at ${where}`);
    if (base.type === 'counter' && (value < 0 || Number.isNaN(value)))
      throw new Error(`counter below zero at ${where}`);
    base.samples.push({ name, labels, value });
  });
  for (const [name, family] of families)
    if (family.type === 'histogram') checkHistogram(name, family);
  return families;
}

/** The value of one series: the sample named `name` whose labels include `labels`; 0 if none. */
export function sampleValue(
  families: Map<string, PromFamily>,
  name: string,
  labels: Record<string, string> = {},
): number {
  let total = 0;
  for (const family of families.values()) {
    for (const s of family.samples) {
      if (s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))
        total += s.value;
    }
  }
  return total;
}

function familyOf(name: string, families: Map<string, PromFamily>): PromFamily | undefined {
  const exact = families.get(name);
  if (exact) return exact;
  for (const suffix of SUFFIXES) {
    if (name.endsWith(suffix)) {
      const family = families.get(name.slice(0, -suffix.length));
      if (family) return family;
    }
  }
  return undefined;
}

function parseLabels(raw: string, where: string): Record<string, string> {
  const labels: Record<string, string> = {};
  let i = 0;
  while (i < raw.length) {
    const eq = raw.indexOf('=', i);
    if (eq === -1) throw new Error(`malformed labels at ${where}`);
    const name = raw.slice(i, eq);
    if (!LABEL.test(name)) throw new Error(`bad label name ${JSON.stringify(name)} at ${where}`);
    if (raw[eq + 1] !== '"') throw new Error(`unquoted label value at ${where}`);
    let j = eq + 2;
    let value = '';
    for (; j < raw.length && raw[j] !== '"'; j++) {
      if (raw[j] === '\\') {
        const next = raw[++j];
        if (next === 'n') value += '\n';
        else if (next === '\\' || next === '"') value += next;
        else throw new Error(`bad escape in a label value at ${where}`);
      } else value += raw[j];
    }
    if (j >= raw.length) throw new Error(`unterminated label value at ${where}`);
    if (name in labels) throw new Error(`label ${name} twice at ${where}`);
    labels[name] = value;
    i = j + 1;
    if (raw[i] === ',') i++;
    else if (i < raw.length) throw new Error(`malformed labels at ${where}`);
  }
  return labels;
}

/** As Prometheus reads it (Go's ParseFloat): `NaN` and `Inf` in any case, e.g. prom-client's `Nan`. */
function parseValue(raw: string, where: string): number {
  const word = raw.toLowerCase();
  if (word === '+inf' || word === 'inf') return Number.POSITIVE_INFINITY;
  if (word === '-inf') return Number.NEGATIVE_INFINITY;
  if (word === 'nan') return Number.NaN;
  const value = Number(raw);
  if (raw === '' || Number.isNaN(value)) throw new Error(`bad value at ${where}`);
  return value;
}

function checkHistogram(name: string, family: PromFamily): void {
  const series = new Map<string, { buckets: [number, number][]; count?: number }>();
  for (const s of family.samples) {
    const { le, ...rest } = s.labels;
    const key = JSON.stringify(Object.entries(rest).sort());
    const entry = series.get(key) ?? { buckets: [] };
    series.set(key, entry);
    if (s.name === `${name}_bucket`) {
      if (le === undefined) throw new Error(`${name}_bucket without le`);
      entry.buckets.push([parseValue(le, `le of ${name}`), s.value]);
    } else if (s.name === `${name}_count`) entry.count = s.value;
  }
  for (const [key, { buckets, count }] of series) {
    let last = 0;
    for (const [, v] of buckets) {
      if (v < last) throw new Error(`${name}${key}: buckets are not cumulative`);
      last = v;
    }
    const inf = buckets.find(([le]) => le === Number.POSITIVE_INFINITY);
    if (!inf || inf[1] !== count) throw new Error(`${name}${key}: +Inf bucket ≠ _count`);
  }
}
