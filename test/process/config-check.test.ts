import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { runCommand, sourceCommand, type CliResult } from "../support/cli-process.ts";

const dir = mkdtempSync(join(tmpdir(), "renio-config-"));
after(() => rmSync(dir, { recursive: true, force: true }));

const UNSET = "RENIO_TEST_SURELY_UNSET_VARIABLE";
const SECRET_VALUE = "sekrit-value-not-a-url";

/** A valid config; each case breaks one thing. */
function base(): Record<string, unknown> {
  return {
    providers: { mistral: { type: "openai", baseUrl: "https://api.mistral.ai/v1", apiKey: "k" } },
    models: { "mistral-small": { provider: "mistral" } },
    keys: [{ id: "a", secret: "sk-renio-0123456789" }],
  };
}

function withChange(change: (config: Record<string, unknown>) => void): string {
  const config = base();
  change(config);
  return JSON.stringify(config, null, 2);
}

function providers(config: Record<string, unknown>): Record<string, Record<string, unknown>> {
  return config["providers"] as Record<string, Record<string, unknown>>;
}

const cases = new Map<string, Promise<CliResult>>();
/** Writes `text` to a file and starts `renio config check` on it right away (all cases run concurrently). */
function check(name: string, text: string, env: Record<string, string> = {}): Promise<CliResult> {
  const file = join(dir, `${name}.jsonc`);
  writeFileSync(file, text);
  const result = runCommand([...sourceCommand(), "config", "check", file], { env });
  cases.set(name, result);
  return result;
}

const INVALID_JSON = '{\n  "providers": {\n    "m": { "type": "mock" }\n  }\n  "models": {}\n}\n';
const JSONC = `// Renio config with comments
{
  /* providers */
  "providers": {
    "mistral": { "type": "openai", "baseUrl": "https://api.mistral.ai/v1", }, // trailing comma
  },
  "models": { "mistral-small": { "provider": "mistral" }, },
  "keys": [ { "id": "a", "secret": "sk-renio-0123456789" }, ],
}
`;

const WRONG_TYPE_AT = `{
  "providers": { "m": { "type": "mock" } },
  "models": { "x": { "provider": "m" } },
  "keys": [
    {
      "id": "a",
      "secret": "sk-renio-0123456789",
      "models": "x"
    }
  ]
}
`;

const results = {
  invalidJson: check("invalid-json", INVALID_JSON),
  unknownKey: check("unknown-key", withChange((c) => ((c["servre"] = {}), (providers(c)["mistral"]!["colour"] = "blue")))),
  wrongType: check("wrong-type", withChange((c) => (c["server"] = { port: "8080" }))),
  invalidUrl: check("invalid-url", withChange((c) => (providers(c)["mistral"]!["baseUrl"] = "not a url"))),
  missingEnv: check("missing-env", withChange((c) => (providers(c)["mistral"]!["apiKey"] = `\${${UNSET}}`))),
  // Each would also fail the schema ("at least 16 characters", "at least 8 characters") when empty.
  missingEnvShort: check("missing-env-short", withChange((c) => ((c["server"] = { adminToken: `\${${UNSET}}` }), (c["keys"] = [{ id: "a", secret: `\${${UNSET}_KEY}` }])))),
  missingEnvTwice: check("missing-env-twice", withChange((c) => ((providers(c)["mistral"]!["apiKey"] = `\${${UNSET}}`), (providers(c)["other"] = { type: "openai", baseUrl: "https://example.com/v1", apiKey: `Bearer \${${UNSET}}` })))),
  missingEnvUnknownKey: check("missing-env-unknown-key", withChange((c) => (providers(c)["mistral"]!["colour"] = `\${${UNSET}}`))),
  envValueHidden: check("env-hidden", withChange((c) => (providers(c)["mistral"]!["baseUrl"] = "${RENIO_TEST_URL}")), { RENIO_TEST_URL: SECRET_VALUE }),
  envResolved: check("env-ok", withChange((c) => (providers(c)["mistral"]!["apiKey"] = "${RENIO_TEST_KEY}")), { RENIO_TEST_KEY: "sk-from-env" }),
  unknownProvider: check("unknown-provider", withChange((c) => (c["models"] = { "mistral-small": { provider: "mistral" }, gpt: { provider: "nope" } }))),
  duplicateKey: check("duplicate-key", withChange((c) => (c["keys"] = [{ id: "a", secret: "sk-renio-0123456789" }, { id: "a", secret: "sk-renio-9876543210" }]))),
  negativeBudget: check("negative-budget", withChange((c) => (c["budgets"] = [{ id: "total", scope: "total", limit: -5 }]))),
  hugeBudget: check("huge-budget", withChange((c) => (c["budgets"] = [{ id: "total", scope: "total", limit: 1e12 }]))),
  exposedWithoutKeys: check("exposed", withChange((c) => ((c["keys"] = []), (c["server"] = { host: "0.0.0.0" })))),
  several: check("several", withChange((c) => ((providers(c)["mistral"]!["baseUrl"] = "nope"), (c["keys"] = [{ id: "a", secret: "short" }]), (c["extra"] = 1)))),
  jsonc: check("jsonc", JSONC),
  wrongTypeAt: check("wrong-type-at", WRONG_TYPE_AT),
  valid: check("valid", JSON.stringify(base())),
  missingFile: runCommand([...sourceCommand(), "config", "check", join(dir, "does-not-exist.json")]),
  schema: runCommand([...sourceCommand(), "config", "schema"]),
};

/** The problem lines printed on stderr. */
function lines(result: CliResult): string[] {
  return result.stderr.split("\n").filter((line) => line.trim() !== "");
}

/** Each problem line without its `FILE:LINE:COLUMN: ` prefix, which every one must have (the file as given). */
function withoutLocation(printed: string[]): string[] {
  return printed.map((line) => {
    const at = /^(.+?\.jsonc):\d+:\d+: /.exec(line);
    assert.ok(at && at[1]!.startsWith(`${dir}/`), `no FILE:LINE:COLUMN in "${line}"`);
    return line.slice(at[0].length);
  });
}

async function assertProblems(result: Promise<CliResult>, expected: (string | RegExp)[]): Promise<string[]> {
  const done = await result;
  assert.equal(done.code, 2, `exit code; stderr: ${done.stderr}`);
  const printed = withoutLocation(lines(done));
  assert.equal(printed.length, expected.length, `printed: ${printed.join(" | ")}`);
  expected.forEach((line, i) => {
    if (typeof line === "string") assert.ok(printed.includes(line), `missing "${line}" in: ${printed.join(" | ")}`);
    else assert.match(printed[i]!, line);
  });
  assert.equal(done.stdout, "");
  assert.doesNotMatch(done.stderr, /\n\s+at |\.ts:\d+/, "no stack trace");
  return printed;
}

describe("renio config check: every problem as `FILE:LINE:COLUMN: path: message`, exit 2", () => {
  test("invalid JSON names line and column", async () => {
    await assertProblems(results.invalidJson, [/^invalid JSON: expected ','$/]);
    assert.equal(lines(await results.invalidJson)[0], `${join(dir, "invalid-json.jsonc")}:5:3: invalid JSON: expected ','`);
  });

  test("a problem in the values names line and column too (an object member at its key)", async () => {
    await assertProblems(results.wrongTypeAt, [/^keys\[0\]\.models: /]);
    assert.equal(lines(await results.wrongTypeAt)[0], `${join(dir, "wrong-type-at.jsonc")}:8:7: keys[0].models: Invalid input: expected array, received string`);
  });

  test("unknown keys, at any depth", async () => {
    await assertProblems(results.unknownKey, ["servre: unknown key; did you mean \"server\"?", "providers.mistral.colour: unknown key"]);
  });

  test("wrong type", async () => {
    await assertProblems(results.wrongType, [/^server\.port: .*expected number, received string/]);
  });

  test("invalid URL", async () => {
    await assertProblems(results.invalidUrl, ["providers.mistral.baseUrl: Invalid URL"]);
  });

  test("missing environment variable", async () => {
    await assertProblems(results.missingEnv, [`providers.mistral.apiKey: environment variable ${UNSET} is not set`]);
  });

  test("an unset variable is one problem, not also the value's", async () => {
    await assertProblems(results.missingEnvShort, [
      `server.adminToken: environment variable ${UNSET} is not set`,
      `keys[0].secret: environment variable ${UNSET}_KEY is not set`,
    ]);
  });

  test("a variable used twice is one problem naming both uses", async () => {
    await assertProblems(results.missingEnvTwice, [`providers.mistral.apiKey: environment variable ${UNSET} is not set (also used at providers.other.apiKey)`]);
  });

  test("an unknown key is reported even when its value references an unset variable", async () => {
    await assertProblems(results.missingEnvUnknownKey, ["providers.mistral.colour: unknown key", `providers.mistral.colour: environment variable ${UNSET} is not set`]);
  });

  test("an interpolated value is validated but never printed", async () => {
    const printed = await assertProblems(results.envValueHidden, ["providers.mistral.baseUrl: Invalid URL"]);
    assert.ok(printed.every((line) => !line.includes(SECRET_VALUE)));
  });

  test("unknown provider reference", async () => {
    await assertProblems(results.unknownProvider, ['models.gpt.provider: unknown provider "nope" (configured: mistral)']);
  });

  test("duplicate key id", async () => {
    await assertProblems(results.duplicateKey, ['keys[1].id: duplicate key id "a"']);
  });

  test("negative budget limit", async () => {
    await assertProblems(results.negativeBudget, [/^budgets\[0\]\.limit: .*>=\s?0/]);
  });

  test("budget limit too large to keep exact", async () => {
    await assertProblems(results.hugeBudget, [/^budgets\[0\]\.limit: must be at most 9,000,000 \(amounts are kept exact to a billionth\)$/]);
  });

  test("non-loopback host without keys", async () => {
    await assertProblems(results.exposedWithoutKeys, [/^server\.host: .*non-loopback.*0\.0\.0\.0.*without keys/]);
  });

  test("several problems in one file are all reported", async () => {
    const printed = await assertProblems(results.several, [/./, /./, /./]);
    assert.ok(printed.includes("providers.mistral.baseUrl: Invalid URL"));
    assert.ok(printed.includes("extra: unknown key"));
    assert.ok(printed.some((line) => line.startsWith("keys[0].secret: ")));
  });

  test("a missing file", async () => {
    const done = await results.missingFile;
    assert.equal(done.code, 2);
    assert.match(done.stderr, /cannot read .*does-not-exist\.json: no such file/);
  });
});

describe("accepted configs", () => {
  test("JSONC: comments and trailing commas", async () => {
    const done = await results.jsonc;
    assert.equal(done.code, 0, done.stderr);
    assert.match(done.stdout, /jsonc\.jsonc: ok \(1 providers, 1 models, 1 keys, 0 budgets\)/);
    assert.equal(done.stderr, "");
  });

  test("plain JSON, and ${ENV} resolved from the environment", async () => {
    for (const result of [results.valid, results.envResolved]) {
      const done = await result;
      assert.equal(done.code, 0, done.stderr);
      assert.match(done.stdout, /: ok \(/);
      assert.ok(!done.stdout.includes("sk-from-env"));
    }
  });
});

describe("renio config schema", () => {
  test("prints a JSON Schema of the config, with providers", async () => {
    const done = await results.schema;
    assert.equal(done.code, 0, done.stderr);
    const schema = JSON.parse(done.stdout) as { $schema?: string; type?: string; properties?: Record<string, unknown>; additionalProperties?: unknown; required?: string[] };
    assert.match(schema.$schema ?? "", /json-schema\.org/);
    assert.equal(schema.type, "object");
    assert.ok(schema.properties?.["providers"], "providers in the schema");
    assert.ok(schema.properties?.["models"]);
    assert.ok(schema.properties?.["keys"]);
    assert.equal(schema.additionalProperties, false, "unknown keys are errors in the schema too");
    assert.deepEqual([...(schema.required ?? [])].sort(), ["models", "providers"]);
  });

  test("all cases ran", () => {
    assert.equal(cases.size, 19);
  });
});
