/**
 * The gateway's rules at work (see rules.ts): the facts of a call — who, which tool of which
 * backend, with what arguments — a call refused with the rule that refused it (a
 * `policy.denied` event), a list showing only what its caller could call, and the calls each
 * rule decided, counted (gateway_status, /metrics).
 */
import { type AuthInfo, RpcError } from '@mcpkit/protocol';
import type { GatewayConfig } from '../config.js';
import type { EventLog } from '../events.js';
import type { Route } from '../proxies.js';
import { type CallFacts, type Decision, RuleSet } from './rules.js';

/** The JSON-RPC code of a refused call: the one a missing scope gets (the protocol's default). */
const REFUSED = -32600;

/** The identity of a caller without one (stdio, no tokens). */
const NOBODY: CallFacts['identity'] = Object.freeze({
  subject: '',
  scopes: [],
  groups: [],
  claims: {},
}) as CallFacts['identity'];
/** Each AuthInfo's facts, made once (a token's AuthInfo is reused by its cache). */
const identities = new WeakMap<AuthInfo, CallFacts['identity']>();

/** The identity facts of `auth`: its subject, scopes, groups (a `groups` claim) and claims. */
export function identityOf(auth: AuthInfo | undefined): CallFacts['identity'] {
  if (!auth) return NOBODY;
  let identity = identities.get(auth);
  if (!identity) {
    identity = makeIdentity(auth);
    identities.set(auth, identity);
  }
  return identity;
}

function makeIdentity(auth: AuthInfo): CallFacts['identity'] {
  const claims =
    ((auth?.data as { claims?: Record<string, unknown> } | undefined)?.claims as
      | Record<string, unknown>
      | undefined) ?? {};
  const groups = Array.isArray(claims.groups)
    ? claims.groups.filter((g): g is string => typeof g === 'string')
    : [];
  return { subject: auth.subject, scopes: [...auth.scopes], groups, claims };
}

/** The rules in force, replaced as a whole when the config changes. */
export class Policy {
  #rules: RuleSet;
  /** Calls refused by each rule since start (they are events too); allowed ones the rules count. */
  readonly #denied = new Map<string, number>();
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
    this.#denied.clear();
  }

  /**
   * Whether the tool `name` (routed to `route`) is listed to `auth` on `server` (a virtual
   * server's name, '' for the gateway's own endpoint).
   */
  listable(name: string, route: Route, auth: AuthInfo | undefined, server = ''): boolean {
    return this.#rules.listable(this.#facts(name, route, auth, server)).allowed;
  }

  /**
   * The rules' decision on a call: `name` is the gateway's name of the tool (as its own endpoint
   * lists it, whatever a virtual server calls it), `server` the virtual server the call came
   * through ('' for none). An allowed call is counted by the rule that allowed it.
   */
  decide(
    name: string,
    route: Route & { entry?: Record<string, unknown> },
    args: Record<string, unknown>,
    auth: AuthInfo | undefined,
    server = '',
  ): Decision {
    // One object per call: the hot path of every governed call allocates nothing else here.
    const facts: CallFacts = {
      identity: identityOf(auth),
      server,
      tool: toolOf(name, route),
      args,
    };
    return this.#rules.decide(facts);
  }

  /** The error of a call `decision` refused, recorded as a `policy.denied` event. */
  refusal(
    name: string,
    route: Route,
    auth: AuthInfo | undefined,
    server: string,
    decision: Decision,
  ): RpcError {
    this.#record(name, route, identityOf(auth).subject, server, decision);
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
    server: string,
  ): Omit<CallFacts, 'args'> {
    return { identity: identityOf(auth), server, tool: toolOf(name, route) };
  }

  /** Calls each rule decided since start (`default` for the default), by effect. */
  decisions(): { rule: string; effect: 'allow' | 'deny'; calls: number }[] {
    return [
      ...this.#rules
        .allowedCalls()
        .map(({ rule, calls }) => ({ rule, effect: 'allow' as const, calls })),
      ...[...this.#denied].map(([rule, calls]) => ({ rule, effect: 'deny' as const, calls })),
    ];
  }

  /** The tools' annotations may have changed (a backend's list): decisions are planned again. */
  toolsChanged(): void {
    this.#rules.toolsChanged();
  }

  #record(name: string, route: Route, subject: string, server: string, decision: Decision): void {
    const rule = decision.rule ?? 'default';
    this.#denied.set(rule, (this.#denied.get(rule) ?? 0) + 1);
    this.#events.note({
      event_type: 'policy.denied',
      status: 'failure',
      source: this.#source,
      backend: route.backend.name,
      tool: name,
      data: {
        rule: decision.rule,
        subject: subject || null,
        ...(server ? { server } : {}),
      },
    });
  }
}

/** Each route's tool facts, made once (a route is remade when its backend's list changes). */
const tools = new WeakMap<Route, CallFacts['tool']>();

function toolOf(
  name: string,
  route: Route & { entry?: Record<string, unknown> },
): CallFacts['tool'] {
  let tool = tools.get(route);
  if (tool?.name !== name) {
    const annotations = route.entry?.annotations;
    tool = {
      name,
      backend: route.backend.name,
      original: route.original,
      annotations:
        annotations && typeof annotations === 'object'
          ? (annotations as Record<string, unknown>)
          : {},
    };
    tools.set(route, tool);
  }
  return tool;
}
