/**
 * Rules on who may call what with which arguments, in CEL (the Common Expression Language of
 * Kubernetes admission policies and agentgateway): each rule is a name, an effect and a `when`
 * expression over the call — `identity` (subject, scopes, groups, claims), `server` (the virtual
 * server, '' for the gateway's own endpoint), `tool` (name, backend, original, annotations) and
 * `args`. CEL over Cedar because the conditions are on a call's JSON arguments, which CEL reads
 * as they are (Cedar wants an entity schema for them), and because it is side-effect free and
 * always terminates — an operator's rule cannot hang a call.
 *
 * Decision: any `deny` rule that matches refuses (deny overrides); else any `allow` rule that
 * matches permits; else the default. A rule whose expression fails on this call (a claim the
 * person does not have) fails closed: a `deny` rule counts as matching, an `allow` rule does not.
 * Lists: a rule whose outcome depends on `args` cannot be decided before the call — a `deny`
 * one does not hide the tool, an `allow` one lists it — so a listed tool can be called with some
 * arguments, and a tool no arguments could make callable is not listed.
 */
import { createRequire } from 'node:module';
import { hasBrand } from '@mcpkit/protocol';

type Cel = typeof import('@marcbachmann/cel-js');
let cel: Cel | undefined;
/**
 * cel-js, loaded with the first rule compiled rather than with the gateway: its standard library
 * registers its overloads when it loads (~26 ms here), a start-up cost for every gateway without
 * rules (#35). Loaded with `require` so that compiling stays synchronous (the config's validation
 * compiles the rules); Node.js ≥ 20.19 requires ES modules.
 */
function celJs(): Cel {
  cel ??= createRequire(import.meta.url)('@marcbachmann/cel-js') as Cel;
  return cel;
}

/** One rule as the config gives it. */
export interface RuleConfig {
  name: string;
  effect: 'allow' | 'deny';
  when: string;
}

/** What a rule is evaluated against. */
export interface CallFacts {
  identity: {
    subject: string;
    scopes: string[];
    groups: string[];
    claims: Record<string, unknown>;
  };
  server: string;
  tool: {
    name: string;
    backend: string;
    original: string;
    annotations: Record<string, unknown>;
  };
  /** The call's arguments; absent when deciding whether to list the tool. */
  args?: Record<string, unknown>;
}

/** What decided: the rule's name, or null for the default. */
export interface Decision {
  allowed: boolean;
  rule: string | null;
}

interface Compiled {
  name: string;
  deny: boolean;
  /** Its position in the config. */
  index: number;
  /** Reads `args`: undecidable before the call. */
  readsArgs: boolean;
  test: (facts: Record<string, unknown>) => unknown;
  /** What it decides when it is the rule that decides (made once: a call allocates none). */
  decision: Decision;
  /** Calls it allowed (as the deciding rule) since it was compiled. */
  allowed: number;
}

const DEFAULT_ALLOW: Decision = Object.freeze({ allowed: true, rule: null });
const DEFAULT_DENY: Decision = Object.freeze({ allowed: false, rule: null });

const RULE_ERROR = Symbol.for('mcpkit.gateway.RuleError');

/** A rule the config cannot have, with where and why. */
export class RuleError extends Error {
  /** Marks one from any copy of this package. */
  readonly [RULE_ERROR] = true;
  /** Whether `value` is one, from any copy of this package. */
  static is(value: unknown): value is RuleError {
    return hasBrand(value, RULE_ERROR);
  }
  constructor(
    readonly index: number,
    message: string,
  ) {
    super(message);
    this.name = 'RuleError';
  }
}

/** cel-js's error for a variable the input has not got. */
const UNKNOWN_ARGS = /Unknown variable: args\b/;

/** String literals removed, so that `'args'` in a string is not a reference to `args`. */
const withoutStrings = (expr: string) => expr.replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'/g, '""');

/**
 * What the rules come to for one tool on one server, before the caller and the arguments are
 * known: the rules that always match it, and those that depend on the call (a rule that never
 * matches this tool is not there — most rules name a tool or a backend, and CEL's `&&` decides
 * `tool.name == 'x' && …` for every other tool without the rest).
 */
interface Plan {
  rules: { rule: Compiled; always: boolean }[];
}

/** Servers planned for before the plans are cleared (virtual servers: a handful). */
const MAX_SERVERS = 1000;

/** The compiled rules of a config, and their decisions. */
export class RuleSet {
  readonly #rules: readonly Compiled[];
  readonly #defaultAllow: boolean;
  /** Plans by server, then by the tool's facts (the same object for a tool until its list changes). */
  readonly #plans = new Map<string, WeakMap<CallFacts['tool'], Plan>>();

  private constructor(rules: Compiled[], defaultAllow: boolean) {
    this.#rules = rules;
    this.#defaultAllow = defaultAllow;
  }

  /** Compile `rules`; a {@link RuleError} names the first that does not compile, and why. */
  static compile(rules: readonly RuleConfig[], fallback: 'allow' | 'deny' = 'allow'): RuleSet {
    const compiled = rules.map((rule, index) => {
      let test: Compiled['test'];
      try {
        const parsed = celJs().parse(rule.when);
        const checked = parsed.check() as { valid: boolean; type?: string; error?: Error };
        if (!checked.valid) throw checked.error ?? new Error('does not type-check');
        if (checked.type && checked.type !== 'bool' && checked.type !== 'dyn') {
          throw new Error(`is a ${checked.type}, not a condition (bool)`);
        }
        test = parsed as Compiled['test'];
      } catch (err) {
        throw new RuleError(index, `rule '${rule.name}': ${(err as Error).message}`);
      }
      const deny = rule.effect === 'deny';
      return {
        name: rule.name,
        deny,
        index,
        readsArgs: /\bargs\b/.test(withoutStrings(rule.when)),
        test,
        decision: Object.freeze({ allowed: !deny, rule: rule.name }),
        allowed: 0,
      };
    });
    return new RuleSet(compiled, fallback === 'allow');
  }

  /** The decision on a call (with `facts.args`); a call a rule allows is counted by it. */
  decide(facts: CallFacts): Decision {
    return this.#decide(facts, false);
  }

  /** Calls each rule allowed since it was compiled (the rules that allowed any). */
  allowedCalls(): { rule: string; calls: number }[] {
    return this.#rules
      .filter((r) => r.allowed > 0)
      .map((r) => ({ rule: r.name, calls: r.allowed }));
  }

  /** Whether the tool is listed to this caller: some call of it could be allowed. */
  listable(facts: Omit<CallFacts, 'args'>): Decision {
    return this.#decide(facts, true);
  }

  /** Forget the plans (a tool's annotations changed with its backend's list). */
  toolsChanged(): void {
    this.#plans.clear();
  }

  /** The plan for `facts`' tool on its server, made once. */
  #plan(facts: CallFacts): Plan {
    const { tool, server } = facts;
    let byTool = this.#plans.get(server);
    if (!byTool) {
      if (this.#plans.size >= MAX_SERVERS) this.#plans.clear();
      byTool = new WeakMap();
      this.#plans.set(server, byTool);
    }
    let plan = byTool.get(tool);
    if (plan) return plan;
    // Only what is known before the call: a rule that needs more throws, and is kept.
    const known = { tool, server };
    plan = { rules: [] };
    for (const rule of this.#rules) {
      let outcome: unknown;
      try {
        outcome = rule.test(known);
      } catch {
        plan.rules.push({ rule, always: false });
        continue;
      }
      if (outcome === true) plan.rules.push({ rule, always: true });
    }
    byTool.set(tool, plan);
    return plan;
  }

  #decide(facts: CallFacts, listing: boolean): Decision {
    let allowedBy: Compiled | undefined;
    const input = facts as unknown as Record<string, unknown>;
    for (const { rule, always } of this.#plan(facts).rules) {
      if (!always && !matches(rule, input, listing)) continue;
      if (rule.deny) return rule.decision;
      allowedBy ??= rule;
    }
    if (allowedBy) {
      if (!listing) allowedBy.allowed++;
      return allowedBy.decision;
    }
    return this.#defaultAllow ? DEFAULT_ALLOW : DEFAULT_DENY;
  }
}

/** Whether `rule` matches the call `input` (or, `listing`, could match some call). */
function matches(rule: Compiled, input: Record<string, unknown>, listing: boolean): boolean {
  try {
    return rule.test(input) === true;
  } catch (err) {
    if (listing && rule.readsArgs && UNKNOWN_ARGS.test((err as Error).message)) {
      // Decided by the arguments, which a list has not got: a deny may not refuse every call,
      // an allow may permit some. (CEL's && and || decide without `args` when the rest does:
      // `tool.name == 'x' && args.n > 1` is false for another tool.)
      return !rule.deny;
    }
    // Fails closed: a deny that cannot be evaluated refuses; an allow does not permit.
    return rule.deny;
  }
}
