package queue

import (
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
