import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { UsageError } from "../shared/cli-args.ts";
import { parseBenchArgs, targetUrl } from "./bench-args.ts";
import { relayVariants, withEventLoops } from "./bench-relay-config.ts";

describe("parseBenchArgs", () => {
  it("defaults to the published methodology with journal and strict budget on", () => {
    const options = parseBenchArgs([]);
    assert.deepEqual(options.concurrency, [1, 16, 64]);
    assert.equal(options.requests, 3000);
    assert.equal(options.warmup, 300);
    assert.equal(options.rounds, 10);
    assert.deepEqual(options.modes, ["json", "stream"]);
    assert.equal(options.journal, "fsync");
    assert.equal(options.budget, "strict");
    assert.equal(options.format, "text");
    assert.equal(options.target, undefined);
    assert.equal(options.baseline, undefined);
    assert.equal(options.model, "mock-gpt");
  });

  it("reads every option", () => {
    const options = parseBenchArgs([
      "--concurrency", "2, 8", "--requests", "40", "--warmup", "0", "--rounds", "4", "--mode", "stream",
      "--journal", "process", "--budget", "observe", "--markdown", "--out", "r.md", "--baseline", "passthrough", "--max-seconds", "60",
    ]);
    assert.deepEqual(options.concurrency, [2, 8]);
    assert.deepEqual([options.requests, options.warmup, options.rounds, options.maxSeconds], [40, 0, 4, 60]);
    assert.deepEqual(options.modes, ["stream"]);
    assert.deepEqual([options.journal, options.budget, options.format, options.out, options.baseline], ["process", "observe", "markdown", "r.md", "passthrough"]);
  });

  it("takes a list of journal settings, one Renio each", () => {
    const options = parseBenchArgs(["--journal", "fsync, process"]);
    assert.deepEqual(options.journals, ["fsync", "process"]);
    assert.equal(options.journal, "fsync");
    assert.equal(options.budget, "strict");
    assert.deepEqual(parseBenchArgs([]).journals, ["fsync"]);
    assert.equal(parseBenchArgs(["--journal", "process,off", "--budget", "observe"]).budget, "observe");
    assert.throws(() => parseBenchArgs(["--journal", "fsync,fsync"]), /repeated/);
    assert.throws(() => parseBenchArgs(["--journal", "fsync,batch"]), /--journal must be one of fsync, process, off \(or a list of them\), got "batch"/);
  });

  it("takes a storage or a list of them, and a PostgreSQL URL for postgres only", () => {
    assert.deepEqual([parseBenchArgs([]).storages, parseBenchArgs([]).pgUrl], [["sqlite"], undefined]);
    assert.deepEqual(parseBenchArgs(["--storage", "postgres"]).storages, ["postgres"]);
    const both = parseBenchArgs(["--storage", "sqlite, postgres", "--journal", "fsync,process", "--pg-url", "postgres://u:pw@127.0.0.1:5433/scratch"]);
    assert.deepEqual([both.storages, both.journals, both.pgUrl], [["sqlite", "postgres"], ["fsync", "process"], "postgres://u:pw@127.0.0.1:5433/scratch"]);
    assert.throws(() => parseBenchArgs(["--storage", "mysql"]), /--storage must be one of sqlite, postgres \(or a list of them\), got "mysql"/);
    assert.throws(() => parseBenchArgs(["--storage", "postgres,postgres"]), /--storage has a repeated value/);
    assert.throws(() => parseBenchArgs(["--pg-url", "postgres://h/db"]), /--pg-url applies to --storage postgres only/);
    assert.throws(() => parseBenchArgs(["--storage", "postgres", "--pg-url", "mysql://u:secret@h/db"]), (error: Error) => {
      assert.match(error.message, /--pg-url must be a URL like postgres:\/\//);
      assert.doesNotMatch(error.message, /secret/);
      return true;
    });
    assert.throws(() => parseBenchArgs(["--target", "http://127.0.0.1:4000", "--storage", "postgres"]), /do not apply to --target/);
    assert.throws(() => parseBenchArgs(["--duration", "1m", "--storage", "sqlite,postgres"]), /one Renio started here/);
    assert.equal(parseBenchArgs(["--duration", "1m", "--storage", "postgres"]).storages[0], "postgres");
  });

  it("starts one Renio per storage and journal setting, with ids the report and durable-write costs use", () => {
    assert.deepEqual(relayVariants(["postgres"], ["fsync"]).map((v) => [v.id, v.label, v.name]), [["renio", "Renio", ""]]);
    assert.deepEqual(relayVariants(["postgres"], ["fsync", "process"]).map((v) => [v.id, v.label]), [["renio-fsync", "Renio fsync"], ["renio-process", "Renio process"]]);
    assert.deepEqual(
      relayVariants(["sqlite", "postgres"], ["fsync", "process"]).map((v) => [v.storage, v.journal, v.id, v.label, v.name]),
      [
        ["sqlite", "fsync", "renio-sqlite-fsync", "Renio sqlite fsync", "sqlite-fsync"],
        ["sqlite", "process", "renio-sqlite-process", "Renio sqlite process", "sqlite-process"],
        ["postgres", "fsync", "renio-postgres-fsync", "Renio postgres fsync", "postgres-fsync"],
        ["postgres", "process", "renio-postgres-process", "Renio postgres process", "postgres-process"],
      ],
    );
    assert.deepEqual(relayVariants(["sqlite", "postgres"], ["fsync"]).map((v) => v.label), ["Renio sqlite", "Renio postgres"]);
  });

  it("takes a list of models, one Renio each, a name ending in -translated served through translation", () => {
    const options = parseBenchArgs(["--model", "mock-gpt, mock-claude-translated"]);
    assert.deepEqual(options.models, [{ name: "mock-gpt", translated: false }, { name: "mock-claude-translated", translated: true }]);
    assert.equal(options.model, "mock-gpt");
    assert.deepEqual(parseBenchArgs([]).models, [{ name: "mock-gpt", translated: false }]);
    assert.deepEqual(parseBenchArgs(["--model", "claude-translated"]).models, [{ name: "claude-translated", translated: true }]);
    assert.throws(() => parseBenchArgs(["--model", "a,a"]), /--model has a repeated value/);
    assert.throws(() => parseBenchArgs(["--model", "a,,b"]), /--model has an empty name in "a,,b"/);
    assert.throws(() => parseBenchArgs(["--model", "a,b", "--target", "http://127.0.0.1:4000"]), /--target measures one model/);
    assert.throws(() => parseBenchArgs(["--model", "a,b", "--duration", "1m"]), /no --journal or --model list/);
  });

  it("takes a guardrails setting or a list of them, one Renio each, for the Renios started here only", () => {
    assert.deepEqual(parseBenchArgs([]).guardrails, ["off"]);
    assert.deepEqual(parseBenchArgs(["--guardrails", "off, redact"]).guardrails, ["off", "redact"]);
    assert.deepEqual(parseBenchArgs(["--guardrails", "log"]).guardrails, ["log"]);
    assert.deepEqual(parseBenchArgs(["--guardrails", "redact", "--duration", "1m"]).guardrails, ["redact"]);
    const refused = (args: string[], message: RegExp) => assert.throws(() => parseBenchArgs(args), (e: unknown) => e instanceof UsageError && message.test(e.message), args.join(" "));
    refused(["--guardrails", "on"], /--guardrails must be one of off, log, redact \(or a list of them\), got "on"/);
    refused(["--guardrails", "off,off"], /--guardrails has a repeated value/);
    refused(["--guardrails", "off,redact", "--target", "http://127.0.0.1:4000"], /--guardrails configure the Renio started here; they do not apply to --target \(configure the target's own guardrails\)/);
    refused(["--guardrails", "off,redact", "--mode", "capacity"], /--guardrails applies to --mode json, stream or both/);
    refused(["--guardrails", "off,redact", "--duration", "1m"], /give --guardrails a single value/);
  });

  it("starts one Renio per guardrails setting beside each storage and journal setting, the guarded one named by its setting and pointing at its twin", () => {
    assert.deepEqual(
      relayVariants(["sqlite"], ["fsync"], ["off", "redact"]).map((v) => [v.id, v.label, v.name, v.guardrails, v.unguarded]),
      [["renio", "Renio", "", "off", undefined], ["renio-guardrails-redact", "Renio, guardrails redact", "guardrails-redact", "redact", "renio"]],
    );
    assert.deepEqual(
      relayVariants(["sqlite"], ["fsync", "process"], ["off", "log"]).map((v) => [v.id, v.label, v.unguarded]),
      [
        ["renio-fsync", "Renio fsync", undefined],
        ["renio-fsync-guardrails-log", "Renio fsync, guardrails log", "renio-fsync"],
        ["renio-process", "Renio process", undefined],
        ["renio-process-guardrails-log", "Renio process, guardrails log", "renio-process"],
      ],
    );
    assert.deepEqual(relayVariants(["sqlite"], ["fsync"], ["redact"]).map((v) => [v.id, v.unguarded]), [["renio-guardrails-redact", undefined]], "no twin without off");
    assert.deepEqual(relayVariants(["sqlite"], ["fsync"]), relayVariants(["sqlite"], ["fsync"], ["off"]));
  });

  it("reads a soak duration in seconds, minutes or hours, at concurrency 64 unless given", () => {
    const soak = parseBenchArgs(["--duration", "10m"]);
    assert.deepEqual(soak.soak, { durationSeconds: 600, sampleSeconds: 60 });
    assert.deepEqual(soak.concurrency, [64]);
    assert.deepEqual(parseBenchArgs(["--duration", "30s", "--sample-seconds", "5", "--concurrency", "8"]).soak, { durationSeconds: 30, sampleSeconds: 5 });
    assert.deepEqual(parseBenchArgs(["--duration", "20s"]).soak, { durationSeconds: 20, sampleSeconds: 2 });
    assert.equal(parseBenchArgs(["--duration", "2h", "--max-seconds", "7300"]).soak?.durationSeconds, 7200);
    assert.equal(parseBenchArgs([]).soak, undefined);
  });

  it("refuses soak settings that do not fit", () => {
    assert.throws(() => parseBenchArgs(["--duration", "10"]), /--duration must be a number of seconds, minutes or hours \(90s, 10m, 2h\), got "10"/);
    assert.throws(() => parseBenchArgs(["--duration", "0m"]), /--duration must be/);
    assert.throws(() => parseBenchArgs(["--duration", "2h"]), /longer than --max-seconds/);
    assert.throws(() => parseBenchArgs(["--duration", "5s", "--sample-seconds", "6"]), /--sample-seconds is longer than --duration/);
    assert.throws(() => parseBenchArgs(["--sample-seconds", "6"]), /applies to --duration only/);
    assert.throws(() => parseBenchArgs(["--duration", "1m", "--concurrency", "1,64"]), /single value/);
    assert.throws(() => parseBenchArgs(["--duration", "1m", "--journal", "fsync,process"]), /one Renio started here/);
    assert.throws(() => parseBenchArgs(["--duration", "1m", "--baseline", "passthrough"]), /one Renio started here/);
  });

  it("caps rounds at the request count", () => {
    assert.equal(parseBenchArgs(["--requests", "3"]).rounds, 3);
  });

  it("turns the budget off with the journal", () => {
    const options = parseBenchArgs(["--journal", "off"]);
    assert.deepEqual([options.journal, options.budget], ["off", "off"]);
    assert.throws(() => parseBenchArgs(["--journal", "off", "--budget", "strict"]), /budgets need the journal/);
  });

  it("takes a target with repeatable headers, and refuses relay settings with it", () => {
    const options = parseBenchArgs(["--target", "http://127.0.0.1:4000", "--header", "Authorization: Bearer x:y", "--header", "x-team:a"]);
    assert.equal(options.target, "http://127.0.0.1:4000/v1/chat/completions");
    assert.deepEqual(options.headers, [["Authorization", "Bearer x:y"], ["x-team", "a"]]);
    assert.throws(() => parseBenchArgs(["--target", "http://127.0.0.1:4000", "--budget", "off"]), UsageError);
    assert.throws(() => parseBenchArgs(["--header", "a: b"]), /--target only/);
  });

  it("rejects bad values with a usage error", () => {
    for (const args of [
      ["--concurrency", "0"], ["--concurrency", "1,x"], ["--concurrency", "4,4"], ["--requests", "1.5"], ["--warmup", "-1"],
      ["--mode", "sse"], ["--journal", "batch"], ["--budget", "hard"], ["--json", "--markdown"], ["--baseline", "nginx"],
      ["--target", "ftp://x"], ["--target", "http://x", "--header", "no colon"], ["--unknown"], ["positional"],
    ]) {
      assert.throws(() => parseBenchArgs(args), UsageError, args.join(" "));
    }
  });
});

describe("targetUrl", () => {
  it("completes a base URL to the chat completions path", () => {
    assert.equal(targetUrl("http://h:1"), "http://h:1/v1/chat/completions");
    assert.equal(targetUrl("http://h:1/v1/"), "http://h:1/v1/chat/completions");
    assert.equal(targetUrl("https://h/openai/v1"), "https://h/openai/v1/chat/completions");
    assert.equal(targetUrl("http://h:1/api/v1/chat/completions"), "http://h:1/api/v1/chat/completions");
  });

  it("--mode capacity: thousands of long streams, Renio fsync and off by default", () => {
    const options = parseBenchArgs(["--mode", "capacity", "--compare", "go,nginx", "--baseline", "passthrough"]);
    assert.deepEqual(options.concurrency, [256, 1024, 4096]);
    assert.equal(options.requests, 2048);
    assert.deepEqual(options.modes, []);
    assert.deepEqual(options.journals, ["fsync", "off"]);
    assert.deepEqual(options.capacity, { chunks: 20, chunkIntervalMs: 250, compare: ["go", "nginx"], goProxy: undefined, nginx: "nginx" });
    const tuned = parseBenchArgs(["--mode", "capacity", "--chunks", "50", "--chunk-interval-ms", "20", "--compare", "go", "--go-proxy", "./go-proxy", "--upstream-client", "socket"]);
    assert.deepEqual([tuned.capacity?.chunks, tuned.capacity?.chunkIntervalMs, tuned.capacity?.goProxy, tuned.upstreamClient], [50, 20, "./go-proxy", "socket"]);
  });

  it("--event-loops starts one Renio per value, each named by its loops", () => {
    const options = parseBenchArgs(["--mode", "capacity", "--journal", "off", "--event-loops", "1,auto"]);
    assert.deepEqual(options.eventLoops, [1, "auto"]);
    assert.deepEqual(
      withEventLoops(relayVariants(["sqlite"], options.journals), options.eventLoops).map((v) => [v.id, v.label, v.eventLoops]),
      [["renio", "Renio, 1 loop", 1], ["renio-loops-auto", "Renio, auto loops", "auto"]],
    );
    assert.deepEqual(withEventLoops(relayVariants(["sqlite"], ["off"]), [2]).map((v) => [v.id, v.eventLoops]), [["renio", 2]], "one value: ids as they are");
    assert.deepEqual(parseBenchArgs([]).eventLoops, [], "none given: Renio's default");
    assert.throws(() => parseBenchArgs(["--event-loops", "0"]), (e: unknown) => e instanceof UsageError && /"0" is not a count from 1 to 64 or auto/.test(e.message));
    assert.throws(() => parseBenchArgs(["--event-loops", "2,2"]), (e: unknown) => e instanceof UsageError && /names a value twice/.test(e.message));
  });

  it("capacity settings outside --mode capacity, or clashing with it, are usage errors", () => {
    assert.throws(() => parseBenchArgs(["--chunks", "5"]), (e: unknown) => e instanceof UsageError && /apply to --mode capacity only/.test(e.message));
    assert.throws(() => parseBenchArgs(["--mode", "capacity", "--go-proxy", "x"]), (e: unknown) => e instanceof UsageError && /--go-proxy applies to --compare go only/.test(e.message));
    assert.throws(() => parseBenchArgs(["--mode", "capacity", "--compare", "caddy"]), (e: unknown) => e instanceof UsageError && /--compare must be one of go, nginx/.test(e.message));
    assert.throws(() => parseBenchArgs(["--mode", "capacity", "--target", "http://127.0.0.1:1"]), UsageError);
    assert.throws(() => parseBenchArgs(["--mode", "capacity", "--duration", "1m"]), UsageError);
  });
});
