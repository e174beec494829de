import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { requestReferences } from "./request-references.ts";

describe("requestReferences", () => {
  test("finds input by reference in every wire format, not inline data", () => {
    const byRef = (body: Record<string, unknown>) => requestReferences(body).inputByReference;
    assert.equal(byRef({ messages: [{ role: "user", content: "hi" }] }), false);
    assert.equal(byRef({ messages: [{ content: [{ type: "image_url", image_url: { url: "data:image/png;base64,AAAA" } }] }] }), false);
    assert.equal(byRef({ messages: [{ content: [{ type: "image", source: { type: "base64", media_type: "image/png", data: "AAAA" } }] }] }), false);
    assert.equal(byRef({ messages: [{ content: [{ type: "image_url", image_url: { url: "https://x/cat.png" } }] }] }), true);
    assert.equal(byRef({ input: [{ content: [{ type: "input_image", image_url: "https://x/cat.png" }] }] }), true);
    assert.equal(byRef({ input: [{ content: [{ type: "input_file", file_id: "file-1" }] }] }), true);
    assert.equal(byRef({ messages: [{ content: [{ type: "document", source: { type: "url", url: "https://x/a.pdf" } }] }] }), true);
    assert.equal(byRef({ messages: [{ content: [{ type: "document", source: { type: "file", file_id: "f" } }] }] }), true);
    assert.equal(byRef({ input: "more", previous_response_id: "resp_1" }), true);
    assert.equal(byRef({ input: "more", conversation: "conv_1" }), true);
    assert.equal(byRef({ messages: [], container: "cntr_1" }), true);
    assert.equal(byRef({ input: "more", previous_response_id: null }), false);
  });

  test("names server-side tools billed per use, dated variants included", () => {
    const tools = (body: Record<string, unknown>) => requestReferences(body).serverTools;
    assert.deepEqual(tools({ tools: [{ type: "function", function: { name: "f" } }] }), []);
    assert.equal(requestReferences({ tools: [{ type: "function", function: { name: "f" } }] }).inputByReference, false);
    assert.deepEqual(tools({ tools: [{ type: "web_search_20250305", name: "web_search", max_uses: 3 }, { type: "code_execution_20250522" }] }), [
      { type: "web_search_20250305", kind: "web_search", maxUses: 3 },
      { type: "code_execution_20250522", kind: "code_execution" },
    ]);
    assert.deepEqual(tools({ tools: [{ type: "file_search" }, { type: "code_interpreter" }, { type: "web_fetch_20250910", max_uses: 0 }] }), [
      { type: "file_search", kind: "file_search" },
      { type: "code_interpreter", kind: "code_interpreter" },
      { type: "web_fetch_20250910", kind: "web_fetch" },
    ]);
    assert.deepEqual(tools({ web_search_options: {} }), [{ type: "web_search_options", kind: "web_search" }]);
    assert.equal(requestReferences({ input: "news?", tools: [{ type: "web_search_preview" }] }).inputByReference, true, "the tool's results are input the body does not hold");
  });
});
