package main

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// syncBuffer is a bytes.Buffer safe for one writer and one reader.
type syncBuffer struct {
	mu  sync.Mutex
	buf strings.Builder
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// TestQueueServeRunsTheServer runs gpucost queue serve with $GPUCOST_QUEUE_SERVER naming the
// server binary (here the test binary, which runs natsserver.Main when asked for
// "queue-server"): the server's ready line comes through, a queue push reaches it, and Ctrl-C
// (the context ending) stops it with exit 0.
func TestQueueServeRunsTheServer(t *testing.T) {
	dir := t.TempDir()
	wrapper := filepath.Join(dir, "gpucost-queue-server")
	if err := os.WriteFile(wrapper, []byte("#!/bin/sh\nexec '"+os.Args[0]+"' queue-server \"$@\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	listen := l.Addr().String()
	l.Close()

	var out, errOut syncBuffer
	e := &env{stdin: strings.NewReader(""), stdout: &out, stderr: &errOut, now: time.Now,
		getenv: func(k string) string {
			if k == "GPUCOST_QUEUE_SERVER" {
				return wrapper
			}
			return ""
		}}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, []string{"queue", "serve", "--data", filepath.Join(dir, "data"), "--listen", listen}, e)
	}()

	ready := regexp.MustCompile(`queue server listening at (nats://\S+) \(data in `)
	var url string
	for giveUp := time.Now().Add(30 * time.Second); url == ""; time.Sleep(20 * time.Millisecond) {
		if m := ready.FindStringSubmatch(out.String()); m != nil {
			url = m[1]
		}
		select {
		case code := <-done:
			t.Fatalf("queue serve exited %d before it was ready; stdout %q, stderr %q", code, out.String(), errOut.String())
		default:
		}
		if time.Now().After(giveUp) {
			t.Fatalf("queue serve not ready after 30 s; stdout %q, stderr %q", out.String(), errOut.String())
		}
	}
	code, pushed, perr := runQueueCLI(t, url, `{"id":"a"}`+"\n", "queue", "push", "--queue", "served", "-")
	if code != exitOK || !strings.Contains(pushed, "│      1 │") {
		t.Errorf("queue push to the served queue: exit %d\n%s%s", code, pushed, perr)
	}
	cancel()
	select {
	case code := <-done:
		if code != exitOK {
			t.Errorf("queue serve stopped by Ctrl-C = exit %d, want 0; stderr %q", code, errOut.String())
		}
	case <-time.After(30 * time.Second):
		t.Fatal("queue serve still running 30 s after Ctrl-C")
	}
}

// TestQueueServeWithoutTheServer: where the server binary is nowhere to be found, queue serve
// says how to get it and exits 4 (a source or server unavailable).
func TestQueueServeWithoutTheServer(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	code, _, errOut := runGpucost(t, nil, "queue", "serve", "--data", t.TempDir())
	if code != exitUnavailable || !strings.Contains(errOut, "make build") || !strings.Contains(errOut, "GPUCOST_QUEUE_SERVER") {
		t.Errorf("queue serve without its server = exit %d, %q; want exit 4 naming make build and $GPUCOST_QUEUE_SERVER", code, errOut)
	}
}
