/**
 * What the input rules add to a model call: the request target check (request-target.ts) on a
 * model route's URL, and the `model` name check (input-text.ts).
 * Run: node_modules/.bin/bun bench/input-text.bench.ts   (or deno run -A bench/input-text.bench.ts)
 */
import { Bench } from "tinybench";
import { requestTargetRefusal } from "../src/http/request-target.ts";
import { textProblem, TEXT_BOUNDS } from "../src/shared/input-text.ts";

const url = "http://127.0.0.1:8080/v1/chat/completions";
const adminUrl = "http://127.0.0.1:8080/admin/journal?limit=100&outcome=ok&since=2026-12-01T00%3A00%3A00Z&key=search-prod";
let sink = 0;
const bench = new Bench({ time: 1500 });
bench.add("request target, a model route", () => void (sink += requestTargetRefusal(url) === undefined ? 1 : 0));
bench.add("request target, an admin query", () => void (sink += requestTargetRefusal(adminUrl) === undefined ? 1 : 0));
bench.add("model name check", () => void (sink += textProblem("gpt-4o-mini-2024-07-18", TEXT_BOUNDS.name) === undefined ? 1 : 0));
bench.add("empty loop", () => void (sink += 1));
await bench.run();
console.table(bench.table());
if (sink === 0) console.log(sink);
