import type { Config } from "../config/config-schema.ts";
import { createBudgetCatalog, type BudgetCatalog } from "../budgets/budget-catalog.ts";
import { costOf } from "./cost.ts";
import { createPriceBook, type Price } from "./price-book.ts";
import { reservationFor, type Reservation } from "./reservation.ts";
import { defaultOutputTokens } from "../budgets/default-output.ts";
import type { BudgetCharge } from "../budgets/budget-charge.ts";
import { keySubject, type ChargeSubject } from "../budgets/budget-scope.ts";

/** Who a call is for beyond its key: its team, end user and tags. */
export type CallIdentity = Pick<ChargeSubject, "team" | "endUser" | "tags">;
import { RelayError } from "../shared/relay-error.ts";
import type { ServerToolKind, Usage } from "../shared/usage.ts";
import type { CallerKey } from "../keys/keyring.ts";
import type { RouteSpec } from "../shared/route-spec.ts";
import { takesMaxUses, type RequestReferences, type ServerTool } from "./request-references.ts";

/** What a call may cost, decided before it is sent. */
export interface CallQuote {
  /** Null when the model has no price (only allowed when no strict budget needs one). */
  readonly price: Price | null;
  /** Upper bound reserved against every charge. */
  readonly reserved: number;
  /** Upper bound of the call's input + output tokens (0 for calls that cost nothing). */
  readonly reservedTokens: number;
  readonly charges: readonly BudgetCharge[];
  /** What the reservation is made of (absent for calls that cost nothing); for the reason of a budget refusal. */
  readonly reservation?: Reservation;
  /** The public model priced. */
  readonly model?: string;
  /** Attempts the reservation has room for (1 + `retry.billedRetries`); absent: one. */
  readonly attempts?: number;
  /**
   * Set when a strict budget applies and the request set no output limit: the limit reserved
   * per output, which the relay adds to the upstream request so the provider enforces it.
   */
  readonly enforceOutputLimit?: number;
  /**
   * Set when a strict budget bounds a Responses request's server-tool calls by the configured
   * `budget.maxToolCalls`: the relay adds it as `max_tool_calls` so the provider enforces it.
   */
  readonly enforceMaxToolCalls?: number;
  /**
   * Set when a strict budget bounds an Anthropic server tool that has no `max_uses` by
   * `budget.maxToolCalls`: the relay sets it as that tool's `max_uses`.
   */
  readonly enforceToolMaxUses?: number;
}

/** What quote needs about a call. */
export interface QuoteInput {
  key: CallerKey;
  route: RouteSpec;
  model: string;
  upstreamModel: string;
  requestBytes: number;
  maxOutputTokens: number | undefined;
  choices?: number;
  references?: RequestReferences;
  /** The request's `service_tier`. */
  serviceTier?: string;
  /** The request's `max_tool_calls`. */
  maxToolCalls?: number;
  /** Who the call is for (budget scopes by team, tag and end user); absent: the key alone. */
  who?: CallIdentity;
  now: Date;
}

/** Prices calls and settles their real cost. */
export interface CallPricing {
  quote(input: QuoteInput): CallQuote;
  /** The price `quote` uses for a target: its public model's, else its upstream model's; null when unpriced. */
  priceOf(model: string, upstreamModel: string): Price | null;
  /**
   * The real cost from the provider's final usage; without it (none seen, or a cut stream's
   * lower bound, which the caller passes as null) the reservation when the call may have been
   * billed, else zero.
   */
  settle(quote: CallQuote, usage: Usage | null, mayHaveBeenBilled: boolean): number;
}

const FREE: Price = { input: 0, cachedInput: 0, output: 0 };

/** Builds the price book once, from config; each call is charged by the budgets `catalog` holds then (default: the config's). */
export function createCallPricing(config: Config, catalog: BudgetCatalog = createBudgetCatalog(config.budgets, config.budget.mode)): CallPricing {
  const prices = createPriceBook(config.prices);
  const outputDefault = defaultOutputTokens(config.budget.defaultOutputTokens);
  const priceOf = (model: string, upstreamModel: string): Price | null => prices.priceOf(model) ?? prices.priceOf(upstreamModel) ?? null;
  return {
    priceOf,
    quote({ key, route, model, upstreamModel, requestBytes, maxOutputTokens, choices, references, serviceTier, maxToolCalls, who, now }) {
      const known = priceOf(model, upstreamModel);
      if (!route.billable) return { price: known ?? FREE, reserved: 0, reservedTokens: 0, charges: [] };
      // Fresh charge objects per call: the amount is filled in once the reservation is known.
      const charges = catalog.plan().chargesFor(who === undefined ? keySubject(key.id, key.project, catalog.teamOf(key.project)) : { keyId: key.id, project: key.project, ...who }, 0, now);
      const strict = charges.some((charge) => charge.mode === "strict");
      let price = known;
      if (price === null) {
        if (strict && config.budget.unpricedModels === "refuse") {
          throw new RelayError(403, "model_not_priced", `The model \`${model}\` has no price, so a strict budget cannot be enforced; add it to \`prices\` in the config`);
        }
        price = strict ? FREE : null;
      }
      let tools: ToolBound = { uses: {} };
      if (strict && references !== undefined) {
        refuseUnboundedInput(references, price ?? FREE, model);
        tools = boundToolUses(references.serverTools, { price: price ?? FREE, model, route: route.path, maxToolCalls, cap: config.budget.maxToolCalls });
      }
      const reservation = reservationFor({
        inputByReference: references?.inputByReference ?? false,
        requestBytes,
        maxOutputTokens: route.hasOutput ? maxOutputTokens : 0,
        defaultOutputTokens: outputDefault(model, upstreamModel),
        choices: route.hasOutput ? (choices ?? 1) : 1,
        serviceTier,
        toolUses: tools.uses,
        price: price ?? FREE,
        model,
      });
      const amount = reservation.amount;
      for (const charge of charges) charge.amount = amount;
      const quote: { -readonly [K in keyof CallQuote]: CallQuote[K] } = { price, reserved: amount, reservedTokens: reservation.tokens, charges, reservation, model };
      if (strict && route.hasOutput && maxOutputTokens === undefined) quote.enforceOutputLimit = reservation.outputTokens;
      if (tools.enforceMaxToolCalls !== undefined) quote.enforceMaxToolCalls = tools.enforceMaxToolCalls;
      if (tools.enforceMaxUses !== undefined) quote.enforceToolMaxUses = tools.enforceMaxUses;
      return quote;
    },
    settle(quote, usage, mayHaveBeenBilled) {
      if (quote.price === null) return 0;
      if (usage !== null) return costOf(usage, quote.price);
      return mayHaveBeenBilled ? quote.reserved : 0;
    },
  };
}

/**
 * Under a strict budget, refuses input by reference to a model without a known context window
 * (no reservation can bound it).
 */
function refuseUnboundedInput(references: RequestReferences, price: Price, model: string): void {
  if (references.inputByReference && price.contextWindow === undefined) {
    throw new RelayError(403, "input_not_bounded", `The request sends input by reference (a URL, file id, earlier response or server-tool results) and \`${model}\` has no known context window to bound it, so a strict budget refuses it; set \`contextWindow\` in its \`prices\` entry`);
  }
}

/** The server-tool uses a strict budget reserves, and the bounds the relay adds. */
interface ToolBound {
  uses: Partial<Record<ServerToolKind, number>>;
  /** `max_tool_calls` to add (Responses). */
  enforceMaxToolCalls?: number;
  /** `max_uses` to add to each Anthropic server tool that takes one and has none. */
  enforceMaxUses?: number;
}

/**
 * Bounds the uses of per-use server tools under a strict budget: each tool needs a per-use
 * price (`prices.<model>.tools`) and a bound the provider enforces: its own `max_uses`
 * (Anthropic), else `budget.maxToolCalls` (`cap`) added in the field the wire format has: an
 * Anthropic web search or fetch tool's `max_uses`, the Responses API's `max_tool_calls` (unless
 * the request sets one). `max_tool_calls` caps all built-in tool calls together, so its uses
 * are reserved at the dearest of those tools. A tool nothing can bound (chat's
 * `web_search_options`, Anthropic code execution) is refused with 403 `tool_not_bounded`.
 */
function boundToolUses(
  tools: readonly ServerTool[],
  context: { price: Price; model: string; route: string; maxToolCalls: number | undefined; cap: number },
): ToolBound {
  const { price, model, route, maxToolCalls, cap } = context;
  const responses = route === "/v1/responses";
  const bound: ToolBound = { uses: {} };
  const uses = bound.uses;
  let shared: ServerToolKind | undefined;
  for (const tool of tools) {
    const perUse = price.tools?.[tool.kind];
    if (perUse === undefined) {
      throw new RelayError(403, "tool_not_bounded", `The tool \`${tool.type}\` is billed per use and \`${model}\` has no per-use price for it, so a strict budget refuses it; set \`tools.${tool.kind}\` in its \`prices\` entry`);
    }
    if (tool.maxUses !== undefined) uses[tool.kind] = (uses[tool.kind] ?? 0) + tool.maxUses;
    else if (responses) {
      if (shared === undefined || perUse > (price.tools?.[shared] ?? 0)) shared = tool.kind;
    } else if (route === "/v1/messages" && takesMaxUses(tool.kind)) {
      uses[tool.kind] = (uses[tool.kind] ?? 0) + cap;
      bound.enforceMaxUses = cap;
    } else {
      const how = tool.type === "web_search_options" ? "use the Responses API, whose `max_tool_calls` bounds it" : "set `max_uses` on the tool";
      throw new RelayError(403, "tool_not_bounded", `The tool \`${tool.type}\` is billed per use and nothing bounds its uses, so a strict budget refuses it; ${how}`);
    }
  }
  if (shared === undefined) return bound;
  uses[shared] = (uses[shared] ?? 0) + (maxToolCalls ?? cap);
  if (maxToolCalls === undefined) bound.enforceMaxToolCalls = cap;
  return bound;
}
