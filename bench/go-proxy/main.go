// A bare Go reverse proxy for `renio bench --mode capacity`: net/http/httputil's
// ReverseProxy to one upstream, every response flushed as it arrives (FlushInterval -1),
// kept-alive upstream connections with no per-host cap. It prints
// "go-proxy listening on http://HOST:PORT" once it accepts connections.
//
// Build: go build -o bench/go-proxy/go-proxy ./bench/go-proxy
package main

import (
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"os/signal"
	"syscall"
	"time"
)

func main() {
	listen := flag.String("listen", "127.0.0.1:0", "address to listen on (loopback)")
	upstream := flag.String("upstream", "", "upstream origin, e.g. http://127.0.0.1:9090")
	flag.Parse()
	target, err := url.Parse(*upstream)
	if err != nil || target.Scheme == "" || target.Host == "" {
		log.Fatalf("go-proxy: -upstream must be an origin like http://127.0.0.1:9090, got %q", *upstream)
	}
	transport := http.DefaultTransport.(*http.Transport).Clone()
	// The default keeps 2 idle connections per host: thousands of streams would reconnect on every call.
	transport.MaxIdleConns = 0
	transport.MaxIdleConnsPerHost = 65536
	transport.IdleConnTimeout = 90 * time.Second
	proxy := httputil.NewSingleHostReverseProxy(target)
	proxy.Transport = transport
	proxy.FlushInterval = -1
	listener, err := net.Listen("tcp", *listen)
	if err != nil {
		log.Fatalf("go-proxy: %v", err)
	}
	server := &http.Server{Handler: proxy}
	fmt.Printf("go-proxy listening on http://%s\n", listener.Addr().String())
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGINT, syscall.SIGTERM)
	go func() {
		<-stop
		server.Close()
	}()
	if err := server.Serve(listener); err != nil && err != http.ErrServerClosed {
		log.Fatalf("go-proxy: %v", err)
	}
}
