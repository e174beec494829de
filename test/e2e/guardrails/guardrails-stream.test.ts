import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { AnswerRules } from "../../../src/guardrails/answer-rules.ts";
import { BUILT_IN } from "../../../src/guardrails/detector-catalog.ts";
import { FindingLog } from "../../../src/guardrails/guardrail-findings.ts";
import type { Policy } from "../../../src/guardrails/guardrail-policies.ts";
import { PlaceholderBook } from "../../../src/guardrails/placeholders.ts";
import { StreamScanner } from "../../../src/guardrails/stream-scanner.ts";
import { parseSseEvent } from "../../../src/usage/sse-event-fields.ts";
import { guardrailAnswer } from "../../support/guardrail-upstream.ts";

/**
 * The stream guard on its own, over the three wire formats' streams: the same answer cut into
 * chunks at every byte (mid-event, mid-character, mid-placeholder, mid-match) gives the same
 * events; a pseudonymised value comes back exactly, a value a policy redacts never leaves, a
 * block ends the stream with the format's error event; prose waits for at most its last word.
 */

const PATHS = ["/v1/chat/completions", "/v1/responses", "/v1/messages"] as const;
const encoder = new TextEncoder();
const SECRET_EMAIL = "piet.jansen@example.org";
const IBAN = "NL91ABNA0417164300";
/** What the caller sent, pseudonymised: the model answers with the placeholder. */
const CALLER_EMAIL = "jan.de.vries@example.nl";

function policy(answer: "redact" | "block" | "log"): Policy {
  return { id: "pii", detectors: [BUILT_IN.email, BUILT_IN.iban], parts: new Set(), request: "pseudonymise", answer, webhook: undefined, keys: undefined, projects: undefined, models: undefined, regions: undefined, outsideHomeRegion: false };
}

function rules(answer: "redact" | "block" | "log", log = new FindingLog()): AnswerRules {
  const book = new PlaceholderBook();
  assert.equal(book.placeholder("EMAIL", CALLER_EMAIL, true), "[EMAIL_1]");
  return new AnswerRules([policy(answer)], book, log);
}

/** The provider's stream on `path` answering `text` in deltas of `pieceSize` characters. */
function upstreamBytes(path: string, text: string, pieceSize: number): Uint8Array {
  const answer = guardrailAnswer({ path, body: { model: "m", stream: true }, bytes: 0 }, { text, pieceSize });
  assert.ok("sse" in answer);
  return encoder.encode(answer.sse.map((event) => `${event}\n\n`).join(""));
}

/** Runs the bytes through a scanner in the given chunks; the output and the block, if any. */
function scan(path: string, chunks: readonly Uint8Array[], answer: "redact" | "block" | "log" = "redact"): { out: string; blocked: boolean; lastSequence: number | undefined } {
  const scanner = new StreamScanner(rules(answer), path);
  let out = "";
  for (const chunk of chunks) {
    const step = scanner.push(chunk);
    out += step.out;
    if (step.blocked) return { out, blocked: true, lastSequence: scanner.lastSequence };
  }
  const step = scanner.end();
  return { out: out + step.out, blocked: step.blocked !== undefined, lastSequence: scanner.lastSequence };
}

/** The text the client assembles from the output's deltas. */
function deltaText(path: string, out: string): string {
  let text = "";
  for (const raw of out.split("\n\n")) {
    const { data } = parseSseEvent(raw);
    if (data === "" || data === "[DONE]") continue;
    const event = JSON.parse(data) as Record<string, unknown> & { choices?: { delta?: { content?: string } }[]; delta?: { text?: string } | string };
    if (path === "/v1/chat/completions") text += event.choices?.[0]?.delta?.content ?? "";
    else if (path === "/v1/responses") text += event["type"] === "response.output_text.delta" ? (event.delta as string) : "";
    else if (event["type"] === "content_block_delta") text += (event.delta as { text?: string }).text ?? "";
  }
  return text;
}

function splitAt(bytes: Uint8Array, ...at: number[]): Uint8Array[] {
  const cuts = [0, ...at, bytes.length];
  return cuts.slice(1).map((end, i) => bytes.subarray(cuts[i]!, end));
}

describe("stream guard: matches split across chunks, on each wire format", () => {
  for (const path of PATHS) {
    test(`${path}: the same answer whatever the chunking; the caller's value restored exactly, the other redacted`, () => {
      const text = `Sure: write to [EMAIL_1] (not ${SECRET_EMAIL}), IBAN ${IBAN}. Bye`;
      const bytes = upstreamBytes(path, text, 3);
      const whole = scan(path, [bytes]);
      assert.equal(deltaText(path, whole.out), `Sure: write to ${CALLER_EMAIL} (not [EMAIL_2]), IBAN [IBAN_1]. Bye`);
      assert.ok(!whole.out.includes(SECRET_EMAIL) && !whole.out.includes(IBAN) && !whole.out.includes("[EMAIL_1]"));
      // Two-chunk cuts at every byte around each delta's text (mid-string, mid-placeholder, mid-match, at the event's
      // end), at every seventh elsewhere (mid-event), then one byte at a time.
      const raw = new TextDecoder().decode(bytes);
      const near = new Set<number>();
      for (const m of raw.matchAll(/"(?:content|delta|text)":"/g)) for (let at = m.index - 4; at < m.index + 24; at++) near.add(at);
      for (let at = 1; at < bytes.length; at++) {
        if (near.has(at) || at % 7 === 0) assert.equal(scan(path, splitAt(bytes, at)).out, whole.out, `cut at byte ${at}`);
      }
      assert.equal(scan(path, Array.from(bytes, (_, i) => bytes.subarray(i, i + 1))).out, whole.out);
      // Every event still parses, and the stream still ends as the format ends it.
      for (const raw of whole.out.split("\n\n").filter((e) => e.trim() !== "")) {
        const { data } = parseSseEvent(raw);
        if (data !== "[DONE]") JSON.parse(data);
      }
      if (path === "/v1/responses") {
        // The repeated full texts (done events, the completed response) say the same as the deltas.
        assert.ok(whole.out.includes(`"text":"Sure: write to ${CALLER_EMAIL} (not [EMAIL_2]), IBAN [IBAN_1]. Bye"`));
        assert.equal(whole.out.split(`(not [EMAIL_2])`).length - 1, 4, "the four complete texts (the deltas are 3 characters each)");
      }
    });

    test(`${path}: a block ends the stream with the format's error event, nothing of the match sent`, () => {
      const bytes = upstreamBytes(path, `The account is ${IBAN} as agreed, goodbye and thanks for all`, 4);
      for (const chunks of [[bytes], splitAt(bytes, Math.floor(bytes.length / 3), Math.floor(bytes.length / 2))]) {
        const { out, blocked, lastSequence } = scan(path, chunks, "block");
        assert.ok(blocked);
        assert.ok(!out.includes(IBAN.slice(0, 8)) && !out.includes("NL91"), "no part of the match was released");
        assert.ok(!out.includes("goodbye"), "nothing after the match was released");
        assert.ok(deltaText(path, out).startsWith("The account is".slice(0, 4)) || deltaText(path, out) === "", "text before the match may have been released");
        void lastSequence;
      }
    });
  }
});

describe("stream guard: holdback", () => {
  test("prose is held back by at most its last word (and the rest of the delta it started in), and released whole at the end", () => {
    const text = "The quick brown fox jumps over the lazy dog and keeps running through the field";
    const pieceSize = 6;
    const bytes = upstreamBytes("/v1/chat/completions", text, pieceSize);
    const events = new TextDecoder().decode(bytes).split("\n\n").filter((e) => e !== "").map((e) => encoder.encode(`${e}\n\n`));
    const scanner = new StreamScanner(rules("redact"), "/v1/chat/completions");
    let out = "";
    let pushed = 0;
    for (const event of events) {
      out += scanner.push(event).out;
      pushed += deltaText("/v1/chat/completions", new TextDecoder().decode(event)).length;
      const sent = text.slice(0, pushed);
      const lastWord = sent.length - Math.max(0, sent.lastIndexOf(" ") + 1);
      const held = pushed - deltaText("/v1/chat/completions", out).length;
      assert.ok(held <= lastWord + pieceSize - 1, `${held} characters held after ${JSON.stringify(sent)}`);
    }
    out += scanner.end().out;
    assert.equal(out, new TextDecoder().decode(bytes), "an answer with nothing to change passes unchanged, byte for byte");
  });
});
