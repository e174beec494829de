import type { CallQuote, CallIdentity, QuoteInput } from "../pricing/call-pricing.ts";
import { quoteRoute, type RouteQuote } from "../pricing/route-quote.ts";
import type { GuardedCall } from "../guardrails/guarded-call.ts";
import type { CallerKey } from "../keys/keyring.ts";
import { outputLimitField } from "../providers/output-limit-field.ts";
import type { RelaySnapshot } from "./relay-snapshot.ts";
import { rewriteRequestBody, type RequestFields } from "./request-body.ts";
import { RouteCursor, type RoutePlan, type Target } from "../routing/route-plan.ts";
import type { RouteSpec } from "../shared/route-spec.ts";
import { RelayError } from "../shared/relay-error.ts";
import type { JournalStart } from "../shared/journal-records.ts";

/** A call's route once priced: where it goes first, how it moves on, its quotes and the body each target gets. */
export interface PricedRoute {
  readonly plan: RoutePlan;
  readonly cursor: RouteCursor;
  readonly first: Target;
  readonly quotes: RouteQuote;
  readonly bodyFor: (target: Target) => Uint8Array<ArrayBuffer> | undefined;
}

/** What pricing a route needs about the call. */
export interface RouteCall {
  key: CallerKey;
  route: RouteSpec;
  body: Uint8Array;
  fields: RequestFields;
  who: CallIdentity;
  guarded: GuardedCall | undefined;
  /** Adds `stream_options.include_usage` (the relay then drops the usage chunk the client did not ask for). */
  dropUsageChunk: boolean;
  receivedAt: number;
}

/**
 * Quotes `plan` from `first` on and writes each target's body lazily: the first target's at
 * once, others' when a retry first needs them. Each gets its upstream model and the limits a
 * strict budget enforces (output, tool calls, tool uses).
 */
export function priceRoute(pricing: RelaySnapshot["pricing"], plan: RoutePlan, cursor: RouteCursor, first: Target, call: RouteCall): PricedRoute {
  const { guarded, body, fields, route } = call;
  const input: Omit<QuoteInput, "model" | "upstreamModel"> = {
    key: call.key,
    route,
    requestBytes: guarded?.largestBytes ?? body.byteLength,
    maxOutputTokens: fields.maxOutputTokens,
    choices: fields.choices,
    references: fields.references,
    serviceTier: fields.serviceTier,
    maxToolCalls: fields.maxToolCalls,
    who: call.who,
    now: new Date(call.receivedAt),
  };
  const quotes = quoteRoute(pricing, plan, first, input);
  // rewriteRequestBody returns `body` itself or a fresh array, both ArrayBuffer-backed; each target gets its model and output limit.
  const rewrite = (to: Target, toQuote: CallQuote) => {
    const source = guarded === undefined ? body : guarded.bodyFor(to.provider.region);
    return source && (rewriteRequestBody(source, {
      model: to.upstreamModel === fields.model ? undefined : to.upstreamModel,
      addIncludeUsage: call.dropUsageChunk,
      outputLimit: toQuote.enforceOutputLimit === undefined ? undefined : { field: outputLimitField(route.path, to.upstreamModel), tokens: toQuote.enforceOutputLimit },
      maxToolCalls: toQuote.enforceMaxToolCalls,
      toolMaxUses: toQuote.enforceToolMaxUses,
    }) as Uint8Array<ArrayBuffer>);
  };
  const firstBody = rewrite(first, quotes.of(first)!)!;
  let bodies: Map<Target, Uint8Array<ArrayBuffer> | undefined> | undefined;
  const bodyFor = (to: Target): Uint8Array<ArrayBuffer> | undefined => {
    if (to === first) return firstBody;
    bodies ??= new Map();
    if (!bodies.has(to)) {
      const toQuote = quotes.of(to);
      bodies.set(to, toQuote === undefined ? undefined : rewrite(to, toQuote));
    }
    return bodies.get(to);
  };
  return { plan, cursor, first, quotes, bodyFor };
}

/**
 * The call routed and priced on `model` instead (a budget's cheaper model); undefined when the
 * key may not call it, every target of it is cooling down, or it cannot be quoted: the call is
 * then refused as the budget says.
 */
export function cheaperRoute(snap: RelaySnapshot, model: string, call: RouteCall, now: number, random: () => number): PricedRoute | undefined {
  try {
    const plan = snap.router.resolve(call.key, model, call.route.wire);
    const cursor = new RouteCursor(plan.stages, random, plan.targets.length > 1);
    const first = cursor.next(now);
    return first === undefined ? undefined : priceRoute(snap.pricing, plan, cursor, first, { ...call, fields: { ...call.fields, model } });
  } catch (error) {
    if (error instanceof RelayError) return undefined;
    throw error;
  }
}

/** The entry of the call served by `model` (the cheaper route's first target) instead of the model asked for. */
export function downgradedStart(start: JournalStart, model: string, first: Target): JournalStart {
  return { ...start, model, provider: first.provider.id, upstreamModel: first.upstreamModel, region: first.provider.region, downgradedFrom: start.model };
}

/** The answer's headers of a downgraded call: the model that served it and the one asked for. */
export function downgradeHeaders(start: JournalStart): Record<string, string> {
  return { "x-renio-model": start.model ?? "", "x-renio-downgraded-from": start.downgradedFrom ?? "" };
}
