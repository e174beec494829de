import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { after, describe, test } from "node:test";
import { parse, parseAllDocuments } from "yaml";
import { resolveConfig } from "../../src/config/config-resolve.ts";
import { freePort } from "../support/free-port.ts";
import { REPO_ROOT, runCommand, sourceCommand, startCommand } from "../support/cli-process.ts";
import { testPostgresUrl } from "../support/postgres.ts";
import { pgExec } from "../support/store-targets.ts";
import { testRedisUrl } from "../support/redis.ts";
import { Scrape } from "../support/prom-scrape.ts";

// No Docker daemon nor Kubernetes cluster where these tests run: they check what can be checked
// without them. The manifests parse and say what a drain needs (readiness on /readyz, a
// disruption budget, a grace period longer than the relay's), the config they mount passes
// `renio config check`, and a relay from it runs on a real PostgreSQL and Redis.

const dir = mkdtempSync(join(tmpdir(), "renio-deploy-multi-"));
after(() => rmSync(dir, { recursive: true, force: true }));

const read = (path: string) => readFileSync(join(REPO_ROOT, path), "utf8");
const SECRETS = { RENIO_ADMIN_TOKEN: "admin-token-0123456789", RENIO_CLIENT_KEY: "sk-renio-client-0123456789", OPENAI_API_KEY: "sk-openai-test", POSTGRES_PASSWORD: "pw0123456789", DATABASE_URL: "postgres://renio:pw@postgres:5432/renio", REDIS_URL: "redis://redis:6379/0" };

interface Relay {
  environment: Record<string, string>;
  volumes: string[];
  healthcheck: { test: string[] };
  stop_grace_period: string;
  depends_on: Record<string, { condition: string }>;
}
interface K8sDoc {
  kind: string;
  metadata: { name: string; labels?: Record<string, string> };
  data?: Record<string, string>;
  spec: {
    replicas?: number;
    selector?: { matchLabels: Record<string, string> };
    minAvailable?: number;
    template?: {
      metadata: { labels: Record<string, string> };
      spec: {
        terminationGracePeriodSeconds: number;
        containers: { readinessProbe: { httpGet: { path: string } }; livenessProbe: { httpGet: { path: string } }; lifecycle?: { preStop?: { sleep?: { seconds: number } } } }[];
      };
    };
  };
}

const seconds = (text: string) => Number(/^(\d+)s$/.exec(text)?.[1]);

describe("deploy/multi/compose.yaml", () => {
  const compose = parse(read("deploy/multi/compose.yaml")) as { services: Record<string, Relay> };
  const relays = Object.entries(compose.services).filter(([name]) => name.startsWith("relay-"));

  test("three relays mount one config, wait for PostgreSQL and Redis, report ready on /readyz, drain longer than their grace", async () => {
    assert.equal(relays.length, 3);
    const { config } = await resolveConfig({ env: { ...SECRETS, RENIO_CONFIG: join(REPO_ROOT, "deploy/multi/renio.yaml") } });
    for (const [name, relay] of relays) {
      assert.ok(relay.volumes.includes(`./renio.yaml:${relay.environment["RENIO_CONFIG"]}:ro`), name);
      assert.equal(relay.depends_on["postgres"]?.condition, "service_healthy");
      assert.equal(relay.depends_on["redis"]?.condition, "service_healthy");
      assert.match(relay.healthcheck.test.join(" "), /GET \/readyz /);
      assert.ok(seconds(relay.stop_grace_period) * 1000 > config.server.shutdownGraceMs, `${name}: stop_grace_period ${relay.stop_grace_period} vs shutdownGraceMs ${config.server.shutdownGraceMs}`);
      assert.ok(relay.environment["REDIS_URL"]?.startsWith("redis://redis:"));
    }
    assert.equal(config.rateLimits.store, "redis");
    assert.equal(config.rateLimits.relays, relays.length, "each relay's share under onStoreDown: local is the limit over the relays");
    assert.equal(config.cache?.store, "redis");
    assert.match(read("deploy/multi/nginx.conf"), /proxy_buffering off;/);
  });
});

describe("deploy/multi/kubernetes/renio.yaml", () => {
  const docs = parseAllDocuments(read("deploy/multi/kubernetes/renio.yaml")).map((doc) => doc.toJS() as K8sDoc);
  const of = (kind: string) => docs.find((doc) => doc.kind === kind)!;

  test("readiness on /readyz, a PodDisruptionBudget over the relays, a termination grace longer than the drain", async () => {
    const deployment = of("Deployment");
    const pod = deployment.spec.template!.spec;
    const container = pod.containers[0]!;
    assert.equal(container.readinessProbe.httpGet.path, "/readyz");
    assert.equal(container.livenessProbe.httpGet.path, "/healthz");
    const pdb = of("PodDisruptionBudget");
    assert.deepEqual(pdb.spec.selector!.matchLabels, deployment.spec.template!.metadata.labels);
    assert.ok(pdb.spec.minAvailable! < deployment.spec.replicas!, "a node drain can still move one relay at a time");
    const configFile = join(dir, "configmap-renio.yaml");
    writeFileSync(configFile, of("ConfigMap").data!["renio.yaml"]!);
    const { config } = await resolveConfig({ env: { ...SECRETS, RENIO_CONFIG: configFile } });
    const preStopMs = (container.lifecycle?.preStop?.sleep?.seconds ?? 0) * 1000;
    assert.ok(pod.terminationGracePeriodSeconds * 1000 > config.server.shutdownGraceMs + preStopMs);
    assert.equal(config.rateLimits.relays, deployment.spec.replicas);
  });

  test("renio config check accepts the config both mount", async () => {
    const configFile = join(dir, "configmap-renio.yaml");
    writeFileSync(configFile, of("ConfigMap").data!["renio.yaml"]!);
    for (const file of ["deploy/multi/renio.yaml", configFile]) {
      const done = await runCommand([...sourceCommand(), "config", "check", file], { env: SECRETS });
      assert.equal(done.code, 0, done.stderr);
      assert.match(done.stdout, /: ok \(1 providers, 1 models, 1 keys, 1 budgets\)\n/);
    }
  });
});

test("a relay from deploy/multi/renio.yaml runs on a real PostgreSQL and Redis: ready, limits shared", async () => {
  const database = `renio_multi_${process.pid}`;
  const base = testPostgresUrl();
  await pgExec(base, `drop database if exists ${database}`);
  await pgExec(base, `create database ${database}`);
  const url = new URL(base);
  url.pathname = `/${database}`;
  const port = await freePort();
  const env = { ...SECRETS, RENIO_CONFIG: join(REPO_ROOT, "deploy/multi/renio.yaml"), DATABASE_URL: url.toString(), REDIS_URL: await testRedisUrl(), RENIO_HOST: "127.0.0.1", RENIO_PORT: String(port) };
  const serve = startCommand([...sourceCommand(), "serve"], { cwd: dir, env });
  try {
    await serve.waitFor(new RegExp(`listening on http://127\\.0\\.0\\.1:${port}\\n`));
    assert.equal((await fetch(`http://127.0.0.1:${port}/readyz`)).status, 200);
    const metrics = await fetch(`http://127.0.0.1:${port}/metrics`, { headers: { authorization: `Bearer ${SECRETS.RENIO_ADMIN_TOKEN}` } });
    const scrape = new Scrape(await metrics.text());
    assert.equal(scrape.sum("renio_rate_limit_store_up"), 1);
    assert.equal(scrape.sum("renio_cache_hit_ratio"), 0);
  } finally {
    const stopped = await serve.stop();
    assert.equal(stopped.code, 0, stopped.stderr);
    await pgExec(base, `drop database if exists ${database}`);
  }
});
