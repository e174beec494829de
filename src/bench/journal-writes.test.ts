import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { journalWritesIn } from "./journal-writes.ts";

describe("journalWritesIn", () => {
  it("reads the journal-write counter from a Prometheus page, summing its label sets and ignoring longer names", () => {
    const page = [
      "# HELP renio_store_admission_group_size Admissions written together in one write (group commit).",
      "# TYPE renio_store_admission_group_size histogram",
      'renio_store_admission_group_size_bucket{le="1"} 3',
      "renio_store_admission_group_size_sum 57",
      "renio_store_admission_group_size_count 14",
      'renio_store_admission_group_size_count{storage="b"} 6',
      "renio_store_admission_group_size_count_total 999",
      "",
    ].join("\n");
    assert.equal(journalWritesIn(page), 20);
  });

  it("is undefined for a relay without a journal (no such metric)", () => {
    assert.equal(journalWritesIn("# TYPE renio_requests_total counter\nrenio_requests_total 5\n"), undefined);
  });
});
