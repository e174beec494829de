import { after, before, describe, test } from "node:test";
import { ANTHROPIC_CALLER, OPENAI_CALLER } from "../../support/matrix-callers.ts";
import { assertCell, assertCutCell, assertErrorCell } from "../../support/matrix-cell.ts";
import { FAMILY_NAMES, PASSTHROUGH, type Content, type Mode } from "../../support/matrix-providers.ts";
import { startMatrixRelay, type MatrixRelay } from "../../support/matrix-relay.ts";

// The translation matrix: caller format (the official OpenAI and Anthropic SDKs) × provider
// family (OpenAI, Anthropic, Gemini, Bedrock, Azure, each a scripted upstream in its own wire
// format) × JSON / stream × plain text / tools / images, through one relay whose targets all
// take `translate: true`. A caller of the provider's own format passes through untranslated;
// Anthropic callers of Gemini, Bedrock and Azure go through two translations. Each family and
// mode also has an error row: the provider's error answer in the caller's envelope.
const MODES: readonly Mode[] = ["json", "stream"];
const CONTENTS: readonly Content[] = ["plain", "tools", "images", "tool result"];

let matrix: MatrixRelay;

before(async () => {
  matrix = await startMatrixRelay();
});

after(() => matrix.stop());

for (const caller of [OPENAI_CALLER, ANTHROPIC_CALLER]) {
  describe(`${caller.name} caller`, () => {
    for (const name of FAMILY_NAMES) {
      for (const mode of MODES) {
        for (const content of CONTENTS) {
          test(`→ ${name} · ${mode} · ${content}`, () => assertCell(caller, matrix.families.get(name), mode, content, matrix.url, matrix.store));
        }
        test(`→ ${name} · ${mode} · provider error`, () => assertErrorCell(caller, matrix.families.get(name), mode, matrix.url, matrix.store));
      }
      test(`→ ${name} · stream · cut mid-event`, () => assertCutCell(caller, matrix.families.get(name), matrix.url, matrix.store, PASSTHROUGH[name] === caller.wire));
    }
  });
}
