import assert from "node:assert/strict";
import { existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import OpenAI from "openai";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { freePort } from "../support/free-port.ts";
import { OIDC_CLIENT, startOidcProvider, type LocalOidcProvider } from "../support/oidc-provider.ts";
import { startMockRelay, type MockRelay } from "../support/with-relay.ts";

/**
 * An operator's first hour in Debian's Chromium (playwright-core): sign in through a real
 * OpenID Connect provider (oidc-provider on loopback, its own login and consent pages), create
 * a key and call with it through the official openai SDK (mock provider), see the call in
 * Overview and read it in the journal, create and pause a budget and see its badge and the
 * refusal, revoke the key and see it refused; the audit names the person. A viewer sees no
 * managing controls. Every page at 390 and 1280 px, light and dark, without sideways scroll;
 * screenshots in the test's temp dir.
 */

const CHROMIUM = process.env.RENIO_CHROMIUM ?? "/usr/bin/chromium";
const SKIP = existsSync(CHROMIUM) ? false : `no Chromium at ${CHROMIUM} (apt-get install -y chromium)`;
const PEOPLE = new Map([
  ["ada", { email: "ada@example.com", groups: ["platform-admins"] }],
  ["vic", { email: "vic@example.com", groups: ["engineers"] }],
]);
const INJECTED = `<img src=x onerror="window.__pwned=1">`;
const PAGES = ["overview", "budgets", "keys", "models", "journal", "guardrails", "live", "audit"] as const;
/** Overview loads its figures again every 15 s (REFRESH_MS in src/http/dashboard/overview-view.js). */
const OVERVIEW_REFRESH_MS = 15_000;

describe("the first hour in the dashboard, in Chromium", { skip: SKIP }, () => {
  let provider: LocalOidcProvider;
  let opened: MockRelay;
  let relayUrl: string;
  let browser: Browser;
  let shots: string;
  let stopped = false;

  before(async () => {
    const port = await freePort();
    relayUrl = `http://127.0.0.1:${port}`;
    const redirectUrl = `${relayUrl}/dashboard/auth/callback`;
    provider = await startOidcProvider(redirectUrl, PEOPLE);
    opened = await startMockRelay({
      config: {
        server: {
          host: "127.0.0.1", port, shutdownGraceMs: 2000,
          admin: {
            oidc: {
              issuer: provider.issuer, clientId: OIDC_CLIENT.clientId, clientSecret: OIDC_CLIENT.clientSecret, redirectUrl,
              scopes: ["email", "groups"], roles: { admin: ["platform-admins"], read: ["engineers"] },
            },
          },
        },
        models: { "mock-gpt": { provider: "mock" } },
        prices: { "mock-gpt": { input: 2, output: 8 } },
        keys: [],
      },
    });
    const { chromium } = await import("playwright-core");
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox", "--headless=new"] });
    shots = mkdtempSync(join(tmpdir(), "renio-dashboard-shots-"));
  });

  after(async () => {
    await browser?.close();
    if (!stopped) await opened?.stop();
    await provider?.stop();
  });

  async function context(width: number, colorScheme: "light" | "dark" = "light"): Promise<{ context: BrowserContext; page: Page; errors: string[] }> {
    const context = await browser.newContext({ viewport: { width, height: width > 600 ? 860 : 844 }, colorScheme });
    const page = await context.newPage();
    const errors: string[] = [];
    page.on("pageerror", (error) => errors.push(`uncaught: ${error.message}`));
    page.on("console", (message) => {
      // The provider's own pages are not ours; 401/403/429 answers the test provokes are expected.
      if (message.type() === "error" && message.location().url.startsWith(relayUrl) && !/status of (401|403|404|429)/.test(message.text())) errors.push(`console: ${message.text()}`);
    });
    return { context, page, errors };
  }

  /** Through the provider's login and consent pages, back to the dashboard signed in. */
  async function signIn(page: Page, login: string): Promise<void> {
    await page.goto(`${relayUrl}/dashboard/`);
    await page.click("#oidc-sign-in");
    await page.fill('input[name="login"]', login);
    await page.fill('input[name="password"]', "any");
    await page.click('button[type="submit"]');
    await page.click('button[type="submit"]'); // consent: Continue
    await page.waitForSelector("#app:not([hidden])");
  }

  async function go(page: Page, name: string): Promise<void> {
    await page.evaluate((hash) => (location.hash = hash), name);
    await page.waitForSelector(`#page[data-page="${name}"]`);
    await page.waitForFunction(() => !document.getElementById("page")!.textContent!.includes("Loading…"));
  }

  async function noSidewaysScroll(page: Page, what: string): Promise<void> {
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    assert.ok(overflow <= 0, `${what} scrolls sideways by ${overflow} px`);
  }

  async function sessionCookie(ctx: BrowserContext): Promise<string> {
    const cookie = (await ctx.cookies(relayUrl)).find((c) => c.name === "renio_session");
    assert.ok(cookie, "the browser holds the session cookie");
    assert.equal(cookie.httpOnly, true);
    assert.equal(cookie.sameSite, "Lax");
    return `renio_session=${cookie.value}`;
  }

  /** The session's CSRF token, as the page reads it. */
  const csrfOf = (page: Page) => page.evaluate(async () => ((await (await fetch("/dashboard/auth/session")).json()) as { csrfToken: string }).csrfToken);

  const client = (apiKey: string) => new OpenAI({ apiKey, baseURL: `${relayUrl}/v1`, maxRetries: 0, timeout: 10_000 });
  const ask = (apiKey: string) => client(apiKey).chat.completions.create({ model: "mock-gpt", max_tokens: 16, messages: [{ role: "user", content: "Hello" }] });

  test("sign in, create a key, call, see it, pause a budget, revoke the key", async () => {
    const { context: ctx, page, errors } = await context(1280);
    await signIn(page, "ada");
    assert.match((await page.textContent("#who"))!, /ada@example\.com · admin/);

    // Create a key: its secret is shown once.
    await go(page, "keys");
    await page.click("details.create summary");
    await page.fill('[data-form="create-key"] input[name="id"]', "first-hour");
    await page.fill('[data-form="create-key"] input[name="project"]', "first-hour");
    await page.click('[data-form="create-key"] button[type="submit"]');
    const secret = (await page.textContent('[data-panel="secret"] [data-secret]'))!;
    assert.match(secret, /^\S{20,}$/);
    await page.click('[data-panel="secret"] button.close');
    await page.waitForSelector('tr[data-row="first-hour"] [data-badge="active"]');

    // What the UI writes is shown back as text: a project named like markup runs nothing.
    await page.fill('[data-form="create-key"] input[name="project"]', INJECTED);
    await page.click('[data-form="create-key"] button[type="submit"]');
    await page.click('[data-panel="secret"] button.close');
    await page.getByText(INJECTED, { exact: true }).first().waitFor();
    assert.equal(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned), undefined, "no injected script ran");
    assert.equal(await page.locator("#page img").count(), 0, "no injected element was created");

    // Call with it (the official SDK), then see it in Overview and read it in the journal.
    const answer = await ask(secret);
    assert.ok(answer.choices[0]?.message.content);
    await go(page, "overview");
    await page.waitForFunction(() => document.querySelector('[data-figure="today-calls"]')?.textContent === "1");
    await go(page, "journal");
    await page.locator("#page tbody tr", { hasText: "first-hour" }).first().click();
    const panel = page.locator('[data-panel="entry"]');
    await panel.waitFor();
    const text = (await panel.textContent())!;
    assert.match(text, /Outcome\s*ok/);
    assert.match(text, /\d{4}-\d\d-\d\d \d\d:\d\d:\d\d \(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC\)/, "times as dates, local and UTC");
    assert.doesNotMatch(text, /\[object Object\]/);
    assert.equal(await panel.locator("[data-attempts] tbody tr").count(), 1, "attempts as a table");
    const box = (await panel.boundingBox())!;
    assert.ok(box.x >= 0 && box.y >= 0 && box.x + box.width <= 1280 && box.y < 860, `the detail is on screen: ${JSON.stringify(box)}`);
    await page.click('[data-panel="entry"] button.close');

    // A budget over the key's project, paused: the badge, then the refusal.
    await go(page, "budgets");
    await page.click("details.create summary");
    await page.fill('[data-form="create-budget"] input[name="id"]', "first-hour-budget");
    await page.selectOption('[data-form="create-budget"] select[name="scope"]', "project");
    await page.fill('[data-form="create-budget"] input[name="target"]', "first-hour");
    await page.fill('[data-form="create-budget"] input[name="limit"]', "5");
    await page.click('[data-form="create-budget"] button[type="submit"]');
    const budget = page.locator('[data-budget="first-hour-budget"]');
    await budget.waitFor();
    assert.match((await budget.textContent())!, /project first-hour/);
    assert.match((await budget.locator('[data-figure="limit"]').textContent())!, /^5\.0000 USD$/);
    await budget.locator('input[name="limit"]').fill("10");
    await budget.locator('[data-action="change"]').click();
    await page.click('dialog.confirm [data-action="confirm"]');
    await page.waitForFunction(() => document.querySelector('[data-budget="first-hour-budget"] [data-figure="limit"]')?.textContent === "10.0000 USD");
    await budget.locator('[data-action="pause"]').click();
    await page.click('dialog.confirm [data-action="confirm"]');
    await page.locator('[data-budget="first-hour-budget"] [data-badge="paused"]').waitFor();
    await assert.rejects(ask(secret), (error: unknown) => error instanceof OpenAI.APIError && error.status === 429 && error.code === "budget_paused");
    await go(page, "overview");
    await go(page, "budgets");
    await page.locator('[data-budget="first-hour-budget"] [data-badge="refusing"]').waitFor();
    assert.match((await page.textContent('[data-budget="first-hour-budget"] [data-hint]'))!, /Paused/);
    await page.screenshot({ path: join(shots, "budgets-paused-1280.png"), fullPage: true });

    // Rotate the key with no grace: a new secret, shown once; the old one is refused.
    await go(page, "keys");
    await page.click('tr[data-row="first-hour"] [data-action="rotate"]');
    await page.click('dialog.confirm [data-action="confirm"]');
    const rotated = (await page.textContent('[data-panel="secret"] [data-secret]'))!;
    assert.notEqual(rotated, secret);
    await page.click('[data-panel="secret"] button.close');
    await assert.rejects(ask(secret), (error: unknown) => error instanceof OpenAI.APIError && error.status === 401);

    // Revoke it: shown revoked, and refused.
    await page.click('tr[data-row="first-hour"] [data-action="revoke"]');
    await page.click('dialog.confirm [data-action="confirm"]');
    await page.waitForSelector('tr[data-row="first-hour"] [data-badge="revoked"]');
    await assert.rejects(ask(rotated), (error: unknown) => error instanceof OpenAI.APIError && error.status === 401);

    // Every change names the person who made it.
    await go(page, "audit");
    const audit = (await page.locator("#page tbody").textContent())!;
    for (const action of ["key.create", "budget.create", "budget.update", "key.rotate", "key.revoke"]) assert.match(audit, new RegExp(`oidc:ada@example\\.com${action.replace(".", "\\.")}`));

    assert.deepEqual(errors, []);
    await ctx.close();
  });

  test("a viewer sees the state but no managing controls", async () => {
    const { context: ctx, page, errors } = await context(1280);
    await signIn(page, "vic");
    assert.match((await page.textContent("#who"))!, /vic@example\.com · read/);
    await go(page, "keys");
    assert.equal(await page.locator('[data-form="create-key"]').count(), 0);
    assert.equal(await page.locator('[data-action="revoke"]').count(), 0);
    await go(page, "budgets");
    assert.equal(await page.locator('[data-form="create-budget"]').count(), 0);
    assert.equal(await page.locator('[data-action="pause"], [data-action="resume"]').count(), 0);
    assert.deepEqual(errors, []);
    await ctx.close();
  });

  for (const [width, scheme] of [[390, "light"], [1280, "light"], [390, "dark"], [1280, "dark"]] as const) {
    test(`every page at ${width} px (${scheme}): no sideways scroll`, async () => {
      const { context: ctx, page, errors } = await context(width, scheme);
      await signIn(page, "ada");
      for (const name of PAGES) {
        await go(page, name);
        await page.screenshot({ path: join(shots, `${name}-${width}-${scheme}.png`), fullPage: true });
        await noSidewaysScroll(page, `${name} at ${width} px`);
      }
      if (width === 1280) {
        await go(page, "models");
        const wrap = page.locator("section", { hasText: "By model" }).locator(".table-wrap");
        const [scroll, client] = await wrap.evaluate((node) => [node.scrollWidth, node.clientWidth]);
        assert.ok(scroll <= client, `the by-model table fits at 1280 px (${scroll} > ${client})`);
      }
      if (scheme === "dark") {
        const background = await page.evaluate(() => getComputedStyle(document.querySelector("section")!).backgroundColor);
        assert.notEqual(background, "rgb(255, 255, 255)", "dark mode follows the system");
      }
      assert.deepEqual(errors, []);
      await ctx.close();
    });
  }

  test("Overview refreshes by itself; with the relay stopped the page says so and keeps the last data", async () => {
    const { context: ctx, page } = await context(1280);
    // The page's clock runs on its own; moving it one refresh interval ahead stands for the wait.
    await ctx.clock.install();
    await signIn(page, "ada");
    await go(page, "overview");
    const before = Number(await page.textContent('[data-figure="today-calls"]'));
    const key = await fetch(`${relayUrl}/admin/keys`, { method: "POST", headers: { cookie: await sessionCookie(ctx), "x-renio-csrf": await csrfOf(page), "content-type": "application/json" }, body: JSON.stringify({ project: "refresh" }) });
    assert.equal(key.status, 201);
    await ask(((await key.json()) as { secret: string }).secret);
    // No navigation: the next refresh shows the call.
    await page.clock.fastForward(OVERVIEW_REFRESH_MS);
    await page.waitForFunction((n) => Number(document.querySelector('[data-figure="today-calls"]')?.textContent) === n, before + 1, { timeout: 30_000 });

    await opened.stop();
    stopped = true;
    await page.clock.fastForward(OVERVIEW_REFRESH_MS);
    await page.waitForSelector("#connection:not([hidden])", { timeout: 30_000 });
    assert.match((await page.textContent("#connection"))!, /relay is not answering/);
    assert.match((await page.textContent("[data-updated]"))!, /Relay not answering/);
    assert.equal(Number(await page.textContent('[data-figure="today-calls"]')), before + 1, "the last data stays");
    await go(page, "journal");
    const shown = (await page.textContent("#page"))!;
    assert.match(shown, /The relay is not answering/);
    assert.doesNotMatch(shown, /Failed to fetch/);
    await page.screenshot({ path: join(shots, "relay-down-1280.png"), fullPage: true });
    await ctx.close();
  });
});
