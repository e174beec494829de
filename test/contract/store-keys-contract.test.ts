import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { RelayError } from "../../src/shared/relay-error.ts";
import type { NewKey } from "../../src/keys/key-store.ts";
import { backends } from "../support/store-targets.ts";

const actor = (at: number) => ({ actor: "admin", at });

function newKey(id: string, overrides: Partial<NewKey> = {}): NewKey {
  return { id, project: "p", models: ["*"], regions: null, metadata: { team: "t" }, expiresAt: null, secretHash: `hash-of-${id}`, prefix: "rn-abcdefg", ...overrides };
}

const rejectsWith = (status: number, code: string) => (error: unknown) => error instanceof RelayError && error.status === status && error.code === code;

for (const backend of backends) {
  describe(`stored keys and audit: ${backend.name}`, () => {
    it("keysChangedSince returns every key at 0, nothing when the version has not moved, only changed keys after it", async () => {
      const store = await (await backend.target()).open();
      try {
        assert.deepEqual(await store.keysChangedSince(0), { version: 0, keys: [] });
        await store.createKey(newKey("a"), actor(1000));
        await store.createKey(newKey("b", { regions: ["eu"], expiresAt: 5000 }), actor(1001));
        const all = await store.keysChangedSince(0);
        assert.equal(all.version, 2);
        assert.deepEqual(all.keys.map((k) => [k.id, k.secretHash, k.regions, k.expiresAt]), [["a", "hash-of-a", null, null], ["b", "hash-of-b", ["eu"], 5000]]);
        assert.deepEqual(await store.keysChangedSince(2), { version: 2, keys: [] });
        const updated = await store.updateKey("a", { models: ["m1"], expiresAt: 9000 }, actor(1002));
        assert.deepEqual([updated.models, updated.expiresAt, updated.metadata], [["m1"], 9000, { team: "t" }]);
        const changed = await store.keysChangedSince(2);
        assert.deepEqual([changed.version, changed.keys.map((k) => k.id)], [3, ["a"]]);
        const revoked = await store.revokeKey("b", actor(1003));
        assert.equal(revoked.revokedAt, 1003);
        assert.equal((await store.revokeKey("b", actor(1004))).revokedAt, 1003, "revoking twice keeps the first time");
        assert.equal((await store.getKey("b"))?.revokedAt, 1003);
        assert.equal(await store.getKey("missing"), undefined);
      } finally {
        await store.close();
      }
    });

    it("refuses a taken id (409), unknown ids (404) and changes to revoked keys (409), with nothing written", async () => {
      const store = await (await backend.target()).open();
      try {
        await store.createKey(newKey("a"), actor(1));
        await assert.rejects(store.createKey(newKey("a", { secretHash: "other" }), actor(2)), rejectsWith(409, "key_exists"));
        await assert.rejects(store.updateKey("nope", { project: "x" }, actor(2)), rejectsWith(404, "key_not_found"));
        await assert.rejects(store.revokeKey("nope", actor(2)), rejectsWith(404, "key_not_found"));
        await store.revokeKey("a", actor(3));
        await assert.rejects(store.updateKey("a", { project: "x" }, actor(4)), rejectsWith(409, "key_revoked"));
        await assert.rejects(store.rotateKey({ id: "a", secretHash: "h2", prefix: "rn-2", previousValidUntil: 4 }, actor(4)), rejectsWith(409, "key_revoked"));
        const page = await store.listAudit({ limit: 100 });
        assert.deepEqual(page.events.map((e) => e.action), ["key.revoke", "key.create"]);
      } finally {
        await store.close();
      }
    });

    it("a rotation keeps the old hash until its grace ends and replays its answer for the same Idempotency-Key", async () => {
      const store = await (await backend.target()).open();
      try {
        await store.createKey(newKey("r"), actor(10));
        const idempotency = { key: "idem-1", fingerprint: "f1", sealedSecret: "sealed-1" };
        const first = await store.rotateKey({ id: "r", secretHash: "h2", prefix: "rn-2", previousValidUntil: 70, idempotency }, actor(20));
        assert.equal(first.replayed, null);
        assert.deepEqual([first.key.prefix, first.key.previousValidUntil], ["rn-2", 70]);
        const stored = await store.getKey("r");
        assert.deepEqual([stored?.secretHash, stored?.previousHash], ["h2", "hash-of-r"]);
        const again = await store.rotateKey({ id: "r", secretHash: "h3", prefix: "rn-3", previousValidUntil: 90, idempotency: { ...idempotency, sealedSecret: "sealed-2" } }, actor(30));
        assert.deepEqual(again, { key: first.key, replayed: { sealedSecret: "sealed-1" } });
        assert.equal((await store.getKey("r"))?.secretHash, "h2", "rotated once");
        await assert.rejects(
          store.rotateKey({ id: "r", secretHash: "h4", prefix: "rn-4", previousValidUntil: 90, idempotency: { ...idempotency, fingerprint: "f2" } }, actor(40)),
          rejectsWith(409, "idempotency_key_reused"),
        );
      } finally {
        await store.close();
      }
    });

    it("records and lists audit events newest first, filtered and paged; ensureMeta keeps the first value", async () => {
      const store = await (await backend.target()).open();
      try {
        for (let i = 0; i < 5; i++) {
          await store.recordAudit({ actor: i % 2 === 0 ? "admin" : "ops", action: "budget.update", target: `budget:b${i}`, before: { limit: i }, after: { limit: i + 1 }, at: 100 + i });
        }
        const first = await store.listAudit({ limit: 2 });
        assert.deepEqual(first.events.map((e) => e.target), ["budget:b4", "budget:b3"]);
        assert.deepEqual(first.events[0]?.after, { limit: 5 });
        const second = await store.listAudit({ limit: 10, cursor: first.nextCursor! });
        assert.deepEqual(second.events.map((e) => e.target), ["budget:b2", "budget:b1", "budget:b0"]);
        assert.equal(second.nextCursor, null);
        assert.deepEqual((await store.listAudit({ limit: 10, actor: "ops" })).events.map((e) => e.target), ["budget:b3", "budget:b1"]);
        assert.deepEqual((await store.listAudit({ limit: 10, since: 102, until: 104 })).events.map((e) => e.at), [103, 102]);
        await assert.rejects(store.listAudit({ limit: 10, cursor: "bogus" }), rejectsWith(400, "invalid_request"));
        const stamped = await store.recordAudit({ actor: "ops", action: "config.reload", target: "config", before: null, after: { models: 3 } });
        assert.ok(Math.abs(stamped.at - Date.now()) < 60_000, "at defaults to now");
        assert.equal(await store.ensureMeta("k", "first"), "first");
        assert.equal(await store.ensureMeta("k", "second"), "first");
      } finally {
        await store.close();
      }
    });
  });
}
