package natsserver

import (
	"context"
	"net"
	"strings"
	"testing"

	"github.com/gpucost/gpucost"
)

func TestStartRefusesBadOptions(t *testing.T) {
	for _, tc := range []struct {
		name string
		o    Options
		want string
	}{
		{"no data directory", Options{Listen: "127.0.0.1:-1"}, "no data directory"},
		{"no port", Options{DataDir: t.TempDir(), Listen: "127.0.0.1"}, "use host:port"},
		{"port not a number", Options{DataDir: t.TempDir(), Listen: "127.0.0.1:http"}, "is not a number"},
		{"port too large", Options{DataDir: t.TempDir(), Listen: "127.0.0.1:70000"}, "is not a number"},
	} {
		s, err := Start(tc.o)
		if s != nil {
			s.Shutdown()
		}
		if gpucost.ErrorCode(err) != gpucost.EInvalid || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Start(%s) = %v; want an EInvalid saying %q", tc.name, err, tc.want)
		}
	}
}

// TestServeAcceptsClients starts the server on a free port, checks that it takes TCP
// connections at the URL it reports, and that Serve returns when its context ends.
func TestServeAcceptsClients(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	urls := make(chan string, 1)
	served := make(chan error, 1)
	go func() {
		served <- Serve(ctx, Options{DataDir: t.TempDir(), Listen: "127.0.0.1:-1", Ready: func(u string) { urls <- u }})
	}()
	u := <-urls
	conn, err := net.Dial("tcp", strings.TrimPrefix(u, "nats://"))
	if err != nil {
		t.Fatalf("dial the server at %s: %v", u, err)
	}
	line := make([]byte, 4)
	if _, err := conn.Read(line); err != nil || string(line) != "INFO" {
		t.Errorf("the server at %s greets with %q, %v; want NATS's INFO", u, line, err)
	}
	conn.Close()
	cancel()
	if err := <-served; err != nil {
		t.Errorf("Serve = %v after its context ended, want nil", err)
	}
}
