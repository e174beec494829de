import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { nginxConfig } from "./reference-proxies.ts";

describe("nginxConfig", () => {
  const config = nginxConfig({ dir: "/tmp/run/nginx", listenPort: 18080, upstreamHost: "127.0.0.1", upstreamPort: 9090, workerConnections: 8448 });

  it("listens on loopback only and passes streams on unbuffered over kept-alive HTTP/1.1 upstream connections", () => {
    assert.match(config, /listen 127\.0\.0\.1:18080 backlog=65535;/);
    assert.doesNotMatch(config, /listen (?!127\.0\.0\.1)/);
    assert.match(config, /proxy_buffering off;/);
    assert.match(config, /proxy_http_version 1\.1;/);
    assert.match(config, /proxy_set_header Connection "";/);
    assert.match(config, /server 127\.0\.0\.1:9090;\s+keepalive 8448;/);
  });

  it("runs as one foreground process with its files in the run's directory and room for every stream", () => {
    assert.match(config, /^daemon off;\nmaster_process off;\nworker_processes 1;/);
    assert.match(config, /worker_connections 8448;/);
    assert.match(config, /worker_rlimit_nofile 9472;/);
    for (const line of config.split("\n").filter((l) => /_path |^pid |^error_log /.test(l.trim()))) assert.match(line, /\/tmp\/run\/nginx\//);
  });
});
