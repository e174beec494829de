/** `renio bench --help`. */
export const BENCH_HELP = `usage: renio bench [options]

  --concurrency 1,16,64       points (concurrent requests)
  --requests 3000             measured requests per point and target
  --warmup 300                warm-up requests per point and target (not measured)
  --mode json|stream|both     non-streaming, streaming (time to the first chunk carrying text), or both;
       capacity               or long streams held open by thousands (default --concurrency 256,1024,4096,
                                --requests 2048, --journal fsync,off): added first token and inter-chunk
                                delay, calls/s, CPU and RSS per open stream (docs/capacity.md)
  --chunks 20                 capacity: content chunks per stream (the mock's)
  --chunk-interval-ms 250     capacity: pause between chunks
  --compare go,nginx          capacity: also start a Go reverse proxy and/or nginx in front of the mock
  --go-proxy BIN              the Go proxy binary (default: built from bench/go-proxy with go)
  --nginx BIN                 the nginx binary (default: nginx from PATH)
  --upstream-client auto|socket|fetch  server.upstreamClient of the Renios started here
  --event-loops 1,2           server.eventLoops of the Renios started here; a list (counts or auto)
                                starts one Renio per value, measured in the same rounds
  --journal fsync|process|off relay journal durability, or no journal (and so no budget); a list
                              (fsync,process) starts one Renio per setting, measured in the same rounds
  --budget strict|observe|off mode of a large total budget, or no budget
  --budget-scope total|key|end-user  what that budget covers: every call (default), the bench key, or
                                each end user (a per-end-user budget; every call names the end user)
  --storage sqlite|postgres   the relay's store (default sqlite, a temporary file); postgres starts a
                                throwaway server (initdb, loopback port; PG_BIN or initdb on PATH)
                                unless --pg-url; a list (sqlite,postgres) runs one Renio per storage
                                and journal setting in the same rounds
  --guardrails off|log|redact no guardrails (default), or a policy over every call with every built-in
                                detector on requests and answers, matches logged or redacted (the request
                                scan and the stream holdback in the path); a list (off,redact) runs one
                                Renio per setting in the same rounds and reports what the policy adds
  --features off|limits|redis-limits|cache
                              what else the Renio does per call: rate limits in memory, rate limits shared
                                through Redis (a throwaway redis-server unless --redis-url; the report adds
                                Redis's own PING round trip, back to back and after the idle gap between
                                calls, and the same relay called with a key no limit applies to, the
                                two keys' calls interleaved one by one), or the
                                response cache (every measured call a hit); a list (limits,redis-limits,cache)
                                runs one Renio per setting
  --redis-url URL             an existing Redis for --features redis-limits (keys under a random prefix)
  --pg-url URL                an existing PostgreSQL database for --storage postgres (bench rows
                                are written into it: use a scratch database)
  --baseline passthrough      also measure a bare fetch passthrough (the floor)
  --target URL                measure another relay or gateway instead (it must forward to the mock;
  --header 'Name: value'        see --mock-port); --header is repeatable
  --mock-port N               port of the mock (default: a free port)
  --model NAME                model in the request body (default mock-gpt); a list (mock-gpt,mock-claude-translated)
                              starts one Renio per model, measured in the same rounds; a name ending in -translated
                              is served by the mock's Anthropic wire through translation (OpenAI caller, translate: true)
  --rounds 10                 alternating direct / relay rounds per point
  --max-seconds 1800          overall deadline
  --duration 10m              soak mode: one Renio at one concurrency (default 64), non-streaming,
                                for this long (s, m or h), sampling RSS, CPU and overhead over time
  --sample-seconds N          soak sampling interval (default: a tenth of the duration, 1-60 s)
  --json | --markdown         report format (default: text tables)
  --out FILE                  also write the report to FILE`;
