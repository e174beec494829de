import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { RelayError } from "../shared/relay-error.ts";
import { ROUTES } from "../shared/route-spec.ts";
import { createCallPricing, type CallPricing, type CallQuote, type QuoteInput } from "./call-pricing.ts";
import type { RequestReferences } from "./request-references.ts";
import { quoteRoute } from "./route-quote.ts";
import type { RoutePlan, Target } from "../routing/route-plan.ts";
import { seededRandom, testRouter } from "../../test/support/routing-test-support.ts";

const CHAT = ROUTES.get("/v1/chat/completions")!;
const RESPONSES = ROUTES.get("/v1/responses")!;
const STRICT = { budgets: [{ id: "total", scope: "total", period: "total", limit: 1_000_000, mode: "strict" }] };

/** The pricing of `prices`, with the upstream models it was asked to quote, in order. */
function countingPricing(prices: Record<string, unknown>, models: Record<string, unknown>): { pricing: CallPricing; quoted: string[]; plan: (model: string) => RoutePlan; input: (extra?: Partial<QuoteInput>) => Omit<QuoteInput, "model" | "upstreamModel"> } {
  const { config, router, key } = testRouter(models, { ...STRICT, prices });
  const real = createCallPricing(config);
  const quoted: string[] = [];
  const pricing: CallPricing = { ...real, quote: (input) => (quoted.push(input.upstreamModel), real.quote(input)) };
  return {
    pricing,
    quoted,
    plan: (model) => router.resolve(key, model, "openai"),
    input: (extra = {}) => ({ key, route: CHAT, requestBytes: 300, maxOutputTokens: undefined, now: new Date(0), ...extra }),
  };
}

function target(plan: RoutePlan, upstreamModel: string): Target {
  return plan.targets.find((candidate) => candidate.upstreamModel === upstreamModel)!;
}

const POOL = { targets: [{ provider: "a", model: "cheap" }, { provider: "b", model: "mid" }, { provider: "c", model: "dear" }] };

describe("quoteRoute", () => {
  it("reserves the dearest target's bound quoting only the first and the dearest; another target is quoted when an attempt needs it", () => {
    const setup = countingPricing({ cheap: { input: 1, output: 2 }, mid: { input: 2, output: 4 }, dear: { input: 3, output: 6, maxOutputTokens: 8000 } }, { pool: POOL });
    const plan = setup.plan("pool");
    const quotes = quoteRoute(setup.pricing, plan, target(plan, "cheap"), setup.input());
    assert.deepEqual(setup.quoted, ["cheap", "dear"]);
    assert.equal(quotes.call.reserved, quotes.of(target(plan, "dear"))!.reserved);
    assert.ok(quotes.call.reserved > quotes.of(target(plan, "cheap"))!.reserved);
    assert.equal(quotes.call.reservedTokens, 300 + 8000, "the dearest target's output maximum bounds the tokens");
    const mid = quotes.of(target(plan, "mid"))!;
    assert.deepEqual(setup.quoted, ["cheap", "dear", "mid"]);
    assert.equal(mid.price?.input, 2);
    assert.ok(mid.reserved < quotes.call.reserved);
    quotes.of(target(plan, "mid"));
    assert.equal(setup.quoted.length, 3, "each target is quoted once per call");
  });

  it("quotes only the first target when its price bounds every other's", () => {
    const setup = countingPricing({ cheap: { input: 1, output: 2 }, mid: { input: 2, output: 4 }, dear: { input: 3, output: 6 } }, { pool: POOL });
    const plan = setup.plan("pool");
    const quotes = quoteRoute(setup.pricing, plan, target(plan, "dear"), setup.input());
    assert.deepEqual(setup.quoted, ["dear"]);
    assert.equal(quotes.call, quotes.of(target(plan, "dear")));
  });

  it("quotes every target when their prices cross, and reserves the one dearest for this request", () => {
    const setup = countingPricing({ "input-dear": { input: 10, output: 1 }, "output-dear": { input: 1, output: 10 } }, { crossed: { targets: [{ provider: "a", model: "input-dear" }, { provider: "b", model: "output-dear" }] } });
    const plan = setup.plan("crossed");
    const long = quoteRoute(setup.pricing, plan, target(plan, "output-dear"), setup.input({ requestBytes: 100_000, maxOutputTokens: 10 }));
    assert.deepEqual(setup.quoted, ["output-dear", "input-dear"]);
    assert.equal(long.call.price?.input, 10);
    const short = quoteRoute(setup.pricing, plan, target(plan, "input-dear"), setup.input({ requestBytes: 100, maxOutputTokens: 10_000 }));
    assert.equal(short.call.price?.output, 10);
  });

  it("a dearest target that refuses the request (output limit above its maximum) leaves the call to the others", () => {
    const setup = countingPricing({ cheap: { input: 1, output: 2 }, mid: { input: 2, output: 4 }, dear: { input: 3, output: 6, maxOutputTokens: 8000 } }, { pool: POOL });
    const plan = setup.plan("pool");
    const quotes = quoteRoute(setup.pricing, plan, target(plan, "cheap"), setup.input({ maxOutputTokens: 9000 }));
    assert.equal(quotes.of(target(plan, "dear")), undefined);
    assert.equal(quotes.call.price?.input, 2, "mid, the dearest that accepts, is reserved");
    assert.equal(quotes.call.reservedTokens, 300 + 9000);
  });

  it("reserves exactly what quoting every target reserves, for random prices and requests", () => {
    const random = seededRandom(7);
    const pick = <T>(values: readonly T[]): T => values[Math.floor(random() * values.length)]!;
    const maybe = <T>(value: T): T | undefined => (random() < 0.4 ? value : undefined);
    // Rates of one shape scaled per model, so that some plans have a price bounding the others and some do not.
    const rates = (scale: number) => ({ input: scale * pick([0.5, 1]), output: scale * pick([1, 2]), ...(random() < 0.2 ? { cachedInput: scale * pick([0.1, 4]) } : {}) });
    const names = ["p0", "p1", "p2", "p3"];
    let shortcuts = 0;
    let fullPasses = 0;
    for (let round = 0; round < 100; round++) {
      const prices: Record<string, unknown> = {};
      // Mostly, a dearer model also has the larger limits (so its price bounds the others'); else limits at random.
      const ordered = random() < 0.5;
      for (const [i, name] of names.slice(0, 3).entries()) {
        const scale = i + 1;
        prices[name] = JSON.parse(JSON.stringify({
          ...rates(scale),
          maxOutputTokens: ordered ? 4096 * scale : maybe(pick([5000, 8000])),
          contextWindow: ordered ? 50_000 * scale : pick([50_000, 200_000]),
          longContext: random() < 0.2 ? { aboveInputTokens: pick([500, 200_000]), ...rates(scale * 2) } : undefined,
          serviceTiers: random() < 0.2 ? { priority: rates(scale * 2) } : undefined,
          tools: maybe({ web_search: ordered ? scale * 0.01 : pick([0.01, 5]) }),
        }));
      }
      // p3, when in the pool, has no price: reserved at zero rates (a strict budget allows it unless unpricedModels says refuse).
      const pool = random() < 0.3 ? names : names.slice(0, 3);
      const setup = countingPricing(prices, { pool: { targets: pool.map((model, i) => ({ provider: "abc"[i % 3], model })) } });
      const plan = setup.plan("pool");
      for (let call = 0; call < 10; call++) {
        const references: RequestReferences | undefined = random() < 0.5 ? { inputByReference: random() < 0.5, serverTools: random() < 0.5 ? [{ type: "web_search_preview", kind: "web_search" }] : [] } : undefined;
        const input = setup.input({
          route: random() < 0.4 ? RESPONSES : CHAT,
          requestBytes: pick([100, 1000, 300_000]),
          maxOutputTokens: maybe(pick([10, 6000, 9000])),
          serviceTier: maybe("priority"),
          ...(references === undefined ? {} : { references, maxToolCalls: 3 }),
        });
        const first = pick(plan.targets);
        const every = plan.targets.map((to) => {
          try {
            return setup.pricing.quote({ ...input, model: to.model, upstreamModel: to.upstreamModel });
          } catch (error) {
            if (!(error instanceof RelayError)) throw error;
            return error;
          }
        });
        const firstQuote = every[plan.targets.indexOf(first)]!;
        if (firstQuote instanceof RelayError) {
          assert.throws(() => quoteRoute(setup.pricing, plan, first, input), RelayError);
          continue;
        }
        const accepted = every.filter((quote): quote is CallQuote => !(quote instanceof RelayError));
        const before = setup.quoted.length;
        const quotes = quoteRoute(setup.pricing, plan, first, input);
        if (setup.quoted.length - before < plan.targets.length) shortcuts++;
        else fullPasses++;
        const context = `round ${round}, call ${call}: ${JSON.stringify({ prices, first: first.upstreamModel, input: { ...input, key: undefined } })}`;
        assert.equal(quotes.call.reserved, Math.max(...accepted.map((quote) => quote.reserved)), context);
        assert.equal(quotes.call.reservedTokens, Math.max(...accepted.map((quote) => quote.reservedTokens)), context);
        assert.equal(quotes.call.price === null, accepted.every((quote) => quote.reserved <= firstQuote.reserved) && firstQuote.price === null, context);
        for (const [i, to] of plan.targets.entries()) {
          const expected = every[i]!;
          assert.equal(quotes.of(to)?.reserved, expected instanceof RelayError ? undefined : expected.reserved, context);
        }
      }
    }
    assert.ok(shortcuts > 20 && fullPasses > 20, `both ways were taken: ${shortcuts} by the bounding price, ${fullPasses} by quoting every target`);
  });
});
