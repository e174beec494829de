import assert from "node:assert/strict";
import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import process from "node:process";
import { after, before, describe, test } from "node:test";
import OpenAI from "openai";
import type { Browser } from "playwright-core";
import { ADMIN_TOKEN, startGuardrailRig, type GuardrailRig } from "../../support/guardrail-relay.ts";
import { finishedEntries } from "../../support/relay-calls.ts";

/**
 * The dashboard's Guardrails page in Chromium: what policies found over the range, by policy,
 * detector, action and direction, with the figures of the journal; the calls on which a policy
 * fired, and an entry's findings with their places; none of the values on the page.
 */

const CHROMIUM = process.env.RENIO_CHROMIUM ?? "/usr/bin/chromium";
const SCREENSHOTS = join(import.meta.dirname ?? ".", "..", "..", "..", "test-artifacts", "screenshots");
const SKIP = existsSync(CHROMIUM) ? false : `no Chromium at ${CHROMIUM} (apt-get install -y chromium)`;
const EMAIL = "anna.schmidt@example.de";
const IBAN = "DE89370400440532013000";
const KEY = "sk-proj-Xy7kQ2mN8pL4vR6tZ1wB3cD5fG9hJ0aS";

let rig: GuardrailRig;
let browser: Browser;
const ids: string[] = [];

describe("dashboard: guardrails in Chromium", { skip: SKIP }, () => {
  before(async () => {
    rig = await startGuardrailRig({
      policies: [
        { id: "no-secrets", detectors: ["credentials"], request: "block" },
        { id: "pii", detectors: ["email", "iban"], request: "pseudonymise", answer: "redact" },
      ],
    });
    for (const content of [`mail ${EMAIL} twice: ${EMAIL}`, `pay ${IBAN}`, `key ${KEY}`]) {
      try {
        const { response } = await rig.openai.chat.completions.create({ model: "gpt", messages: [{ role: "user", content }] }).withResponse();
        ids.push(response.headers.get("x-request-id")!);
      } catch (error) {
        assert.ok(error instanceof OpenAI.BadRequestError);
        ids.push(error.headers!.get("x-request-id")!);
      }
    }
    await finishedEntries(rig.store, ids);
    const { chromium } = await import("playwright-core");
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox", "--headless=new"] });
  });

  after(async () => {
    await browser?.close();
    await rig?.stop();
  });

  test("the summary, the calls on which a policy fired, an entry's findings; no value on the page, no console error", async () => {
    const page = await (await browser.newContext({ viewport: { width: 1280, height: 860 } })).newPage();
    const errors: string[] = [];
    page.on("pageerror", (error) => errors.push(error.message));
    page.on("console", (message) => message.type() === "error" && errors.push(message.text()));
    await page.goto(`${rig.relay.url}/dashboard/#guardrails`);
    await page.fill("#token", ADMIN_TOKEN);
    await page.click("#login button[type=submit]");
    await page.waitForFunction(() => location.hash === "#guardrails" && !document.getElementById("page")!.textContent!.includes("Loading…"));
    const rows = (await page.locator("#page section").first().locator("tbody tr").allTextContents()).sort();
    // Policy, on, detector, action, calls, matches, check failures, last.
    assert.equal(rows.length, 3, rows.join("\n"));
    assert.ok(rows.some((r) => r.startsWith("no-secretsrequestopenai_keyblock11")), rows.join("\n"));
    assert.ok(rows.some((r) => r.startsWith("piirequestemailpseudonymise12")), rows.join("\n"));
    assert.ok(rows.some((r) => r.startsWith("piirequestibanpseudonymise11")), rows.join("\n"));
    const fired = page.locator("#page section").nth(1).locator("tbody tr");
    assert.equal(await fired.count(), 3);
    await fired.filter({ hasText: "refused" }).first().click();
    await page.waitForSelector("[data-guardrails] tbody tr");
    const finding = await page.textContent("[data-guardrails] tbody tr");
    assert.match(finding!, /no-secrets.*request.*openai_key.*block.*messages\[0\]\.content @4\+/);
    mkdirSync(SCREENSHOTS, { recursive: true });
    await page.screenshot({ path: join(SCREENSHOTS, "guardrails-findings-1280.png"), fullPage: true });
    const text = await page.evaluate(() => document.body.innerText);
    for (const value of [EMAIL, IBAN, KEY]) assert.ok(!text.includes(value), `${value} on the page`);
    await page.evaluate(() => (location.hash = "journal"));
    await page.waitForFunction(() => document.querySelectorAll("#page tbody tr").length === 3);
    assert.match((await page.locator("#page tbody tr").allTextContents()).join("\n"), /pii: pseudonymise/);
    assert.deepEqual(errors, []);
  });
});
