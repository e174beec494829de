import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import OpenAI from "openai";
import { startMockServer, startRelay, TEST_KEY, type MockServer, type RelayUnderTest } from "../../support/relay-harness.ts";

const NARROW_KEY = "sk-renio-narrow-models-key-0006";
const EU_KEY = "sk-renio-eu-only-region-key-0007";

let mock: MockServer;
let relay: RelayUnderTest;

before(async () => {
  mock = await startMockServer();
  relay = await startRelay(mock.url, {
    keys: [
      { id: "test", secret: TEST_KEY, project: "tests" },
      { id: "narrow", secret: NARROW_KEY, project: "tests", models: ["mock-gpt"] },
      { id: "eu", secret: EU_KEY, project: "tests", regions: ["eu"] },
    ],
  });
});

after(async () => {
  await relay.stop();
  await mock.stop();
});

/** The refusal of a chat call by `apiKey` for `model`: its status, code and message. */
async function refusal(apiKey: string, model: string): Promise<{ status: number; code: string | null | undefined; message: string }> {
  const client = new OpenAI({ apiKey, baseURL: `${relay.url}/v1`, maxRetries: 0 });
  try {
    await client.chat.completions.create({ model, messages: [{ role: "user", content: "Hello" }], max_tokens: 8 });
  } catch (error) {
    assert.ok(error instanceof OpenAI.APIError);
    return { status: error.status ?? 0, code: error.code, message: error.message };
  }
  assert.fail(`${model} was served`);
}

describe("model and region refusals say what to do", () => {
  test("an unknown model: the closest model the key may call, and where the list is", async () => {
    const { status, code, message } = await refusal(TEST_KEY, "mock-gtp");
    assert.equal(status, 404);
    assert.equal(code, "model_not_found");
    assert.match(message, /The model `mock-gtp` does not exist or is not served by this relay; did you mean "mock-gpt"\?; GET \/v1\/models lists the models this key may call$/);
  });

  test("a model the key may not use: where its models are listed and who changes them", async () => {
    const { status, code, message } = await refusal(NARROW_KEY, "mock-claude");
    assert.equal(status, 403);
    assert.equal(code, "model_not_allowed");
    assert.match(message, /Key `narrow` may not use the model `mock-claude`; GET \/v1\/models lists the models it may call, and an operator can change the key's `models`$/);
  });

  test("a region the key may not send to: the regions it allows and the two fixes", async () => {
    const { status, code, message } = await refusal(EU_KEY, "mock-gpt");
    assert.equal(status, 403);
    assert.equal(code, "region_not_allowed");
    assert.match(message, /\(local\); it allows eu: an operator can add a target in one of those or widen the key's `regions`$/);
  });
});

describe("a key refusal says what to do", () => {
  test("an unknown key: where keys come from", async () => {
    const { status, code, message } = await refusal("sk-renio-no-such-key-00000000", "mock-gpt");
    assert.equal(status, 401);
    assert.equal(code, "invalid_api_key");
    assert.match(message, /Invalid API key: this relay has no such key; use a key from its config or one issued with `renio keys create`$/);
  });
});
