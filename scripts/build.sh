#!/usr/bin/env bash
# Builds the single executable dist/renio (HTTP server, SQLite, mock, bench) with Bun.
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p dist
node_modules/.bin/bun build --compile --minify --sourcemap=none src/main-bun.ts src/store-worker-bun.ts src/loop-worker-bun.ts --outfile dist/renio
ls -la dist/renio
