/**
 * The gateway's rules at work (see rules.ts): the facts of a call — who, which tool of which
 * backend, with what arguments — a call refused with the rule that refused it, a list showing
 * only what its caller could call, and every decision by a rule in the event log.
 */
import { type AuthInfo, RpcError } from '@mcpkit/protocol';
import type { GatewayConfig } from '../config.js';
import type { EventLog } from '../events.js';
import type { Route } from '../proxies.js';
import { type CallFacts, type Decision, RuleSet } from './rules.js';

/** The JSON-RPC code of a refused call: the one a missing scope gets (the protocol's default). */
const REFUSED = -32600;

/** The identity facts of `auth`: its subject, scopes, groups (a `groups` claim) and claims. */
function identityOf(auth: AuthInfo | undefined): CallFacts['identity'] {
  const claims =
    ((auth?.data as { claims?: Record<string, unknown> } | undefined)?.claims as
      | Record<string, unknown>
      | undefined) ?? {};
  const groups = Array.isArray(claims.groups)
    ? claims.groups.filter((g): g is string => typeof g === 'string')
    : [];
  return {
    subject: auth?.subject ?? '',
    scopes: auth ? [...auth.scopes] : [],
    groups,
    claims,
  };
}

/** The rules in force, replaced as a whole when the config changes. */
export class Policy {
  #rules: RuleSet;
  readonly #events: EventLog;
  readonly #source: string;

  constructor(config: GatewayConfig, events: EventLog) {
    this.#rules = Policy.#compile(config);
    this.#events = events;
    this.#source = config.gateway.name;
  }

  /** Whether `config` has rules at all (a gateway without them lists and calls unfiltered). */
  static wanted(config: GatewayConfig): boolean {
    return (config.gateway.rules?.length ?? 0) > 0;
  }

  static #compile(config: GatewayConfig): RuleSet {
    return RuleSet.compile(config.gateway.rules ?? [], config.gateway.rules_default ?? 'allow');
  }

  /** Take `config`'s rules (already validated: parseConfig compiled them). */
  reload(config: GatewayConfig): void {
    this.#rules = Policy.#compile(config);
  }

  /** Whether the tool `name` (routed to `route`) is listed to `auth`. */
  listable(name: string, route: Route, auth: AuthInfo | undefined): boolean {
    return this.#rules.listable(this.#facts(name, route, auth)).allowed;
  }

  /**
   * The error of a call the rules refuse (recorded as `policy.denied`), else undefined — an
   * explicit allow recorded as `policy.allowed`.
   */
  refusal(
    name: string,
    route: Route & { entry?: Record<string, unknown> },
    args: Record<string, unknown>,
    auth: AuthInfo | undefined,
  ): RpcError | undefined {
    const facts = { ...this.#facts(name, route, auth), args };
    const decision = this.#rules.decide(facts);
    if (decision.rule !== null || !decision.allowed) this.#record(name, route, facts, decision);
    if (decision.allowed) return undefined;
    return new RpcError(
      REFUSED,
      decision.rule
        ? `Tool '${name}' refused by rule '${decision.rule}'`
        : `Tool '${name}' refused: no rule allows it`,
      { tool: name, rule: decision.rule },
    );
  }

  #facts(
    name: string,
    route: Route & { entry?: Record<string, unknown> },
    auth: AuthInfo | undefined,
  ) {
    const annotations = route.entry?.annotations;
    return {
      identity: identityOf(auth),
      server: '',
      tool: {
        name,
        backend: route.backend.name,
        original: route.original,
        annotations:
          annotations && typeof annotations === 'object'
            ? (annotations as Record<string, unknown>)
            : {},
      },
    };
  }

  #record(name: string, route: Route, facts: CallFacts, decision: Decision): void {
    this.#events.note({
      event_type: decision.allowed ? 'policy.allowed' : 'policy.denied',
      status: decision.allowed ? 'success' : 'failure',
      source: this.#source,
      backend: route.backend.name,
      tool: name,
      data: { rule: decision.rule, subject: facts.identity.subject || null },
    });
  }
}
