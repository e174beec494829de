import assert from "node:assert/strict";
import process from "node:process";
import { after, before, describe, test } from "node:test";
import OpenAI from "openai";
import type { StorageConfig } from "../../../src/config/config-schema.ts";
import { startMockServer, startRelay, TEST_KEY, type MockServer, type RelayUnderTest } from "../../support/relay-harness.ts";
import { allEntries, mockStats, openStore, post, chatBody } from "../../support/relay-calls.ts";
import { relayConfig, runRenio, scratchDir, startRelayProcess, writeConfig } from "../../support/relay-process.ts";
import { validateConfig } from "../../../src/config/config-load.ts";
import { ConfigError, formatProblem } from "../../../src/config/config-error.ts";
import { pgExec } from "../../support/store-targets.ts";
import { testPostgresUrl } from "../../support/postgres.ts";
import { signatureValid, startWebhookReceiver, type Delivery, type WebhookReceiver } from "../../support/webhook-receiver.ts";

const SECRET = "whsec-test-secret-0123456789abcdef";
const ADMIN_TOKEN = "admin-token-for-alert-tests-0123";
const OTHER_KEY = "sk-renio-other-key-for-alerts-0002";

let mock: MockServer;
/** What one chat call of {@link call} costs on the mock (measured once). */
let callCost: number;

interface ListedAlert {
  id: string;
  type: string;
  budgetId: string | null;
  period: string | null;
  threshold: number | null;
  status: string;
  attempts: number;
  lastError: string | null;
  payload: Record<string, unknown>;
}

/** One chat call through the official SDK. */
function call(baseUrl: string, apiKey = TEST_KEY): Promise<unknown> {
  const openai = new OpenAI({ apiKey, baseURL: `${baseUrl}/v1`, maxRetries: 0, timeout: 30_000 });
  return openai.chat.completions.create({ model: "mock-gpt", messages: [{ role: "user", content: "hi" }], max_tokens: 5 });
}

/** The alert settings of a relay delivering to `receiver`, fast enough for tests. */
function alertSettings(receiver: WebhookReceiver, hook: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    webhooks: [{ id: "ops", url: receiver.url, secret: SECRET, timeoutMs: 2000, maxAttempts: 5, ...hook }],
    pollMs: 20,
    backoffMs: 10,
    maxBackoffMs: 40,
  };
}

/** `GET /admin/alerts` of a relay. */
async function listAlerts(url: string): Promise<ListedAlert[]> {
  const response = await fetch(`${url}/admin/alerts`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
  assert.equal(response.status, 200, await response.clone().text());
  return ((await response.json()) as { data: ListedAlert[] }).data;
}

/** Polls the admin API (bounded) until `predicate` holds for the listed alerts; returns them. */
async function alertsWhen(url: string, predicate: (alerts: ListedAlert[]) => boolean, timeoutMs = 20_000): Promise<ListedAlert[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const alerts = await listAlerts(url);
    if (predicate(alerts)) return alerts;
    if (Date.now() > deadline) throw new Error(`alerts never matched: ${JSON.stringify(alerts)}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

const bodyOf = (delivery: Delivery): Record<string, unknown> => JSON.parse(delivery.body) as Record<string, unknown>;
const nowS = (): number => Math.floor(Date.now() / 1000);

before(async () => {
  mock = await startMockServer();
  // The cost of one call, so each test can put its thresholds where the calls cross them.
  const relay = await startRelay(mock.url);
  const store = await openStore(relay.config.storage);
  try {
    await call(relay.url);
    const deadline = Date.now() + 5000;
    let cost: number | null = null;
    while (cost === null && Date.now() < deadline) {
      cost = (await allEntries(store))[0]?.cost ?? null;
      if (cost === null) await new Promise((resolve) => setTimeout(resolve, 20));
    }
    assert.ok(cost !== null && cost > 0, "the mock call has a cost");
    callCost = cost;
  } finally {
    await store.close();
    await relay.stop();
  }
});

after(async () => {
  await mock.stop();
});

/** Starts an in-process relay (SQLite) with one observe budget alerting `receiver`. */
function relayWithBudget(receiver: WebhookReceiver, limit: number, thresholds?: number[], hook?: Record<string, unknown>): Promise<RelayUnderTest> {
  return startRelay(mock.url, {
    server: { host: "127.0.0.1", port: 0, shutdownGraceMs: 2000, adminToken: ADMIN_TOKEN },
    budgets: [{ id: "monthly", scope: "total", period: "month", limit, mode: "observe", alerts: { webhook: "ops", ...(thresholds ? { thresholds } : {}) } }],
    alerts: alertSettings(receiver, hook),
  });
}

/** The three deliveries of 50/80/100 %: one each, signed, with the documented body. */
function assertOnePerThreshold(deliveries: readonly Delivery[], limit: number): void {
  assert.deepEqual(deliveries.map((d) => bodyOf(d).threshold).sort((a, b) => Number(a) - Number(b)), [50, 80, 100]);
  assert.equal(new Set(deliveries.map((d) => d.headers["renio-event-id"])).size, 3);
  for (const delivery of deliveries) {
    assert.ok(signatureValid(delivery, SECRET, nowS()), `signature verifies: ${delivery.headers["renio-signature"]}`);
    assert.ok(!signatureValid(delivery, `${SECRET}-wrong`, nowS()), "a wrong secret does not verify");
    const body = bodyOf(delivery);
    assert.deepEqual(Object.keys(body).sort(), ["at", "budget", "currency", "id", "limit", "period", "spent", "threshold", "type"]);
    assert.equal(body.id, delivery.headers["renio-event-id"]);
    assert.equal(body.type, "budget.threshold");
    assert.equal(body.budget, "monthly");
    assert.match(String(body.period), /^\d{4}-\d{2}$/);
    assert.equal(body.limit, limit);
    assert.equal(body.currency, "USD");
    assert.ok(Number(body.spent) * 100 >= limit * Number(body.threshold), `spent ${body.spent} reached ${body.threshold}%`);
    assert.ok(!Number.isNaN(Date.parse(String(body.at))));
    assert.equal(delivery.headers["content-type"], "application/json");
  }
}

describe("alert config", () => {
  test("a budget's webhook and the interrupted webhook must name a configured webhook", () => {
    const raw = relayConfig("http://127.0.0.1:1", { type: "sqlite", path: "x.db" }, {
      budgets: [{ id: "monthly", scope: "total", limit: 10, alerts: { webhook: "pager" } }],
      alerts: { webhooks: [{ id: "ops", url: "https://hooks.example.com/x", secret: SECRET }], interruptedWebhook: "nope" },
    });
    assert.throws(() => validateConfig(raw, {}), (error: unknown) => {
      assert.ok(error instanceof ConfigError);
      const lines = error.problems.map(formatProblem);
      assert.ok(lines.some((l) => l.startsWith("budgets[0].alerts.webhook: unknown webhook \"pager\" (configured in alerts.webhooks: ops)")), lines.join("\n"));
      assert.ok(lines.some((l) => l.startsWith("alerts.interruptedWebhook: unknown webhook \"nope\"")), lines.join("\n"));
      return true;
    });
    const ok = validateConfig(relayConfig("http://127.0.0.1:1", { type: "sqlite", path: "x.db" }, {
      budgets: [{ id: "monthly", scope: "total", limit: 10, alerts: { webhook: "ops" } }],
      alerts: { webhooks: [{ id: "ops", url: "https://hooks.example.com/x", secret: SECRET }] },
    }), {});
    assert.deepEqual(ok.budgets[0]!.alerts, { thresholds: [50, 80, 100], webhook: "ops" });
    assert.deepEqual([ok.alerts.webhooks[0]!.timeoutMs, ok.alerts.webhooks[0]!.maxAttempts], [5000, 8]);
  });
});

describe("budget alerts", () => {
  test("200 concurrent calls crossing 50/80/100 %: exactly one signed delivery per threshold", async () => {
    const receiver = await startWebhookReceiver();
    const limit = Math.round(callCost * 150 * 1e9) / 1e9;
    const relay = await relayWithBudget(receiver, limit);
    try {
      const results = await Promise.allSettled(Array.from({ length: 200 }, () => call(relay.url)));
      assert.equal(results.filter((r) => r.status === "fulfilled").length, 200);
      const alerts = await alertsWhen(relay.url, (a) => a.length === 3 && a.every((e) => e.status === "delivered"));
      assert.deepEqual(alerts.map((a) => a.attempts), [1, 1, 1]);
      assert.equal(receiver.deliveries.length, 3, "one delivery per threshold, none twice");
      assertOnePerThreshold(receiver.deliveries, limit);
    } finally {
      await relay.stop();
      await receiver.stop();
    }
  });

  test("a failing target is retried with backoff and marked delivered once it answers 2xx; one that keeps failing is marked failed", async () => {
    const receiver = await startWebhookReceiver((d) => (d.index < 2 ? 500 : 200));
    const relay = await relayWithBudget(receiver, 1e-9, [100]);
    try {
      await call(relay.url);
      const [alert] = await alertsWhen(relay.url, (a) => a[0]?.status === "delivered");
      assert.equal(alert!.attempts, 3);
      assert.equal(alert!.lastError, "HTTP 500");
      assert.equal(receiver.deliveries.length, 3);
      assert.equal(new Set(receiver.deliveries.map((d) => d.body)).size, 1, "every attempt sends the same body");
      assert.ok(receiver.deliveries.every((d) => d.headers["renio-event-id"] === alert!.id && signatureValid(d, SECRET, nowS())));
    } finally {
      await relay.stop();
      await receiver.stop();
    }

    const failing = await startWebhookReceiver(() => 503);
    const relay2 = await relayWithBudget(failing, 1e-9, [100], { maxAttempts: 3 });
    try {
      await call(relay2.url);
      const [alert] = await alertsWhen(relay2.url, (a) => a[0]?.status === "failed");
      assert.equal(alert!.attempts, 3);
      assert.equal(alert!.lastError, "HTTP 503");
      assert.equal(failing.deliveries.length, 3, "no attempt past maxAttempts");
      const text = JSON.stringify(await listAlerts(relay2.url));
      assert.ok(!text.includes(SECRET) && !text.includes(failing.url), "no secret or URL in the listing");
      const auth = { authorization: `Bearer ${ADMIN_TOKEN}` };
      const onlyFailed = (await (await fetch(`${relay2.url}/admin/alerts?status=failed&limit=1`, { headers: auth })).json()) as { data: ListedAlert[] };
      assert.deepEqual(onlyFailed.data.map((e) => e.id), [alert!.id]);
      assert.equal(((await (await fetch(`${relay2.url}/admin/alerts?status=delivered`, { headers: auth })).json()) as { data: unknown[] }).data.length, 0);
      const bad = await fetch(`${relay2.url}/admin/alerts?status=sent`, { headers: auth });
      assert.equal(bad.status, 400);
      assert.match(((await bad.json()) as { error: { message: string } }).error.message, /`status` must be one of pending, delivered, failed/);
      assert.equal((await fetch(`${relay2.url}/admin/alerts`)).status, 401, "the outbox is behind an admin token");
    } finally {
      await relay2.stop();
      await failing.stop();
    }
  });

  test("a hanging target never slows calls; the attempt times out and is retried", async () => {
    const receiver = await startWebhookReceiver((d) => (d.index === 0 ? "hang" : 200));
    const relay = await relayWithBudget(receiver, 1e-9, [100], { timeoutMs: 1500 });
    try {
      await call(relay.url);
      await receiver.until((d) => d.length === 1);
      // The first attempt hangs now: calls go on as before.
      const results = await Promise.allSettled(Array.from({ length: 20 }, () => call(relay.url)));
      assert.equal(results.filter((r) => r.status === "fulfilled").length, 20);
      const [alert] = await alertsWhen(relay.url, (a) => a[0]?.status === "delivered");
      assert.equal(alert!.attempts, 2);
      assert.equal(alert!.lastError, "timed out after 1500 ms");
      assert.equal(receiver.deliveries.length, 2);
    } finally {
      await relay.stop();
      await receiver.stop();
    }
  });

  test("killed (SIGKILL) after the event is written, before it is delivered: delivered after restart, never re-sent once delivered", async () => {
    const receiver = await startWebhookReceiver(() => "hang");
    const dir = scratchDir();
    const storage = { type: "sqlite", path: `${dir}/renio.db` };
    const configPath = writeConfig(
      dir,
      relayConfig(mock.url, storage, {
        server: { host: "127.0.0.1", port: 0, shutdownGraceMs: 2000, adminToken: ADMIN_TOKEN },
        keys: [
          { id: "test", secret: TEST_KEY, project: "tests" },
          { id: "other", secret: OTHER_KEY, project: "others" },
        ],
        budgets: [
          { id: "monthly", scope: "total", period: "month", limit: 1e-9, mode: "observe", alerts: { webhook: "ops", thresholds: [100] } },
          { id: "other-daily", scope: { key: "other" }, period: "day", limit: 1e-9, mode: "observe", alerts: { webhook: "ops", thresholds: [100] } },
        ],
        alerts: { ...alertSettings(receiver, { timeoutMs: 1000 }), interruptedWebhook: "ops" },
      }),
    );
    try {
      let relay = await startRelayProcess(configPath);
      await call(relay.url);
      await receiver.until((d) => d.length === 1);
      const eventId = receiver.deliveries[0]!.headers["renio-event-id"];
      // A call in flight when the relay dies: its reservation is left pending.
      const before = (await mockStats(mock.url)).received;
      const inFlight = post(relay.url, "/v1/chat/completions", chatBody(), { "x-mock-fault": "delay=60000" }).catch(() => undefined);
      while ((await mockStats(mock.url)).received === before) await new Promise((resolve) => setTimeout(resolve, 10));
      await relay.stop("SIGKILL");
      await inFlight;

      receiver.answer = () => 200;
      relay = await startRelayProcess(configPath);
      const alerts = await alertsWhen(relay.url, (a) => a.length === 2 && a.every((e) => e.status === "delivered"));
      const threshold = alerts.find((a) => a.type === "budget.threshold")!;
      assert.equal(threshold.id, eventId);
      assert.equal(threshold.attempts, 2, "the attempt cut by the kill, then the one that delivered");
      const interrupted = alerts.find((a) => a.type === "journal.interrupted")!;
      assert.equal(interrupted.payload.entries, 1);
      assert.equal(interrupted.payload.pending, 1);
      assert.ok(Number(interrupted.payload.reserved) > 0);
      const interruptedDelivery = receiver.deliveries.find((d) => bodyOf(d).type === "journal.interrupted")!;
      assert.ok(signatureValid(interruptedDelivery, SECRET, nowS()));
      assert.equal((await relay.stop()).code, 0, relay.output());

      // Once delivered, a restart sends it no more: a new event is delivered, the old one not again.
      relay = await startRelayProcess(configPath);
      await call(relay.url, OTHER_KEY);
      await receiver.until((d) => d.some((x) => bodyOf(x).budget === "other-daily"));
      await alertsWhen(relay.url, (a) => a.length === 3 && a.every((e) => e.status === "delivered"));
      assert.equal(receiver.deliveries.filter((d) => d.headers["renio-event-id"] === eventId).length, 2);
      assert.equal(receiver.deliveries.length, 4);
      assert.equal((await relay.stop()).code, 0, relay.output());

      // `renio alerts list` reads the same outbox from the store.
      const listed = await runRenio(["alerts", "list", "--config", configPath, "--json"]);
      assert.equal(listed.code, 0, listed.stderr);
      const events = JSON.parse(listed.stdout) as ListedAlert[];
      assert.deepEqual(events.map((e) => e.status), ["delivered", "delivered", "delivered"]);
      assert.ok(events.some((e) => e.id === eventId && e.attempts === 2));
      const table = await runRenio(["alerts", "list", "--config", configPath, "--status", "delivered"]);
      assert.equal(table.code, 0, table.stderr);
      assert.match(table.stdout, /^CREATED\s+TYPE\s+BUDGET\s+PERIOD\s+THRESHOLD\s+WEBHOOK\s+STATUS\s+ATTEMPTS\s+LAST ERROR\n/);
      assert.match(table.stdout, /budget\.threshold\s+monthly\s+\d{4}-\d{2}\s+100%\s+ops\s+delivered\s+2\n/);
      assert.ok(!table.stdout.includes(SECRET));
      const bad = await runRenio(["alerts", "list", "--config", configPath, "--status", "sent"]);
      assert.equal(bad.code, 2);
      assert.match(bad.stderr, /renio alerts: --status must be one of pending, delivered, failed, got "sent"/);
    } finally {
      await receiver.stop();
    }
  });

  test("a reload that adds alerts to a budget already past its threshold fires with the next settled call", async () => {
    const receiver = await startWebhookReceiver();
    const dir = scratchDir();
    const budget = { id: "monthly", scope: "total", period: "month", limit: 1e-9, mode: "observe" };
    const raw = (alerting: boolean) =>
      relayConfig(mock.url, { type: "sqlite", path: `${dir}/renio.db` }, {
        server: { host: "127.0.0.1", port: 0, shutdownGraceMs: 2000, adminToken: ADMIN_TOKEN },
        budgets: [alerting ? { ...budget, alerts: { webhook: "ops", thresholds: [100] } } : budget],
        alerts: alerting ? alertSettings(receiver) : {},
      });
    const configPath = writeConfig(dir, raw(false));
    const relay = await startRelayProcess(configPath);
    try {
      await call(relay.url);
      writeConfig(dir, raw(true));
      const reloaded = await fetch(`${relay.url}/admin/reload`, { method: "POST", headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
      assert.equal(reloaded.status, 200, await reloaded.text());
      await call(relay.url);
      await receiver.until((d) => d.length === 1);
      assert.equal(bodyOf(receiver.deliveries[0]!).threshold, 100);
      assert.ok(signatureValid(receiver.deliveries[0]!, SECRET, nowS()));
    } finally {
      assert.equal((await relay.stop()).code, 0, relay.output());
      await receiver.stop();
    }
  });

  test("two relay processes sharing PostgreSQL: one delivery per threshold", async () => {
    const base = testPostgresUrl();
    const name = `renio_alerts_${process.pid}`;
    await pgExec(base, `create database ${name}`);
    const url = new URL(base);
    url.pathname = `/${name}`;
    const storage: StorageConfig = { type: "postgres", url: url.toString(), poolSize: 8 };
    const receiver = await startWebhookReceiver();
    const limit = Math.round(callCost * 150 * 1e9) / 1e9;
    const configPath = writeConfig(
      scratchDir(),
      relayConfig(mock.url, storage, {
        server: { host: "127.0.0.1", port: 0, shutdownGraceMs: 2000, adminToken: ADMIN_TOKEN },
        budgets: [{ id: "monthly", scope: "total", period: "month", limit, mode: "observe", alerts: { webhook: "ops" } }],
        alerts: alertSettings(receiver),
      }),
    );
    const relays = await Promise.all([startRelayProcess(configPath), startRelayProcess(configPath)]);
    try {
      const results = await Promise.allSettled(Array.from({ length: 200 }, (_, i) => call(relays[i % 2]!.url)));
      assert.equal(results.filter((r) => r.status === "fulfilled").length, 200);
      await alertsWhen(relays[0]!.url, (a) => a.length === 3 && a.every((e) => e.status === "delivered"));
      assert.equal(receiver.deliveries.length, 3);
      assertOnePerThreshold(receiver.deliveries, limit);
    } finally {
      for (const relay of relays) assert.equal((await relay.stop()).code, 0, relay.output());
      await receiver.stop();
    }
  });
});
