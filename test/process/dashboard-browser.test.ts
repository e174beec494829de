import assert from "node:assert/strict";
import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import OpenAI from "openai";
import type { Browser, Page } from "playwright-core";
import type { JournalEntry } from "../../src/shared/journal-records.ts";
import type { Store } from "../../src/storage/store.ts";
import { TEST_KEY, type RelayUnderTest } from "../support/relay-harness.ts";
import { finishedEntries } from "../support/relay-calls.ts";
import { startMockRelay } from "../support/with-relay.ts";

/**
 * The dashboard in a real browser: Debian's Chromium, driven by playwright-core, against a
 * relay that served real traffic through the official openai SDK (successes, upstream errors,
 * a budget refusal). Each page loads at 1280 px and at a phone's 390 px, with no console
 * error; its figures match the journal; key ids and model names holding HTML stay text; a
 * wrong token gets the login page. Screenshots go to test-artifacts/screenshots/.
 */

const CHROMIUM = process.env.RENIO_CHROMIUM ?? "/usr/bin/chromium";
const SKIP = existsSync(CHROMIUM) ? false : `no Chromium at ${CHROMIUM} (apt-get install -y chromium)`;
const SCREENSHOTS = join(import.meta.dirname ?? ".", "..", "..", "test-artifacts", "screenshots");
const ADMIN_TOKEN = "dashboard-admin-token-0123456789";
const INJECTED = `<img src=x onerror="window.__pwned=1">`;
const EVIL_KEY = "sk-renio-evil-key-for-tests-0003";
const TIGHT_KEY = "sk-renio-tight-key-for-tests-0004";
const PAGES = ["overview", "budgets", "keys", "models", "journal", "guardrails", "live", "audit"] as const;
const WIDTHS = [1280, 390] as const;
/** Admin endpoints other branches add later: the dashboard shows them as not available (a 404 Chromium logs). */
const NOT_YET = [/\/admin\/keys$/, /\/admin\/alerts$/];

let relay: RelayUnderTest;
let store: Store;
let stop: () => Promise<void>;
let browser: Browser;
let entries: JournalEntry[];

/** The number in a money text (`1,234.5678 USD`). */
const amountOf = (text: string): number => Number(text.replace(/ [A-Z]{3}$/, "").replaceAll(",", ""));

async function call(apiKey: string, model: string, fault?: string): Promise<string> {
  const client = new OpenAI({ apiKey, baseURL: `${relay.url}/v1`, maxRetries: 0, timeout: 10_000 });
  try {
    const { response } = await client.chat.completions
      .create({ model, messages: [{ role: "user", content: "hi" }] }, fault ? { headers: { "x-mock-fault": fault } } : {})
      .withResponse();
    return response.headers.get("x-request-id")!;
  } catch (error) {
    assert.ok(error instanceof OpenAI.APIError, String(error));
    return error.headers!.get("x-request-id")!;
  }
}

describe("dashboard in Chromium", { skip: SKIP }, () => {
  before(async () => {
    ({ relay, store, stop } = await startMockRelay({
      config: {
        server: { host: "127.0.0.1", port: 0, shutdownGraceMs: 2000, adminToken: ADMIN_TOKEN },
        models: { "mock-gpt": { provider: "mock" }, [INJECTED]: { provider: "mock" } },
        keys: [
          { id: "test", secret: TEST_KEY, project: "tests" },
          { id: INJECTED, secret: EVIL_KEY, project: INJECTED },
          { id: "tight", secret: TIGHT_KEY, project: "tight" },
        ],
        prices: { "mock-gpt": { input: 2, output: 8 }, [INJECTED]: { input: 2, output: 8 } },
        budgets: [
          { id: "tests-monthly", scope: { project: "tests" }, period: "month", limit: 5, mode: "strict" },
          { id: "tight-daily", scope: { project: "tight" }, period: "day", limit: 0.000001, mode: "strict" },
        ],
      },
    }));
    const ids = [
      ...(await Promise.all([1, 2, 3, 4].map(() => call(TEST_KEY, "mock-gpt")))),
      await call(EVIL_KEY, INJECTED),
      await call(TEST_KEY, "mock-gpt", "status=502"),
      await call(TEST_KEY, "mock-gpt", "status=429"),
      await call(TIGHT_KEY, "mock-gpt"),
    ];
    const finished = await finishedEntries(store, ids);
    entries = [...finished.values()];
    assert.equal(entries.filter((e) => e.outcome === "refused").length, 1, "the tight budget refused one call");
    assert.equal(entries.filter((e) => e.outcome === "upstream_error").length, 2);
    const { chromium } = await import("playwright-core");
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox", "--headless=new"] });
    mkdirSync(SCREENSHOTS, { recursive: true });
  });

  after(async () => {
    await browser?.close();
    await stop?.();
  });

  /** A page at `width`, recording console errors and uncaught exceptions. */
  async function open(width: number, errors: string[]): Promise<Page> {
    const context = await browser.newContext({ viewport: { width, height: width > 600 ? 860 : 844 } });
    const page = await context.newPage();
    page.on("pageerror", (error) => errors.push(`uncaught: ${error.message}`));
    page.on("console", (message) => {
      if (message.type() !== "error") return;
      if (NOT_YET.some((re) => re.test(message.location().url))) return;
      errors.push(`console: ${message.text()} (${message.location().url})`);
    });
    await page.goto(`${relay.url}/dashboard/`);
    return page;
  }

  async function signIn(page: Page, token: string): Promise<void> {
    await page.fill("#token", token);
    await page.click("#login button[type=submit]");
  }

  /** Waits until every section of the page has loaded (no "Loading…" left). */
  async function loaded(page: Page): Promise<void> {
    await page.waitForFunction(() => !document.getElementById("page")!.textContent!.includes("Loading…"));
  }

  for (const width of WIDTHS) {
    test(`every page at ${width} px: figures from the journal, injected HTML shown as text, no console errors`, async () => {
      const errors: string[] = [];
      const page = await open(width, errors);
      await signIn(page, ADMIN_TOKEN);
      for (const name of PAGES) {
        await page.evaluate((hash) => (location.hash = hash), name);
        await page.waitForSelector(`#page[data-page="${name}"]`);
        await loaded(page);
        await page.screenshot({ path: join(SCREENSHOTS, `${name}-${width}.png`) });
        {
          const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
          assert.ok(overflow <= 0, `${name} at ${width} px scrolls sideways by ${overflow} px`);
        }
      }

      await page.evaluate(() => (location.hash = "overview"));
      await loaded(page);
      const today = entries.filter((e) => e.receivedAt >= Math.floor(Date.now() / 86_400_000) * 86_400_000);
      assert.equal(await page.textContent('[data-figure="today-calls"]'), String(today.length));
      assert.equal(await page.textContent('[data-figure="today-refused"]'), "1");
      assert.equal(await page.textContent('[data-figure="today-errors"]'), "2");
      const cost = today.reduce((sum, e) => sum + (e.cost ?? 0), 0);
      assert.ok(cost > 0);
      const todayCost = (await page.textContent('[data-figure="today-cost"]'))!;
      assert.match(todayCost, /^\d[\d,]*\.\d{4} USD$/, "money: 4 decimals and the currency");
      assert.equal(amountOf(todayCost).toFixed(4), cost.toFixed(4));
      await page.waitForFunction(() => document.querySelectorAll(".chart canvas").length === 2);
      assert.equal(await page.locator(".chart canvas").count(), 2, "uPlot drew both overview charts");

      await page.evaluate(() => (location.hash = "budgets"));
      await loaded(page);
      const usage = new Map((await store.budgetUsage()).map((row) => [row.budgetId, row]));
      const spent = await page.textContent('[data-budget="tests-monthly"] [data-figure="spent"]');
      assert.equal(amountOf(spent!).toFixed(4), usage.get("tests-monthly")!.spent.toFixed(4));
      assert.match((await page.textContent('[data-budget="tests-monthly"] .budget-head'))!, /project tests/, "the scope in words");
      assert.match((await page.textContent('[data-budget="tight-daily"] .budget-head'))!, /refusing · 1 in the last hour/, "a budget refusing calls says so");

      await page.evaluate(() => (location.hash = "keys"));
      await loaded(page);
      const keyRow = page.locator("section", { hasText: "By key" }).locator("tr", { hasText: "test" }).first();
      assert.ok((await keyRow.textContent())!.includes(String(entries.filter((e) => e.keyId === "test").length)));
      assert.ok((await page.getByText(INJECTED, { exact: true }).count()) >= 1, "the injected key id is shown as text");
      // Sortable: a click on "Spend" orders the key table by spend, largest first; another click reverses it.
      const byKey = page.locator("section", { hasText: "By key" });
      const spendOf = async () => (await byKey.locator("tbody tr td:nth-child(8)").allTextContents()).map(amountOf);
      await byKey.locator("th", { hasText: "Spend" }).click();
      const descending = await spendOf();
      assert.deepEqual(descending, [...descending].sort((a, b) => b - a));
      await byKey.locator("th", { hasText: "Spend" }).click();
      assert.deepEqual(await spendOf(), [...descending].reverse());

      await page.evaluate(() => (location.hash = "models"));
      await loaded(page);
      assert.ok((await page.getByText(INJECTED, { exact: true }).count()) >= 1, "the injected model name is shown as text");

      await page.evaluate(() => (location.hash = "journal"));
      await loaded(page);
      assert.equal(await page.locator("#page tbody tr").count(), entries.length);
      await page.selectOption("select[name=outcome]", "upstream_error");
      await page.click(".filters button[type=submit]");
      // The outcome filter of `renio journal list`: only the two upstream errors are left.
      await page.waitForFunction(() => document.querySelectorAll("#page tbody tr").length === 2);
      for (const row of await page.locator("#page tbody tr").allTextContents()) assert.match(row, /upstream_error/);
      await page.evaluate(() => (location.hash = "journal"));
      await page.waitForFunction(() => document.querySelectorAll("#page tbody tr").length > 2);
      await page.locator("#page tbody tr", { hasText: "refused" }).first().click();
      const refused = entries.find((e) => e.outcome === "refused")!;
      await page.waitForSelector(`[data-entry="${refused.id}"]`);
      assert.ok((await page.textContent(".detail"))!.includes(refused.errorCode!));

      assert.equal(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned), undefined, "no injected script ran");
      assert.equal(await page.locator("#page img").count(), 0, "no injected element was created");
      assert.deepEqual(errors, []);
      await page.context().close();
    });
  }

  test("a wrong token gets the login page, not data", async () => {
    const errors: string[] = [];
    const page = await open(1280, errors);
    await signIn(page, "not-the-admin-token");
    await page.waitForSelector("#login:not([hidden])");
    // The refusal's text follows the sign-in's answer: wait for it, then check it.
    await page.locator("#login-error", { hasText: "not accepted" }).waitFor();
    assert.match((await page.textContent("#login-error"))!, /not accepted/);
    assert.equal(await page.isVisible("#app"), false);
    assert.equal(await page.locator("[data-figure]").count(), 0);
    await page.screenshot({ path: join(SCREENSHOTS, "login-1280.png") });
    // A token already in the tab's storage that the relay rejects: the login page again.
    await page.evaluate(() => sessionStorage.setItem("renio.adminToken", "stale-token"));
    await page.reload();
    await page.waitForSelector("#login:not([hidden])");
    // The refusal's text follows the sign-in's answer: wait for it, then check it.
    await page.locator("#login-error", { hasText: "not accepted" }).waitFor();
    assert.match((await page.textContent("#login-error"))!, /not accepted/);
    assert.equal(await page.evaluate(() => sessionStorage.getItem("renio.adminToken")), null);
    assert.deepEqual(errors.filter((e) => !e.includes("401")), []);
    await page.context().close();
  });
});

