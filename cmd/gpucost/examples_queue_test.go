package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// background is the example started with "&" that runs beside the next examples, as in a shell:
// the queue server the queue examples reach.
type background struct {
	line   string
	args   []string
	e      *env
	ready  func(string) bool
	cancel context.CancelFunc
	done   chan int
	out    *syncBuffer
}

// exampleBackground is the running background example, if any.
var exampleBackground *background

// startBackground runs args as line's background command until stopBackground, once ready.
func startBackground(t *testing.T, line string, args []string, e *env, out *syncBuffer, ready func(string) bool) int {
	t.Helper()
	stopBackground(t)
	ctx, cancel := context.WithCancel(context.Background())
	b := &background{line: line, args: args, e: e, ready: ready, cancel: cancel, done: make(chan int, 1), out: out}
	go func() { b.done <- run(ctx, args, e) }()
	for giveUp := time.Now().Add(30 * time.Second); !ready(out.String()); time.Sleep(50 * time.Millisecond) {
		select {
		case code := <-b.done:
			cancel()
			return code
		default:
		}
		if time.Now().After(giveUp) {
			cancel()
			t.Errorf("%s not ready after 30 s:\n%s", line, out.String())
			return -1
		}
	}
	exampleBackground = b
	return exitOK
}

// aside stops the background example while serve, a command that serves where it does, runs,
// and starts it again after.
func aside(t *testing.T, args []string, serve func() int) int {
	t.Helper()
	b := exampleBackground
	if b == nil || len(b.args) < 2 || len(args) < 2 || b.args[0] != args[0] || b.args[1] != args[1] {
		return serve()
	}
	stopBackground(t)
	code := serve()
	var out syncBuffer
	e := *b.e
	e.stdout, e.stderr = &out, &out
	if again := startBackground(t, b.line, b.args, &e, &out, b.ready); again != exitOK {
		t.Errorf("%s again: exit %d\n%s", b.line, again, out.String())
	}
	return code
}

// stopBackground stops the background example as Ctrl-C does; it must exit 0.
func stopBackground(t *testing.T) {
	t.Helper()
	b := exampleBackground
	if b == nil {
		return
	}
	exampleBackground = nil
	b.cancel()
	select {
	case code := <-b.done:
		if code != exitOK {
			t.Errorf("%s: exit %d when stopped, want 0:\n%s", b.line, code, b.out.String())
		}
	case <-time.After(30 * time.Second):
		t.Errorf("%s still running 30 s after Ctrl-C", b.line)
	}
}

// writeQueueFixtures writes what the queue examples name: images.jsonl (img-0001 to img-0050),
// caption.py, which captions each item of its batch, and infer.sh and flaky.sh, which echo it;
// and a queue server binary, the test binary itself (TestMain runs it for "queue-server").
func writeQueueFixtures(t *testing.T, dir string) map[string]string {
	t.Helper()
	var items strings.Builder
	for i := 1; i <= 50; i++ {
		fmt.Fprintf(&items, `{"id":"img-%04d","url":"https://images.example.com/%04d.jpg"}`+"\n", i, i)
	}
	files := map[string]string{
		"images.jsonl":         items.String(),
		"caption.py":           "import json, sys\nfor line in sys.stdin:\n    print(json.dumps({'id': json.loads(line)['id'], 'caption': 'a photo'}))\n",
		"infer.sh":             "#!/bin/sh\ncat\n",
		"flaky.sh":             "#!/bin/sh\ncat\n",
		"gpucost-queue-server": "#!/bin/sh\nexec '" + os.Args[0] + "' queue-server \"$@\"\n",
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return map[string]string{"GPUCOST_QUEUE_SERVER": filepath.Join(dir, "gpucost-queue-server")}
}

// queueResultsFilled fills data/captions, the results store the example reads before the work
// example that fills it runs: a worker echoes images.jsonl's items pushed to a queue of its own.
func queueResultsFilled(t *testing.T, dir string) (map[string]string, func()) {
	t.Helper()
	for _, line := range []string{
		"gpucost queue push --queue fill images.jsonl",
		"gpucost queue work --queue fill --results data/captions --exit-when-empty -- ./infer.sh",
	} {
		if code, out := runExampleEnv(t, line, map[string]string{}); code != exitOK {
			t.Fatalf("%s: exit %d\n%s", line, code, out)
		}
	}
	return nil, func() {}
}
