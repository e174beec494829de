module renio.dev/bench/go-proxy

go 1.19
