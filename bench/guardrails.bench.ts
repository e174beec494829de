/**
 * Micro-benchmark of the guardrails: the detectors over a 10 KB prompt (ordinary support chat
 * with a few personal values in it), the whole request step on a 10 KB chat body, one JSON
 * answer, and the stream guard per streamed chunk (one OpenAI chat chunk of a few characters,
 * as providers send them). `node_modules/.bin/bun bench/guardrails.bench.ts`; figures in
 * docs/guardrails.md.
 */
import { Bench } from "tinybench";
import { guardrailsSchema } from "../src/config/guardrails-schema.ts";
import { AnswerRules } from "../src/guardrails/answer-rules.ts";
import { guardJsonAnswer } from "../src/guardrails/answer-json.ts";
import { BUILT_IN } from "../src/guardrails/detector-catalog.ts";
import { FindingLog } from "../src/guardrails/guardrail-findings.ts";
import { compilePolicies } from "../src/guardrails/guardrail-policies.ts";
import { createGuardrails } from "../src/guardrails/guardrails.ts";
import { PlaceholderBook } from "../src/guardrails/placeholders.ts";
import { StreamScanner } from "../src/guardrails/stream-scanner.ts";
import { findMatches } from "../src/guardrails/text-scan.ts";

const enc = new TextEncoder();

const TURNS = [
  "Hi, my order #48213 was supposed to arrive on Tuesday but the tracking page has not changed since Saturday.",
  "Sorry about the delay. The carrier shows the parcel left the depot at 07:55 this morning; it should arrive today before 18:00.",
  "Thanks. Can you send the invoice to jan.de.vries@example.nl? The refund of EUR 24.95 should go to NL91ABNA0417164300.",
  "Of course. I have updated the billing contact and requested the refund; it takes 3 to 5 working days to show on your statement.",
  "Great. If anything goes wrong you can call me on +31 6 1234 5678 between 9 and 17. Version 4.2.1 of your app crashed twice, by the way.",
];
/** ~10 KB of chat text: the turns repeated (five personal values per 600 characters). */
const PROMPT = Array.from({ length: 17 }, () => TURNS.join("\n")).join("\n").slice(0, 10_240);
const CLEAN = PROMPT.replace(/jan\.de\.vries@example\.nl/g, "our support desk").replace(/NL91ABNA0417164300/g, "the same account").replace(/\+31 6 1234 5678/g, "the shop");
const ALL = Object.values(BUILT_IN);
const PII = compilePolicies(guardrailsSchema.parse({ policies: [{ id: "p", detectors: ["pii"], request: "redact" }] }))[0]!.detectors;
const CREDENTIALS = compilePolicies(guardrailsSchema.parse({ policies: [{ id: "p", detectors: ["credentials"], request: "redact" }] }))[0]!.detectors;

const bodyOf = (text: string) => enc.encode(JSON.stringify({ model: "gpt-4o", stream: true, messages: text.split("\n").map((content, i) => ({ role: i % 2 === 0 ? "user" : "assistant", content })) }));
const BODY = bodyOf(PROMPT);
const CLEAN_BODY = bodyOf(CLEAN);
const rails = createGuardrails(guardrailsSchema.parse({ policies: [{ id: "pii", detectors: ["pii", "credentials"], request: "redact" }] }))!;
const caller = { keyId: "k", project: "p", model: "gpt-4o" };
const otherKeys = createGuardrails(guardrailsSchema.parse({ policies: [{ id: "x", match: { keys: ["other"] }, detectors: ["email"], request: "log" }] }))!;

const policy = compilePolicies(guardrailsSchema.parse({ policies: [{ id: "pii", detectors: ["pii", "credentials"], request: "pseudonymise", answer: "redact" }] }))[0]!;
function answerRules(): AnswerRules {
  const book = new PlaceholderBook();
  book.placeholder("EMAIL", "jan.de.vries@example.nl", true);
  return new AnswerRules([policy], book, new FindingLog());
}
const ANSWER = enc.encode(JSON.stringify({ id: "chatcmpl-1", object: "chat.completion", created: 1, model: "gpt-4o", choices: [{ index: 0, message: { role: "assistant", content: TURNS.join(" ").replace("jan.de.vries@example.nl", "[EMAIL_1]") }, finish_reason: "stop" }], usage: { prompt_tokens: 900, completion_tokens: 120, total_tokens: 1020 } }));

/** One chat chunk of `text`, as OpenAI sends them. */
const chunk = (text: string) => enc.encode(`data: {"id":"chatcmpl-B9MBs8CjcvOU2jLn4n570S5qMJKcT","object":"chat.completion.chunk","created":1741570283,"model":"gpt-4o-2024-08-06","system_fingerprint":"fp_fc9f1d7035","choices":[{"index":0,"delta":{"content":${JSON.stringify(text)}},"logprobs":null,"finish_reason":null}]}\n\n`);
/** The prompt's text as chunks of 4 characters (a token each), cycled. */
const CHUNKS = Array.from({ length: 2048 }, (_, i) => chunk(PROMPT.slice(i * 4, i * 4 + 4)));
const CLEAN_CHUNKS = Array.from({ length: 2048 }, (_, i) => chunk(CLEAN.slice(i * 4, i * 4 + 4)));
let scanner = new StreamScanner(answerRules(), "/v1/chat/completions");
let at = 0;
let clean = new StreamScanner(answerRules(), "/v1/chat/completions");
let cleanAt = 0;

const detectors = new Bench({ name: `detectors over a ${(PROMPT.length / 1024).toFixed(1)} KB prompt`, time: 1000 });
detectors
  .add("all 21 built-in detectors, prompt with personal data", () => void findMatches(PROMPT, ALL))
  .add("all 21 built-in detectors, the same prompt without it", () => void findMatches(CLEAN, ALL))
  .add("pii group (12 detectors)", () => void findMatches(PROMPT, PII))
  .add("credentials group (9 detectors)", () => void findMatches(PROMPT, CREDENTIALS));

const request = new Bench({ name: `the request step on a ${(BODY.length / 1024).toFixed(1)} KB chat body (84 messages)`, time: 1000 });
request
  .add("policies for other keys only: forCall finds none (the call is not scanned)", () => void otherKeys.forCall(caller))
  .add("pii + credentials, redact: read, scan, rewrite (85 matches)", async () => {
    const call = await rails.forCall(caller)!.request(BODY, "/v1/chat/completions", ["eu"]);
    call.bodyFor("eu");
  })
  .add("pii + credentials, redact: the same body without personal data", async () => {
    const call = await rails.forCall(caller)!.request(CLEAN_BODY, "/v1/chat/completions", ["eu"]);
    call.bodyFor("eu");
  });

const answers = new Bench({ name: "answers", time: 1000 });
answers
  .add(`JSON answer (${ANSWER.length} B): scan, redact, restore`, () => void guardJsonAnswer(answerRules(), ANSWER, "/v1/chat/completions", "pii"))
  .add("stream: one 4-character chunk, text with personal data", () => {
    if (at === CHUNKS.length) ((at = 0), (scanner = new StreamScanner(answerRules(), "/v1/chat/completions")));
    scanner.push(CHUNKS[at++]!);
  })
  .add("stream: one 4-character chunk, ordinary text", () => {
    if (cleanAt === CLEAN_CHUNKS.length) ((cleanAt = 0), (clean = new StreamScanner(answerRules(), "/v1/chat/completions")));
    clean.push(CLEAN_CHUNKS[cleanAt++]!);
  });

for (const b of [detectors, request, answers]) {
  await b.run();
  console.log(b.name);
  console.table(b.table());
}
