package main

import (
	"bytes"
	"context"
	"net"
	"net/http"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
)

// lockedBuffer is a bytes.Buffer that a server and a test may share.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// liveEnv is an env on the real clock, as the demo source and a live server need.
func liveEnv(dbPath string, stderr *lockedBuffer, getenv func(string) string) *env {
	return &env{stdin: strings.NewReader(""), stdout: &bytes.Buffer{}, stderr: stderr, getenv: getenv,
		now: time.Now, dbPath: dbPath, output: "table"}
}

// startServer serves the store named by db (a SQLite path or a postgres:// URL) on addr in the
// background; stop it with the returned function.
func startServer(t *testing.T, db, addr string, logs *lockedBuffer, o serveOptions) func() {
	t.Helper()
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatalf("listen on %s: %v", addr, err)
	}
	e := liveEnv(db, logs, func(string) string { return "" })
	store, err := e.openDB(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- e.serve(ctx, store, ln, o) }()
	return func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("serve: %v", err)
		}
		store.Close()
	}
}

// runCLIDB runs gpucost with --db db, on the fixed clock runCLI uses.
func runCLIDB(t *testing.T, db string, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	e := &env{stdin: strings.NewReader(""), stdout: &out, stderr: &errb, getenv: func(string) string { return "" },
		now: func() time.Time { return time.Date(2026, 12, 2, 0, 0, 0, 0, time.UTC) }}
	code := run(context.Background(), append([]string{"--db", db}, args...), e)
	return code, out.String(), errb.String()
}

// TestServeAgentEndToEnd runs a server and an agent pushing the demo fleet's first 8 GPUs to
// it, restarts the server in the middle, and checks that every sample the agent read is in
// the store's rollups.
func TestServeAgentEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("runs for about 6 s")
	}
	serveAgentEndToEnd(t, filepath.Join(t.TempDir(), "gpucost.db"), serveOptions{flush: 200 * time.Millisecond})
}

// serveAgentEndToEnd is TestServeAgentEndToEnd on the store named by db, served with o.
func serveAgentEndToEnd(t *testing.T, db string, o serveOptions) {
	code, secret, errOut := runCLIDB(t, db, "token", "create", "--name", "node-1", "--role", "ingest")
	secret = strings.TrimSpace(secret)
	if code != exitOK || !strings.HasPrefix(secret, gpucost.TokenSecretPrefix) || !strings.Contains(errOut, "shown only now") {
		t.Fatalf("token create: exit %d, %q, %s", code, secret, errOut)
	}
	code, viewer, _ := runCLIDB(t, db, "token", "create", "--name", "dash", "--role", "viewer")
	if code != exitOK {
		t.Fatal("token create --role viewer failed")
	}

	probe, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := probe.Addr().String()
	probe.Close()
	serverLogs := &lockedBuffer{}
	stop := startServer(t, db, addr, serverLogs, o)
	// The readiness check pings the store.
	if resp, err := http.Get("http://" + addr + "/readyz"); err != nil || resp.StatusCode != http.StatusOK {
		t.Errorf("GET /readyz = %v, %v; want 200 OK", resp, err)
	} else {
		resp.Body.Close()
	}

	// A viewer token may not push: the agent stops with an error naming the token.
	agentLogs := &lockedBuffer{}
	viewerEnv := liveEnv(db, agentLogs, func(k string) string { return map[string]string{"GPUCOST_TOKEN": strings.TrimSpace(viewer)}[k] })
	if code := run(context.Background(), []string{"agent", "--source", "demo:2", "--interval", "1s", "--server", "http://" + addr}, viewerEnv); code != exitInvalid ||
		!strings.Contains(agentLogs.String(), "403") {
		t.Errorf("agent with a viewer token: exit %d; want %d and a 403\n%s", code, exitInvalid, agentLogs)
	}

	agentLogs = &lockedBuffer{}
	agentEnv := liveEnv(db, agentLogs, func(k string) string { return map[string]string{"GPUCOST_TOKEN": secret}[k] })
	ctx, stopAgent := context.WithCancel(context.Background())
	agentDone := make(chan int, 1)
	go func() {
		agentDone <- run(ctx, []string{"agent", "--source", "demo:8", "--interval", "1s", "--server", "http://" + addr}, agentEnv)
	}()
	time.Sleep(2200 * time.Millisecond)
	stop() // the server goes away for a while; the agent holds its samples
	time.Sleep(1500 * time.Millisecond)
	stop = startServer(t, db, addr, serverLogs, o)
	time.Sleep(2000 * time.Millisecond)
	stopAgent()
	if code := <-agentDone; code != exitOK {
		t.Fatalf("agent: exit %d\n%s", code, agentLogs)
	}
	stop()

	read := logInt(t, agentLogs.String(), `agent stopped.*samples=(\d+)`)
	sent := logInt(t, agentLogs.String(), `pushed to server.*sent=(\d+)`)
	if read < 8*4 || sent != read || !strings.Contains(agentLogs.String(), "undelivered=0") ||
		!strings.Contains(agentLogs.String(), "server unreachable") {
		t.Errorf("agent read %d samples and sent %d; want all sent after an outage\n%s", read, sent, agentLogs)
	}
	if stored := storedMinuteSamples(t, db); stored != read {
		t.Errorf("store holds %d samples in minute rollups; the agent read %d\nagent:\n%s\nserver:\n%s", stored, read, agentLogs, serverLogs)
	}
	if strings.Contains(serverLogs.String(), secret) || strings.Contains(agentLogs.String(), secret) {
		t.Errorf("a token secret appears in a log")
	}
}

func logInt(t *testing.T, logs, pattern string) int {
	t.Helper()
	m := regexp.MustCompile(pattern).FindStringSubmatch(logs)
	if m == nil {
		t.Fatalf("log lacks %q:\n%s", pattern, logs)
	}
	n, _ := strconv.Atoi(m[1])
	return n
}

func storedMinuteSamples(t *testing.T, db string) int {
	t.Helper()
	store, err := liveEnv(db, &lockedBuffer{}, func(string) string { return "" }).openDB(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	n := 0
	err = store.ScanRollups(context.Background(), time.Minute, gpucost.RollupFilter{}, func(r *gpucost.Rollup) error {
		n += r.Samples
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func TestTokenCommands(t *testing.T) {
	dir := t.TempDir()
	if code, _, errOut := runCLI(t, dir, "token", "create", "--name", "x", "--role", "root"); code != exitInvalid || !strings.Contains(errOut, "viewer, ingest or admin") {
		t.Errorf("token create --role root: exit %d, %s; want %d naming the roles", code, errOut, exitInvalid)
	}
	code, secret, _ := runCLI(t, dir, "token", "create", "--name", "ci", "--role", "admin")
	if code != exitOK {
		t.Fatal("token create failed")
	}
	code, out, _ := runCLI(t, dir, "token", "list")
	if code != exitOK || !strings.Contains(out, "ci") || !strings.Contains(out, "admin") || strings.Contains(out, strings.TrimSpace(secret)) {
		t.Errorf("token list: exit %d\n%s; want the token without its secret", code, out)
	}
	if code, _, _ := runCLI(t, dir, "token", "revoke", "1"); code != exitOK {
		t.Errorf("token revoke 1: exit %d", code)
	}
	if code, _, _ := runCLI(t, dir, "token", "revoke", "9"); code != exitNotFound {
		t.Errorf("token revoke 9: exit %d; want %d", code, exitNotFound)
	}
	code, out, _ = runCLI(t, dir, "token", "list", "--output", "json")
	if code != exitOK || !strings.Contains(out, `"revoked": "2026-12-02T00:00:00Z"`) {
		t.Errorf("token list --output json after revoke: exit %d\n%s", code, out)
	}
	if code, _, errOut := runCLI(t, dir, "serve", "--listen", "256.0.0.1:1"); code != exitUnavailable {
		t.Errorf("serve --listen 256.0.0.1:1: exit %d, %s; want %d", code, errOut, exitUnavailable)
	}
	if code, _, errOut := runCLI(t, dir, "agent", "--source", "demo:1", "--server", "http://127.0.0.1:1"); code != exitInvalid || !strings.Contains(errOut, "GPUCOST_TOKEN") {
		t.Errorf("agent --server without a token: exit %d, %s; want %d naming $GPUCOST_TOKEN", code, errOut, exitInvalid)
	}
}
