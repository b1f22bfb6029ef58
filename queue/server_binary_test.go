package queue

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpucost/gpucost"
)

// TestFindServer: $GPUCOST_QUEUE_SERVER wins; else the binary on $PATH; else an error that says
// how to build one.
func TestFindServer(t *testing.T) {
	if got, err := FindServer(func(k string) string { return map[string]string{"GPUCOST_QUEUE_SERVER": "/opt/qs"}[k] }); got != "/opt/qs" || err != nil {
		t.Errorf("FindServer($GPUCOST_QUEUE_SERVER=/opt/qs) = %q, %v; want /opt/qs", got, err)
	}
	none := func(string) string { return "" }
	dir := t.TempDir()
	t.Setenv("PATH", dir)
	if _, err := FindServer(none); gpucost.ErrorCode(err) != gpucost.EUnavailable || !strings.Contains(err.Error(), "make build") {
		t.Errorf("FindServer(none anywhere) = %v; want an unavailable error saying how to build it", err)
	}
	bin := filepath.Join(dir, ServerCommand)
	if err := os.WriteFile(bin, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if got, err := FindServer(none); got != bin || err != nil {
		t.Errorf("FindServer(on $PATH) = %q, %v; want %s", got, err, bin)
	}
}

// TestRunServer: a server that exits by itself is unavailable, naming its status; one stopped
// by the context's end returns nil.
func TestRunServer(t *testing.T) {
	dir := t.TempDir()
	script := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		return p
	}
	var out strings.Builder
	failing := script("failing", "echo \"$@\"; exit 3")
	err := RunServer(context.Background(), failing, "/data", "127.0.0.1:4222", &out, &out)
	if gpucost.ErrorCode(err) != gpucost.EUnavailable || !strings.Contains(err.Error(), "exited with status 3") || out.String() != "--data /data --listen 127.0.0.1:4222\n" {
		t.Errorf("RunServer(exits 3) = %v, printed %q; want unavailable, status 3, the flags passed", err, out.String())
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := RunServer(ctx, script("sleeping", "exec sleep 10"), "/data", ":0", &out, &out); err != nil {
		t.Errorf("RunServer(stopped) = %v, want nil", err)
	}
}
