import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { ConfigError, formatProblem } from "../../../src/config/config-error.ts";
import { loadConfigFile, parseConfigText } from "../../../src/config/config-load.ts";
import { parseYamlDocument } from "../../../src/config/yaml.ts";
import { runCommand, sourceCommand } from "../../support/cli-process.ts";

const dir = mkdtempSync(join(tmpdir(), "renio-config-yaml-"));
after(() => rmSync(dir, { recursive: true, force: true }));

/** The README's worked example, cut down: every kind of section, written as JSONC. */
const JSONC = `{
  "server": { "host": "0.0.0.0", "port": 9000, "adminToken": "\${RENIO_TEST_ADMIN}" },
  "storage": { "type": "sqlite", "path": "/var/lib/renio/renio.db" },
  "logging": { "format": "json", "level": "warn" },
  "journal": { "durability": "process", "retentionDays": 90 },
  "providers": {
    "openai": { "type": "openai", "baseUrl": "https://api.openai.com/v1", "apiKey": "\${RENIO_TEST_OPENAI}", "region": "us" },
    "mistral": { "type": "openai", "baseUrl": "https://api.mistral.ai/v1", "region": "eu", "headers": { "x-team": "on" } },
  },
  "models": {
    "gpt-4o-mini": { "provider": "openai" },
    "chat-default": [ { "provider": "mistral", "model": "mistral-small-latest" }, { "provider": "openai", "model": "gpt-4o-mini" } ],
  },
  "keys": [ { "id": "bot", "secret": "\${RENIO_TEST_KEY}", "project": "support", "regions": ["eu"] } ],
  "budgets": [ { "id": "month", "scope": "total", "limit": 5000 }, { "id": "support-day", "scope": { "project": "support" }, "period": "day", "limit": 50 } ],
  "prices": { "chat-default": { "input": 0.1, "output": 0.3, "maxOutputTokens": 32768 } },
}
`;

/** The same config in YAML: block and flow style, comments, an anchor, `on` that stays a string (YAML 1.2). */
const YAML = `# the same config, in YAML
server:
  host: 0.0.0.0
  port: 9000
  adminToken: \${RENIO_TEST_ADMIN}
storage: { type: sqlite, path: /var/lib/renio/renio.db }
logging:
  format: json
  level: warn
journal:
  durability: process
  retentionDays: 90
providers:
  openai:
    type: openai
    baseUrl: https://api.openai.com/v1
    apiKey: "\${RENIO_TEST_OPENAI}"
    region: us
  mistral:
    type: openai
    baseUrl: https://api.mistral.ai/v1
    region: &eu eu
    headers:
      x-team: on
models:
  gpt-4o-mini: { provider: openai }
  chat-default:
    - provider: mistral
      model: mistral-small-latest
    - provider: openai
      model: gpt-4o-mini
keys:
  - id: bot
    secret: \${RENIO_TEST_KEY}
    project: support
    regions: [*eu]
budgets:
  - { id: month, scope: total, limit: 5000 }
  - id: support-day
    scope: { project: support }
    period: day
    limit: 50
prices:
  chat-default: { input: 0.1, output: 0.3, maxOutputTokens: 32768 }
`;

const ENV = { RENIO_TEST_ADMIN: "admin-token-0123456789", RENIO_TEST_OPENAI: "sk-openai-test", RENIO_TEST_KEY: "sk-renio-0123456789" };

/** The lines of the ConfigError that parsing `text` as YAML throws. */
function problems(text: string, env: Record<string, string> = {}): string[] {
  try {
    parseConfigText(text, env, "renio.yaml");
  } catch (error) {
    assert.ok(error instanceof ConfigError, String(error));
    return error.problems.map(formatProblem);
  }
  assert.fail("the config was accepted");
}

describe("YAML config: the same schema and the same result as JSONC", () => {
  test("a YAML file and its JSONC twin give the same validated config", async () => {
    writeFileSync(join(dir, "renio.jsonc"), JSONC);
    writeFileSync(join(dir, "renio.yaml"), YAML);
    writeFileSync(join(dir, "renio.yml"), YAML);
    const fromJsonc = await loadConfigFile(join(dir, "renio.jsonc"), ENV);
    assert.deepEqual(await loadConfigFile(join(dir, "renio.yaml"), ENV), fromJsonc);
    assert.deepEqual(await loadConfigFile(join(dir, "renio.yml"), ENV), fromJsonc);
    assert.equal(fromJsonc.server.adminToken, ENV.RENIO_TEST_ADMIN, "${VAR} interpolated");
    assert.deepEqual(fromJsonc.logging, { format: "json", level: "warn" });
  });

  test("YAML 1.2: on/yes stay strings, so a boolean field is checked as in JSON", () => {
    const text = "providers: { m: { type: mock } }\nmodels: { x: { provider: m } }\njournal:\n  enabled: yes\n";
    assert.deepEqual(problems(text), ["renio.yaml:4:3: journal.enabled: Invalid input: expected boolean, received string"]);
  });

  test("a key named __proto__ is refused by name, not a prototype", () => {
    assert.deepEqual(problems("providers: { m: { type: mock } }\nmodels: { x: { provider: m } }\n__proto__: { polluted: 1 }\n"), [
      "renio.yaml:3:1: __proto__: `__proto__` cannot be a name in the config (JSON tools drop or misread it); pick another",
    ]);
    assert.equal(({} as Record<string, unknown>)["polluted"], undefined);
  });
});

describe("YAML config: every problem as FILE:LINE:COLUMN: path: message", () => {
  const base = "providers:\n  m:\n    type: mock\nmodels:\n  x: { provider: m }\n";

  test("syntax errors name line and column", () => {
    assert.deepEqual(problems("providers:\n  m: { type: mock\nmodels: {}\n"), [
      "renio.yaml:3:1: invalid YAML: Flow map in block collection must be sufficiently indented and end with a }",
    ]);
    assert.deepEqual(problems(`${base}keys:\n  - id: a\n   secret: sk-renio-0123456789\n`), ["renio.yaml:8:1: invalid YAML: Sequence item without - indicator"]);
    assert.deepEqual(problems(`${base}keys:\n\t- id: a\n`), ["renio.yaml:7:1: invalid YAML: Tabs are not allowed as indentation"]);
  });

  test("a repeated key, several documents and an empty file are syntax errors", () => {
    assert.deepEqual(problems(`${base}models:\n  y: { provider: m }\n`), ["renio.yaml:6:1: invalid YAML: a key is repeated (keys must be unique)"]);
    assert.deepEqual(problems(`${base}---\n${base}`), ["renio.yaml:6:1: invalid YAML: several documents (---); a config file holds one"]);
    assert.deepEqual(problems("# nothing but a comment\n"), ["renio.yaml:1:1: invalid YAML: the document is empty"]);
  });

  test("schema problems are located at the key (map member) or the item (sequence element)", () => {
    const text = `${base}server:\n  port: "8080"\n  hots: x\nkeys:\n  - id: a\n    secret: sk-renio-0123456789\n  - secret: short\n`;
    assert.deepEqual(problems(text).sort(), [
      "renio.yaml:12:5: keys[1].id: Invalid input: expected string, received undefined",
      "renio.yaml:12:5: keys[1].secret: must be at least 8 characters (or sha256:<hex>)",
      "renio.yaml:7:3: server.port: Invalid input: expected number, received string",
      "renio.yaml:8:3: server.hots: unknown key; did you mean \"host\"?",
    ].sort());
  });

  test("cross-field problems too, inside a list of model targets", () => {
    const text = "providers:\n  m: { type: mock }\nmodels:\n  x:\n    - provider: m\n    - provider: nope\n";
    assert.deepEqual(problems(text), ['renio.yaml:6:7: models.x[1].provider: unknown provider "nope" (configured: m)']);
  });

  test("${VAR} is interpolated; an unset one is a located problem that never shows a value", () => {
    const text = "providers:\n  o:\n    type: openai\n    baseUrl: https://api.openai.com/v1\n    apiKey: ${RENIO_TEST_SURELY_UNSET}\nmodels: {}\n";
    assert.deepEqual(problems(text), ["renio.yaml:5:5: providers.o.apiKey: environment variable RENIO_TEST_SURELY_UNSET is not set"]);
    const config = parseConfigText(text, { RENIO_TEST_SURELY_UNSET: "sk-from-env" }, "renio.yaml");
    const provider = config.providers.get("o");
    assert.equal(provider?.type === "openai" && provider.apiKey, "sk-from-env");
  });

  test("a secret on the broken line is not quoted in the message", () => {
    const [line] = problems("providers:\n  m: { type: mock, apiKey: sk-very-secret-value\nmodels: {}\n");
    assert.ok(line !== undefined && !line.includes("sk-very-secret-value"), line);
  });

  test("parseYamlDocument locates paths not written at their nearest written ancestor", () => {
    const document = parseYamlDocument("keys:\n  - id: a\n  - {}\n");
    assert.deepEqual(document.locate(["keys", 1, "secret"]), { line: 3, column: 5 });
    assert.deepEqual(document.locate(["keys", 0, "id"]), { line: 2, column: 5 });
    assert.deepEqual(document.locate(["server", "port"]), { line: 1, column: 1 });
  });
});

describe("renio config check on YAML files, on the runtime running the tests", () => {
  test("a good file: ok; a bad one: every problem at FILE:LINE:COLUMN, exit 2", async () => {
    writeFileSync(join(dir, "good.yaml"), "# ok\nproviders: { m: { type: mock } }\nmodels:\n  x: { provider: m }\n");
    writeFileSync(join(dir, "bad.yml"), "providers:\n  mistral:\n    type: openai\n    baseUrl: nope\nmodels: {}\n");
    writeFileSync(join(dir, "broken.yaml"), "providers:\n  m: [\nmodels: {}\n");
    const [good, bad, broken] = await Promise.all(
      ["good.yaml", "bad.yml", "broken.yaml"].map((file) => runCommand([...sourceCommand(), "config", "check", file], { cwd: dir })),
    );
    assert.equal(good!.code, 0, good!.stderr);
    assert.match(good!.stdout, /^good\.yaml: ok \(1 providers, 1 models, 0 keys, 0 budgets\)\n/);
    assert.equal(bad!.code, 2);
    assert.equal(bad!.stderr, "bad.yml:4:5: providers.mistral.baseUrl: Invalid URL\n");
    assert.equal(broken!.code, 2);
    assert.match(broken!.stderr, /^broken\.yaml:\d+:\d+: invalid YAML: \S.*\n$/);
    assert.doesNotMatch(broken!.stderr, /\n\s+at /, "no stack trace");
  });
});
