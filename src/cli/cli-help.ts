/** `renio --help`. */
export const HELP = `renio — a fast, fail-closed LLM relay with a write-ahead journal and hard budgets

usage: renio <command> [options]

commands:
  serve [--config FILE] [--host H] [--port N]
        run the relay (without --config: embedded default on 127.0.0.1:8080 with the mock provider)
  mock [--port N] [--host H] [--latency-ms 2] [--chunk-interval-ms 1] [--chunks 8]
       [--fault-status N] [--fault-delay-ms N] [--fault-cut N] [--fault-slow-ms N] [--fault-reset]
        run the built-in mock provider (OpenAI and Anthropic wire formats)
  bench [--concurrency 1,16,64] [--requests 3000] [--warmup 300] [--mode json|stream|both]
        [--journal fsync|process|off] [--budget strict|observe|off] [--target URL --header 'N: v']
        [--baseline passthrough] [--rounds 10] [--max-seconds 1800] [--json | --markdown] [--out FILE]
        measure the relay's overhead against the mock, direct vs via Renio (see renio bench --help)
  passthrough --upstream URL [--port N]
        a bare fetch passthrough, the floor renio bench compares against
  config check FILE     validate a config file; prints every problem as path: message (exit 2)
  config schema         print the config's JSON Schema (for editor completion)
  journal list [--config FILE] [--since 2h|7d|ISO] [--key ID] [--outcome X] [--limit N] [--json]
  journal export [--config FILE] --format jsonl|csv [--since …]
  budget status [--config FILE] [--json]
  budget reconcile [--config FILE] [--cost-at reserved|zero] [--json]
  help, --help          this text
  version, --version    print the version

docs: README.md`;
