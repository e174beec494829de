import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { startTestServer, type TestServer } from "../../test/support/bench-test-support.ts";
import { passthroughFetch } from "./passthrough.ts";

describe("passthroughFetch", () => {
  let upstream: TestServer;
  before(async () => {
    upstream = await startTestServer((request, body, response) => {
      response.writeHead(201, { "content-type": "text/event-stream", "x-upstream": "yes" });
      response.end(`data: ${request.method} ${request.url} ${body}\n\n`);
    });
  });
  after(() => upstream.close());

  it("forwards method, path with query, headers and body, and returns the upstream answer as is", async () => {
    const forward = passthroughFetch(`${upstream.url}/`);
    const response = await forward(
      new Request("http://relay.test:9/v1/chat/completions?x=1", { method: "POST", headers: { authorization: "Bearer k", "content-type": "application/json" }, body: '{"a":1}' }),
    );
    assert.equal(response.status, 201);
    assert.equal(response.headers.get("x-upstream"), "yes");
    assert.equal(await response.text(), 'data: POST /v1/chat/completions?x=1 {"a":1}\n\n');
    const seen = upstream.seen.at(-1)!;
    assert.equal(seen.headers.authorization, "Bearer k");
    assert.equal(seen.headers["content-type"], "application/json");
  });
});
