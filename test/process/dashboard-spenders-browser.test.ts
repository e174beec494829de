import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { after, before, describe, test } from "node:test";
import type { Browser } from "playwright-core";
import type { Store } from "../../src/storage/store.ts";
import { TEST_KEY, type RelayUnderTest } from "../support/relay-harness.ts";
import { chatBody, finishedEntries, post } from "../support/relay-calls.ts";
import { startMockRelay } from "../support/with-relay.ts";

/**
 * The dashboard's Spenders page in Debian's Chromium (playwright-core), against a relay that
 * served calls of end users, a team and a tag: its tables show the journal's figures, an end
 * user named with HTML stays text, and nothing logs an error.
 */

const CHROMIUM = process.env.RENIO_CHROMIUM ?? "/usr/bin/chromium";
const SKIP = existsSync(CHROMIUM) ? false : `no Chromium at ${CHROMIUM} (apt-get install -y chromium)`;
const ADMIN_TOKEN = "dashboard-admin-token-0123456789";
const INJECTED = `<img src=x onerror="window.__pwned=1">`;

let relay: RelayUnderTest;
let store: Store;
let stop: () => Promise<void>;
let browser: Browser;

describe("the Spenders page in Chromium", { skip: SKIP }, () => {
  before(async () => {
    ({ relay, store, stop } = await startMockRelay({
      config: {
        server: { host: "127.0.0.1", port: 0, shutdownGraceMs: 2000, adminToken: ADMIN_TOKEN },
        teams: [{ id: "growth", projects: ["tests"] }],
        keys: [{ id: "test", secret: TEST_KEY, project: "tests", tags: { allow: { feature: ["chat"] } } }],
        budgets: [{ id: "per-user", scope: { endUser: { project: "tests" } }, period: "day", limit: 5, mode: "strict" }],
      },
    }));
    const ids: string[] = [];
    for (const user of ["ann", "ann"]) {
      const response = await post(relay.url, "/v1/chat/completions", chatBody(), { "x-renio-tags": "feature=chat", "x-renio-end-user": user });
      await response.arrayBuffer();
      ids.push(response.headers.get("x-request-id")!);
    }
    // The injected name goes in the body's `user` field (a header cannot carry it).
    const injected = await post(relay.url, "/v1/chat/completions", chatBody({ user: INJECTED }));
    await injected.arrayBuffer();
    ids.push(injected.headers.get("x-request-id")!);
    await finishedEntries(store, ids);
    const { chromium } = await import("playwright-core");
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox", "--headless=new"] });
  });

  after(async () => {
    await browser?.close();
    await stop?.();
  });

  test("spend by team and tag, the heaviest end users today, a per-end-user budget's end users; no error", async () => {
    const errors: string[] = [];
    const context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
    const page = await context.newPage();
    page.on("pageerror", (error) => errors.push(`uncaught: ${error.message}`));
    page.on("console", (message) => {
      if (message.type() === "error") errors.push(`console: ${message.text()}`);
    });
    await page.goto(`${relay.url}/dashboard/#spenders`);
    await page.fill("#token", ADMIN_TOKEN);
    await page.click("#login button[type=submit]");
    await page.waitForSelector('#page[data-page="spenders"]');
    await page.waitForFunction(() => !document.getElementById("page")!.textContent!.includes("Loading…"));
    const text = (await page.textContent("#page"))!;
    assert.match(text, /growth/, "the team's spend");
    assert.match(text, /feature=chat/, "the tag's spend");
    assert.match(text, /ann/, "an end user");
    assert.ok(text.includes(INJECTED), "an end user's name is shown as text");
    assert.equal(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned), undefined, "and never run");
    assert.ok(await page.$('[data-budget="per-user"]'), "the per-end-user budget's end users");
    assert.deepEqual(errors, []);
    await context.close();
  });
});
