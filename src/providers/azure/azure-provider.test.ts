import assert from "node:assert/strict";
import { test } from "node:test";
import { z } from "zod";
import { azureFields } from "../../config/azure-schema.ts";
import { ROUTES } from "../../shared/route-spec.ts";
import { createAzureProvider } from "./azure-provider.ts";

const config = { ...z.strictObject(azureFields).parse({ type: "azure", baseUrl: "https://res.openai.azure.com", apiKey: "azure-key-1" }), connectTimeoutMs: 1000, firstByteTimeoutMs: 1000 };

/** Sends one call for `model` (the routed target's upstream model) with `body`; returns the URL fetched. */
async function urlFetched(path: string, model: string, body: unknown): Promise<string> {
  const urls: string[] = [];
  const provider = createAzureProvider("azure", config, async (url) => (urls.push(url), Response.json({})));
  const bytes = new TextEncoder().encode(typeof body === "string" ? body : JSON.stringify(body));
  await provider.send({ route: ROUTES.get(path)!, body: bytes, model, headers: new Headers(), query: "", requestId: "r1", signal: AbortSignal.timeout(5000), streams: false });
  assert.equal(urls.length, 1);
  return urls[0]!;
}

test("deployments: the URL names the routed target's upstream model, whatever the body says", async () => {
  assert.equal(await urlFetched("/v1/chat/completions", "gpt-4o-eu", { model: "caller-alias" }), "https://res.openai.azure.com/openai/deployments/gpt-4o-eu/chat/completions?api-version=2024-10-21");
  assert.equal(await urlFetched("/v1/embeddings", "emb eu", "not json"), "https://res.openai.azure.com/openai/deployments/emb%20eu/embeddings?api-version=2024-10-21");
});

test("deployments: the Responses API is per resource, with no deployment in the URL", async () => {
  assert.equal(await urlFetched("/v1/responses", "gpt-4o-eu", { model: "gpt-4o-eu" }), "https://res.openai.azure.com/openai/responses?api-version=2024-10-21");
});
