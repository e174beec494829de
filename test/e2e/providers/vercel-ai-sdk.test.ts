import { after, before, describe, test } from "node:test";
import { assertCell, assertErrorCell } from "../../support/matrix-cell.ts";
import type { Caller } from "../../support/matrix-callers.ts";
import { FAMILY_NAMES, PASSTHROUGH, type Content, type FamilyName, type Mode } from "../../support/matrix-providers.ts";
import { startMatrixRelay, type MatrixRelay } from "../../support/matrix-relay.ts";
import { VERCEL_ANTHROPIC_CALLER, VERCEL_OPENAI_CALLER } from "../../support/vercel-ai-callers.ts";

// The Vercel `ai` SDK through Renio, as its users call it: generateText (JSON) and streamText
// (stream), plain, with a tool and with an image, through `@ai-sdk/openai` pointed at Renio's
// OpenAI route and `@ai-sdk/anthropic` at its Anthropic route, to every provider family of the
// translation matrix (so across translated and chained paths), with the same checks.
const MODES: readonly Mode[] = ["json", "stream"];
const CONTENTS: readonly Content[] = ["plain", "tools", "images", "tool result"];
/**
 * Left out: `@ai-sdk/anthropic` streaming from the Anthropic family. That call is not translated,
 * so Renio forwards the provider's bytes untouched, and the scripted stream carries an unknown
 * future event type (as the API reference allows), which this SDK's schema rejects
 * (AI_TypeValidationError) — the SDK's strictness, not a translation path.
 */
const untranslatedUnknownEvents = (caller: Caller, name: FamilyName, mode: Mode) => caller === VERCEL_ANTHROPIC_CALLER && PASSTHROUGH[name] === caller.wire && mode === "stream";

let matrix: MatrixRelay;

before(async () => {
  matrix = await startMatrixRelay();
});

after(() => matrix.stop());

for (const caller of [VERCEL_OPENAI_CALLER, VERCEL_ANTHROPIC_CALLER]) {
  describe(caller.name, () => {
    for (const name of FAMILY_NAMES) {
      for (const mode of MODES) {
        test(`→ ${name} · ${mode === "json" ? "generateText" : "streamText"} · provider error`, () => assertErrorCell(caller, matrix.families.get(name), mode, matrix.url, matrix.store));
        if (untranslatedUnknownEvents(caller, name, mode)) continue;
        for (const content of CONTENTS) {
          test(`→ ${name} · ${mode === "json" ? "generateText" : "streamText"} · ${content}`, () => assertCell(caller, matrix.families.get(name), mode, content, matrix.url, matrix.store));
        }
      }
    }
  });
}
