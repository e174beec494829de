import assert from "node:assert/strict";
import { test } from "node:test";
import { UntranslatableError } from "../translation/request-translation.ts";
import { toConverse } from "./openai-to-bedrock-request.ts";

const user = { role: "user", content: "Hi" };

function rejectsParam(request: Record<string, unknown>, param: string): void {
  assert.throws(() => toConverse({ model: "m", messages: [user], ...request }), (e) => e instanceof UntranslatableError && e.param === param);
}

test("parameters with no Converse equivalent are refused by name, never dropped", () => {
  rejectsParam({ logprobs: true }, "logprobs");
  rejectsParam({ response_format: { type: "json_object" } }, "response_format");
  rejectsParam({ n: 2 }, "n");
  rejectsParam({ tools: [{ type: "function", function: { name: "f" } }], tool_choice: "none" }, "tool_choice");
  rejectsParam({ messages: [{ role: "user", content: [{ type: "image_url", image_url: { url: "https://example.com/a.png" } }] }] }, "messages[0].content[0].image_url");
  rejectsParam({ messages: [{ role: "user", content: [{ type: "input_audio", input_audio: {} }] }] }, "messages[0].content[0].type");
});

test("null-valued optional parameters and n: 1 are accepted", () => {
  const call = toConverse({ model: "m", messages: [user], n: 1, logprobs: null, stream: true, stream_options: { include_usage: true } });
  assert.equal(call.stream, true);
  assert.equal(call.includeUsage, true);
});

test("parallel tool results become one user turn; a named tool choice maps to toolChoice.tool", () => {
  const call = toConverse({
    model: "m",
    tools: [{ type: "function", function: { name: "a", parameters: { type: "object" } } }],
    tool_choice: { type: "function", function: { name: "a" } },
    messages: [
      user,
      { role: "assistant", content: "", tool_calls: [
        { id: "t1", type: "function", function: { name: "a", arguments: "{\"x\":1}" } },
        { id: "t2", type: "function", function: { name: "a", arguments: "" } },
      ] },
      { role: "tool", tool_call_id: "t1", content: "one" },
      { role: "tool", tool_call_id: "t2", content: [{ type: "text", text: "two" }] },
    ],
  });
  assert.deepEqual(call.body["messages"], [
    { role: "user", content: [{ text: "Hi" }] },
    { role: "assistant", content: [{ toolUse: { toolUseId: "t1", name: "a", input: { x: 1 } } }, { toolUse: { toolUseId: "t2", name: "a", input: {} } }] },
    { role: "user", content: [{ toolResult: { toolUseId: "t1", content: [{ text: "one" }] } }, { toolResult: { toolUseId: "t2", content: [{ text: "two" }] } }] },
  ]);
  assert.deepEqual((call.body["toolConfig"] as Record<string, unknown>)["toolChoice"], { tool: { name: "a" } });
});
