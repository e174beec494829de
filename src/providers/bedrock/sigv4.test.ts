import assert from "node:assert/strict";
import { test } from "node:test";
import { signV4 } from "./sigv4.ts";

// Vectors from AWS's published Signature Version 4 test suite (aws-sig-v4-test-suite).
const credentials = { accessKeyId: "AKIDEXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY" };
const now = new Date("2015-08-30T12:36:00Z");
const scope = "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/service/aws4_request";
const vectors: { name: string; method: string; url: string; headers: Record<string, string>; body: string; signed: string; signature: string }[] = [
  { name: "get-vanilla", method: "GET", url: "https://example.amazonaws.com/", headers: {}, body: "",
    signed: "host;x-amz-date", signature: "5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31" },
  { name: "post-vanilla", method: "POST", url: "https://example.amazonaws.com/", headers: {}, body: "",
    signed: "host;x-amz-date", signature: "5da7c1a2acd57cee7505fc6676e4e544621c30862966e37dddb68e92efbe5d6b" },
  { name: "get-vanilla-query-order-key-case", method: "GET", url: "https://example.amazonaws.com/?Param2=value2&Param1=value1",
    headers: {}, body: "", signed: "host;x-amz-date", signature: "b97d918cfa904a5beff61c982a1b6f458b799221646efd99d3219ec94cdf2500" },
  { name: "post-header-value-case", method: "POST", url: "https://example.amazonaws.com/", headers: { "My-Header1": "VALUE1" },
    body: "", signed: "host;my-header1;x-amz-date", signature: "cdbc9802e29d2942e5e10b5bccfdd67c5f22c7c4e8ae67b53629efa58b974b7d" },
  { name: "post-x-www-form-urlencoded", method: "POST", url: "https://example.amazonaws.com/",
    headers: { "Content-Type": "application/x-www-form-urlencoded" }, body: "Param1=value1",
    signed: "content-type;host;x-amz-date", signature: "ff11897932ad3f4e8b18135d722051e5ac45fc38421b1da7b9d196a0fe09473a" },
];

for (const v of vectors) {
  test(`SigV4 matches the AWS test suite: ${v.name}`, async () => {
    const added = await signV4({
      method: v.method, url: new URL(v.url), headers: v.headers, body: new TextEncoder().encode(v.body),
      region: "us-east-1", service: "service", now,
    }, credentials);
    assert.equal(added["x-amz-date"], "20150830T123600Z");
    assert.equal(added["authorization"], `${scope}, SignedHeaders=${v.signed}, Signature=${v.signature}`);
  });
}

test("a session token is sent and signed; the secret never appears in the headers", async () => {
  const added = await signV4({
    method: "POST", url: new URL("https://example.amazonaws.com/"), headers: {}, body: new Uint8Array(),
    region: "us-east-1", service: "service", now,
  }, { ...credentials, sessionToken: "TOKEN123" });
  assert.equal(added["x-amz-security-token"], "TOKEN123");
  assert.match(added["authorization"]!, /SignedHeaders=host;x-amz-date;x-amz-security-token,/);
  assert.doesNotMatch(JSON.stringify(added), /wJalrXUtnFEMI/);
});
