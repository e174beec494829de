import type { StorageConfig } from "../../src/config/config-schema.ts";
import type { MockStats } from "../../src/providers/mock/mock-server.ts";
import { currentRuntime } from "../../src/runtime/current-runtime.ts";
import type { JournalEntry } from "../../src/shared/journal-records.ts";
import type { Store } from "../../src/storage/store.ts";
import { createStore } from "../../src/storage/store-open.ts";
import { TEST_KEY } from "./relay-harness.ts";

/** A chat body of fixed size (so every call reserves the same amount). */
export function chatBody(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { model: "mock-gpt", messages: [{ role: "user", content: "hello" }], max_tokens: 100, ...extra };
}

/** POSTs `body` as JSON to `url + path` with the harness key (or the given headers). */
export function post(url: string, path: string, body: unknown, headers: Record<string, string> = {}, signal?: AbortSignal): Promise<Response> {
  return fetch(`${url}${path}`, {
    method: "POST",
    headers: { authorization: `Bearer ${TEST_KEY}`, "content-type": "application/json", ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
    ...(signal ? { signal } : {}),
  });
}

/** The mock's counters. */
export async function mockStats(mockUrl: string): Promise<MockStats> {
  return (await (await fetch(`${mockUrl}/_mock/stats`)).json()) as MockStats;
}

/** The error envelope code of a Renio error response (OpenAI `error.code` or Anthropic `error.type`). */
export async function errorOf(response: Response): Promise<{ code: string; message: string }> {
  const body = (await response.json()) as { error?: { code?: string; type?: string; message?: string } };
  return { code: body.error?.code ?? body.error?.type ?? "", message: body.error?.message ?? "" };
}

/** Opens a Store on `storage` with this runtime's SQLite driver (shares the connection of an in-process relay on the same file). */
export async function openStore(storage: StorageConfig): Promise<Store> {
  const runtime = await currentRuntime();
  return createStore(storage, { durability: "fsync", openSqlite: runtime.openSqlite });
}

/** Every journal entry, newest first. */
export async function allEntries(store: Store): Promise<JournalEntry[]> {
  const entries: JournalEntry[] = [];
  let cursor: string | undefined;
  do {
    const page = await store.listJournal({ limit: 1000, ...(cursor === undefined ? {} : { cursor }) });
    entries.push(...page.entries);
    cursor = page.nextCursor ?? undefined;
  } while (cursor !== undefined);
  return entries;
}

/**
 * Polls (bounded) until every entry in `ids` has finished (completions are batched after the
 * response) and returns them by id. Throws naming the ids still open.
 */
export async function finishedEntries(store: Store, ids: readonly string[], timeoutMs = 5_000): Promise<Map<string, JournalEntry>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const byId = new Map((await allEntries(store)).map((entry) => [entry.id, entry]));
    const open = ids.filter((id) => byId.get(id)?.finishedAt == null);
    if (open.length === 0) return byId;
    if (Date.now() > deadline) throw new Error(`entries still unfinished after ${timeoutMs} ms: ${open.join(", ")}`);
    await new Promise<void>((resolve) => setTimeout(resolve, 10));
  }
}
