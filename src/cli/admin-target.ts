import { userInfo } from "node:os";
import type { Config } from "../config/config-schema.ts";
import { createKeyBody, keyChangeBody, keyListQuery, rotateKeyBody } from "../http/admin/admin-keys.ts";
import { createKeyAdmin, type IssuedKey, type KeyView } from "../keys/key-admin.ts";
import { resolveKeySecret } from "../keys/key-secret.ts";
import type { Runtime } from "../runtime/runtime.ts";
import { RelayError } from "../shared/relay-error.ts";
import type { AuditPage, AuditQuery } from "../shared/audit.ts";
import { createStore } from "../storage/store-open.ts";
import { UsageError } from "../shared/cli-args.ts";

/** What create and rotate answer (the admin API's body): the key and its secret. */
export type Answer = Pick<IssuedKey, "key" | "secret">;

/**
 * Where `renio keys` and `renio audit` act: a running relay's admin API, or the store itself
 * (the relay down, or on another machine). Bodies are the admin API's; the store target
 * validates them with the same schemas. A bad value is a {@link UsageError} either way.
 */
export interface AdminTarget {
  /** `filter`: `GET /admin/keys` query values (project, status, source). */
  listKeys(filter: Readonly<Record<string, string>>): Promise<KeyView[]>;
  showKey(id: string): Promise<KeyView>;
  createKey(body: Record<string, unknown>, idempotencyKey: string | undefined): Promise<Answer>;
  updateKey(id: string, body: Record<string, unknown>): Promise<KeyView>;
  rotateKey(id: string, body: Record<string, unknown>, idempotencyKey: string | undefined): Promise<Answer>;
  revokeKey(id: string): Promise<KeyView>;
  listAudit(query: AuditQuery): Promise<AuditPage>;
  close(): Promise<void>;
}

/** A call to the admin API of the relay at `url` with `token`: the JSON answer; a 400 is a {@link UsageError}, any other refusal an Error with the relay's message. */
export type AdminCall = <T>(method: string, path: string, body?: unknown, headers?: Record<string, string>) => Promise<T>;

/** Calls to the admin API of the relay at `url` (a base URL such as http://127.0.0.1:8080), authenticated with `token`. */
export function adminCall(url: string, token: string): AdminCall {
  const base = new URL("/admin/", url);
  return async <T>(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<T> => {
    let response: Response;
    try {
      response = await fetch(new URL(path, base), {
        method,
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json", ...headers },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
    } catch (error) {
      throw new Error(`cannot reach the relay at ${base.origin}: ${error instanceof Error ? error.message : String(error)}`);
    }
    const text = await response.text();
    if (response.ok) return JSON.parse(text) as T;
    let message = text.slice(0, 200);
    try {
      message = (JSON.parse(text) as { error: { message: string } }).error.message;
    } catch {
      // not an error envelope: show the start of the body
    }
    if (response.status === 400) throw new UsageError(message);
    throw new RelayRefusal(response.status, `the relay answered ${response.status}: ${message}`);
  };
}

/** The relay refused an admin call with `status` (other than 400). */
export class RelayRefusal extends Error {
  override name = "RelayRefusal";
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** The admin API at `url`, authenticated with `token`. */
export function httpAdminTarget(url: string, token: string): AdminTarget {
  const call = adminCall(url, token);
  const id = (key: string) => `keys/${encodeURIComponent(key)}`;
  return {
    listKeys: async (filter) => (await call<{ data: KeyView[] }>("GET", `keys?${new URLSearchParams(filter)}`)).data,
    showKey: (key) => call("GET", id(key)),
    createKey: (body, idempotencyKey) => call("POST", "keys", body, idempotencyKey === undefined ? {} : { "idempotency-key": idempotencyKey }),
    updateKey: (key, body) => call("PATCH", id(key), body),
    rotateKey: (key, body, idempotencyKey) => call("POST", `${id(key)}/rotate`, body, idempotencyKey === undefined ? {} : { "idempotency-key": idempotencyKey }),
    revokeKey: (key) => call("DELETE", id(key)),
    listAudit: async (query) => {
      const params = new URLSearchParams({ limit: String(query.limit) });
      for (const name of ["since", "until", "actor", "action", "target", "cursor"] as const) if (query[name] !== undefined) params.set(name, String(query[name]));
      const page = await call<{ data: AuditPage["events"]; next_cursor: string | null }>("GET", `audit?${params}`);
      return { events: page.data, nextCursor: page.next_cursor };
    },
    close: () => Promise.resolve(),
  };
}

/** The configured store itself, acting as `local:<OS user>`; a running relay sees the change within `server.keyRefreshMs`. */
export async function storeAdminTarget(config: Config, runtime: Runtime): Promise<AdminTarget> {
  const store = await createStore(config.storage, { durability: config.journal.durability, openSqlite: runtime.openSqlite });
  try {
    const keys = createKeyAdmin({
      store,
      keySecret: await resolveKeySecret(store, config.server.keySecret),
      configKeys: config.keys,
      isModel: (name) => config.models.has(name),
    });
    const actor = `local:${userInfo().username}`;
    return {
      listKeys: (filter) => badInput(() => keys.list(keyListQuery(filter))),
      showKey: (id) => keys.get(id),
      createKey: (body, idempotencyKey) => badInput(() => keys.create(createKeyBody(body), actor, idempotencyKey)),
      updateKey: (id, body) => badInput(() => keys.update(id, keyChangeBody(body), actor)),
      rotateKey: (id, body, idempotencyKey) => badInput(() => keys.rotate(id, { ...rotateKeyBody(body), idempotencyKey }, actor)),
      revokeKey: (id) => keys.revoke(id, actor),
      listAudit: (query) => store.listAudit(query),
      close: () => store.close(),
    };
  } catch (error) {
    await store.close();
    throw error;
  }
}

/** Runs `work`; a 400 (a bad value) becomes a UsageError, as the HTTP target reports it. */
async function badInput<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof RelayError && error.status === 400) throw new UsageError(error.message);
    throw error;
  }
}
