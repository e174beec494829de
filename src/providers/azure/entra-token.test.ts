import assert from "node:assert/strict";
import { test } from "node:test";
import { createEntraTokens, EntraTokenError, REFRESH_MARGIN_MS } from "./entra-token.ts";

const credentials = { tenantId: "t", clientId: "c", clientSecret: "s3cret", scope: "https://cognitiveservices.azure.com/.default" };

test("the token is reused until shortly before expiry, then refreshed", async () => {
  let clock = 1_000_000;
  const urls: string[] = [];
  const tokens = createEntraTokens(credentials, async (url) => (urls.push(url), Response.json({ access_token: `tok-${urls.length}`, expires_in: 3600 })), () => clock);
  assert.equal(await tokens.token(), "tok-1");
  clock += 3600_000 - REFRESH_MARGIN_MS - 1;
  assert.equal(await tokens.token(), "tok-1");
  clock += 1;
  assert.equal(await tokens.token(), "tok-2");
  assert.deepEqual(urls, ["https://login.microsoftonline.com/t/oauth2/v2.0/token", "https://login.microsoftonline.com/t/oauth2/v2.0/token"]);
});

test("a refused token request is an error naming the status, without the secret", async () => {
  const tokens = createEntraTokens(credentials, async () => Response.json({ error: "invalid_client", error_description: "bad s3cret" }, { status: 401 }));
  await assert.rejects(tokens.token(), (error: unknown) => {
    assert.ok(error instanceof EntraTokenError);
    assert.match(error.message, /HTTP 401/);
    assert.ok(!error.message.includes("s3cret"));
    return true;
  });
});

test("concurrent calls share one token request", async () => {
  let requests = 0;
  let answer: (response: Response) => void = () => {};
  const tokens = createEntraTokens(credentials, () => (requests++, new Promise<Response>((resolve) => (answer = resolve))));
  const both = Promise.all([tokens.token(), tokens.token()]);
  answer(Response.json({ access_token: "shared", expires_in: 3600 }));
  assert.deepEqual(await both, ["shared", "shared"]);
  assert.equal(requests, 1);
});
