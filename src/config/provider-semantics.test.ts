import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { ConfigError } from "./config-error.ts";
import { validateConfig } from "./config-load.ts";

/** The variables the examples of docs/providers.md name. */
const env = Object.fromEntries(["MISTRAL_API_KEY", "GROQ_API_KEY", "DEEPSEEK_API_KEY", "TOGETHER_API_KEY", "AZURE_OPENAI_KEY", "AZURE_CLIENT_SECRET"].map((name) => [name, "x"]));
const base = { models: {}, server: { host: "127.0.0.1", port: 0 }, storage: { type: "sqlite", path: ":memory:" } };

function problemsOf(providers: Record<string, unknown>): string[] {
  try {
    validateConfig({ ...base, providers }, env);
    return [];
  } catch (error) {
    assert.ok(error instanceof ConfigError, String(error));
    return error.problems.map((problem) => `${problem.path.join(".")}: ${problem.message}`);
  }
}

test("a region label contradicting the URL or the Azure location is a config error", () => {
  assert.deepEqual(problemsOf({ bedrock: { type: "openai", baseUrl: "https://bedrock-runtime.us-east-1.amazonaws.com", region: "eu" } }), [
    'providers.bedrock.region: region "eu" contradicts baseUrl bedrock-runtime.us-east-1.amazonaws.com, which is in region "us"',
  ]);
  assert.deepEqual(problemsOf({ az: { type: "azure", baseUrl: "https://r.openai.azure.com", apiKey: "k", location: "eastus", region: "eu" } }), [
    'providers.az.region: region "eu" contradicts location eastus, which is in region "us"',
  ]);
  assert.deepEqual(problemsOf({ az: { type: "azure", baseUrl: "https://r.openai.azure.com", apiKey: "k", location: "swedencentral", region: "eu" } }), []);
});

test("an azure provider needs exactly one of apiKey or entra, and a known location", () => {
  assert.deepEqual(problemsOf({ az: { type: "azure", baseUrl: "https://r.openai.azure.com", location: "atlantis" } }), [
    'providers.az.location: unknown Azure location "atlantis" (e.g. swedencentral, westeurope, eastus)',
    "providers.az.apiKey: an azure provider authenticates with exactly one of apiKey or entra",
  ]);
});

test("every provider example in docs/providers.md is a valid config", () => {
  const section = readFileSync(new URL("../../docs/providers.md", import.meta.url), "utf8");
  const examples = [...section.matchAll(/```jsonc\n(\{[\s\S]*?\})\n```/g)].map((match) => match[1]!);
  assert.ok(examples.length >= 6, `found ${examples.length} provider examples`);
  for (const example of examples) {
    const providers = JSON.parse(example) as Record<string, unknown>;
    assert.deepEqual(problemsOf(providers), [], example);
  }
});
