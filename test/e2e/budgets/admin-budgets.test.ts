import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { Store } from "../../../src/storage/store.ts";
import { TEST_KEY, type RelayUnderTest } from "../../support/relay-harness.ts";
import { chatBody, finishedEntries, post } from "../../support/relay-calls.ts";
import { runRenio, writeConfig } from "../../support/relay-process.ts";
import { startMockRelay } from "../../support/with-relay.ts";

const ADMIN_TOKEN = "admin-token-for-tests-0123456789";
let relay: RelayUnderTest;
let store: Store;
let stop: () => Promise<void>;
let configPath: string;

interface AdminBudget {
  budgetId: string;
  period: string;
  scope: unknown;
  mode: string | null;
  limit: number;
  spent: number;
  reserved: number;
  remaining: number;
}

before(async () => {
  ({ relay, store, stop } = await startMockRelay({
    config: {
      server: { host: "127.0.0.1", port: 0, shutdownGraceMs: 2000, adminToken: ADMIN_TOKEN },
      keys: [
        { id: "test", secret: TEST_KEY, project: "tests" },
        { id: "idle", secret: "sk-renio-idle-key-never-used-0002", project: "nobody" },
      ],
      // The config's default mode is observe: budgets without their own mode are observe budgets.
      budget: { mode: "observe" },
      budgets: [
        { id: "all", scope: "total", period: "total", limit: 50 },
        { id: "tests-monthly", scope: { project: "tests" }, period: "month", limit: 20, mode: "strict" },
        { id: "idle-daily", scope: { project: "nobody" }, period: "day", limit: 5 },
      ],
    },
  }));
  configPath = writeConfig(relay.dir, relay.config as unknown as Record<string, unknown>);
  const response = await post(relay.url, "/v1/chat/completions", chatBody());
  assert.equal(response.status, 200);
  await response.arrayBuffer();
  await finishedEntries(store, [response.headers.get("x-request-id")!]);
});

after(() => stop());

async function adminBudgets(): Promise<Map<string, AdminBudget>> {
  const response = await fetch(`${relay.url}/admin/budgets`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
  assert.equal(response.status, 200);
  const { data } = (await response.json()) as { data: AdminBudget[] };
  return new Map(data.map((b) => [b.budgetId, b]));
}

describe("budget mode in effect and never-charged budgets", () => {
  test("GET /admin/budgets shows the effective mode and lists a budget never charged", async () => {
    const budgets = await adminBudgets();
    assert.deepEqual([...budgets.keys()].sort(), ["all", "idle-daily", "tests-monthly"]);
    assert.equal(budgets.get("all")!.mode, "observe", "no own mode: the config's budget.mode");
    assert.ok(budgets.get("all")!.spent > 0);
    assert.equal(budgets.get("tests-monthly")!.mode, "strict");
    const idle = budgets.get("idle-daily")!;
    assert.match(idle.period, /^\d{4}-\d{2}-\d{2}$/);
    assert.deepEqual(
      { scope: idle.scope, mode: idle.mode, limit: idle.limit, spent: idle.spent, reserved: idle.reserved, remaining: idle.remaining },
      { scope: { project: "nobody" }, mode: "observe", limit: 5, spent: 0, reserved: 0, remaining: 5 },
    );
  });

  test("renio budget status agrees with /admin/budgets", async () => {
    const status = await runRenio(["budget", "status", "--json", "--config", configPath]);
    assert.equal(status.code, 0, status.stderr);
    const rows = JSON.parse(status.stdout) as AdminBudget[];
    assert.deepEqual(rows.map((r) => [r.budgetId, r.mode]), [["all", "observe"], ["tests-monthly", "strict"], ["idle-daily", "observe"]]);
    const budgets = await adminBudgets();
    for (const row of rows) {
      const listed = budgets.get(row.budgetId)!;
      const pick = (b: AdminBudget) => [b.period, b.mode, b.limit, b.spent, b.reserved, b.remaining];
      assert.deepEqual(pick(listed), pick(row), row.budgetId);
    }
    const table = await runRenio(["budget", "status", "--config", configPath]);
    assert.equal(table.code, 0, table.stderr);
    assert.match(table.stdout, /^all\s+total\s+total\s+observe\s/m);
    assert.ok(!table.stdout.includes("default"), table.stdout);
  });
});
