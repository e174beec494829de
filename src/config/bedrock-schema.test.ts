import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { createProviders } from "../providers/provider-registry.ts";
import { ConfigError, formatProblem } from "./config-error.ts";
import { validateConfig } from "./config-load.ts";

const KEYS = [{ id: "app-1", secret: "sk-renio-0123456789", project: "support" }];

function configWith(bedrock: Record<string, unknown>, env: Record<string, string> = {}) {
  return validateConfig({
    providers: { br: { type: "bedrock", accessKeyId: "${AWS_KEY}", secretAccessKey: "${AWS_SECRET}", ...bedrock } },
    models: { claude: { provider: "br", model: "eu.anthropic.claude-sonnet-4-5-20250929-v1:0" } },
    keys: KEYS,
  }, { AWS_KEY: "AKIDEXAMPLE", AWS_SECRET: "secret-value-123", ...env });
}

function problems(bedrock: Record<string, unknown>): string[] {
  try {
    configWith(bedrock);
  } catch (error) {
    assert.ok(error instanceof ConfigError);
    return error.problems.map(formatProblem);
  }
  assert.fail("the config was accepted");
}

test("an EU AWS region gets the region label eu; credentials come from ${ENV}", () => {
  for (const awsRegion of ["eu-central-1", "eu-west-1", "eu-west-3", "eu-north-1", "eu-south-2"]) {
    const config = configWith({ awsRegion });
    const provider = createProviders(config, fetch).get("br")!;
    assert.equal(provider.region, "eu", awsRegion);
    assert.deepEqual(provider.endpoint, { hostname: `bedrock-runtime.${awsRegion}.amazonaws.com`, port: 443 });
  }
  const br = configWith({ awsRegion: "eu-central-1" }).providers.get("br")!;
  assert.ok(br.type === "bedrock" && br.accessKeyId === "AKIDEXAMPLE" && br.secretAccessKey === "secret-value-123");
  assert.equal(createProviders(configWith({ awsRegion: "us-east-1" }), fetch).get("br")!.region, "us");
  assert.equal(createProviders(configWith({ awsRegion: "eu-west-1", region: "eu-west-1" }), fetch).get("br")!.region, "eu-west-1");
});

test("a region label contradicting the AWS region, a malformed AWS region and unknown keys are config errors", () => {
  assert.deepEqual(problems({ awsRegion: "us-east-1", region: "eu" }), ['providers.br.region: "eu" contradicts awsRegion us-east-1 (its region is "us")']);
  assert.deepEqual(problems({ awsRegion: "frankfurt" }), ["providers.br.awsRegion: must be an AWS region name such as eu-central-1"]);
  assert.equal(problems({ awsRegion: "eu-central-1", apiKey: "x" }).length, 1);
  assert.match(problems({ awsRegion: "eu-central-1", apiKey: "x" })[0]!, /apiKey/);
});

test("the Bedrock example of docs/providers.md is a valid config serving an EU region", () => {
  const page = readFileSync(new URL("../../docs/providers.md", import.meta.url), "utf8");
  const block = /<!-- bedrock-example[^>]*-->\s*```json\n([\s\S]*?)```/.exec(page);
  assert.ok(block, "docs/providers.md has the bedrock example");
  const example = JSON.parse(block[1]!) as Record<string, unknown>;
  const config = validateConfig({ ...example, keys: KEYS }, { AWS_ACCESS_KEY_ID: "AKIDEXAMPLE", AWS_SECRET_ACCESS_KEY: "s3cr3t", AWS_SESSION_TOKEN: "tok" });
  const provider = createProviders(config, fetch).get("bedrock-eu")!;
  assert.equal(provider.region, "eu");
  assert.deepEqual([...provider.wires], ["openai"]);
});
