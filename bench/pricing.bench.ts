/** Micro-benchmark of pricing a call: price lookup, reservation, budget charges. `node_modules/.bin/bun bench/pricing.bench.ts` */
import { Bench } from "tinybench";
import { createBudgetPlan } from "../src/budgets/budget-plan.ts";
import { keySubject } from "../src/budgets/budget-scope.ts";
import { costOf } from "../src/pricing/cost.ts";
import { createPriceBook } from "../src/pricing/price-book.ts";
import { reservationFor } from "../src/pricing/reservation.ts";
import { validateConfig } from "../src/config/config-load.ts";
import { createCallPricing } from "../src/pricing/call-pricing.ts";
import { createKeyring } from "../src/keys/keyring.ts";
import { ROUTES } from "../src/shared/route-spec.ts";

/** The bench relay's setup plus a project and a key budget: three charges per call. */
const config = validateConfig({
  providers: { mock: { type: "mock", baseUrl: "http://127.0.0.1:1" } },
  models: { "mock-gpt": { provider: "mock" }, "gpt-4o-2024-08-06": { provider: "mock" } },
  keys: [{ id: "bench", secret: "renio-bench-secret-0001", project: "team-a" }],
  budgets: [
    { id: "bench-total", scope: "total", period: "total", limit: 1e6, mode: "strict" },
    { id: "team-a-month", scope: { project: "team-a" }, period: "month", limit: 1000 },
    { id: "bench-day", scope: { key: "bench" }, period: "day", limit: 100, mode: "observe" },
  ],
  prices: { "mock-gpt": { input: 1, output: 2 } },
});
const key = createKeyring(config.keys).find("renio-bench-secret-0001")!;
const route = ROUTES.get("/v1/chat/completions")!;
const prices = createPriceBook(config.prices);
const plan = createBudgetPlan(config.budgets, config.budget.mode);
/** The same budgets plus a per-end-user budget of the key's project, a team budget and a tag budget. */
const spenderPlan = createBudgetPlan(
  [
    ...config.budgets,
    { id: "users", scope: { endUser: { project: key.project } }, period: "day", limit: 1 },
    { id: "team", scope: { team: "growth" }, period: "month", limit: 100 },
    { id: "search", scope: { tag: { name: "feature", value: "search" } }, period: "day", limit: 10 },
  ],
  config.budget.mode,
  new Map([[key.project, "growth"]]),
);
const spender = { keyId: key.id, project: key.project, team: "growth", endUser: "user-4711", tags: [["feature", "search"]] as Array<[string, string]> };
const pricing = createCallPricing(config);
const price = prices.priceOf("mock-gpt")!;
const now = new Date();
const quoteInput = { key, route, model: "mock-gpt", upstreamModel: "mock-gpt", requestBytes: 260, maxOutputTokens: 16, now };
const quote = pricing.quote(quoteInput);
const usage = { inputTokens: 52, cachedInputTokens: 0, outputTokens: 16 };
if (quote.charges.length !== 3) throw new Error(`benchmark setup: expected 3 charges, got ${quote.charges.length}`);

const bench = new Bench({ name: "pricing (3 budgets: total strict, project month, key day observe)", time: 250, warmupTime: 50 });
bench
  .add("priceBook.priceOf, config model", () => {
    if (prices.priceOf("mock-gpt") === undefined) throw new Error("price");
  })
  .add("priceBook.priceOf, dated built-in model (memoized)", () => {
    prices.priceOf("gpt-4o-2024-08-06");
  })
  .add("reservationFor (260-byte body, max_tokens 16)", () => {
    reservationFor({ requestBytes: 260, maxOutputTokens: 16, price, model: "mock-gpt" });
  })
  .add("budgetPlan.chargesFor (3 budgets)", () => {
    plan.chargesFor(keySubject(key.id, key.project), 0.001, now);
  })
  .add("budgetPlan.chargesFor (3 budgets + end user, team, tag)", () => {
    spenderPlan.chargesFor(spender, 0.001, now);
  })
  .add("pricing.quote (price + reservation + charges)", () => {
    pricing.quote(quoteInput);
  })
  .add("pricing.quote with new Date()", () => {
    pricing.quote({ ...quoteInput, now: new Date() });
  })
  .add("costOf(usage)", () => {
    costOf(usage, price);
  })
  .add("pricing.settle(usage)", () => {
    pricing.settle(quote, usage, true);
  });

await bench.run();
console.log(bench.name);
console.table(bench.table());
