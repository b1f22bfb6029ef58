package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestImportTelemetryReadsTheDocumentedQuery imports the output of the nvidia-smi command that
// `gpucost import telemetry --help` documents, read from the help itself so the two cannot
// drift, with and without the header line.
func TestImportTelemetryReadsTheDocumentedQuery(t *testing.T) {
	dir := t.TempDir()
	code, help, errOut := runCLI(t, dir, "import", "telemetry", "--help")
	if code != exitOK {
		t.Fatalf("import telemetry --help: exit %d\n%s", code, errOut)
	}
	var query string
	for _, line := range strings.Split(help, "\n") {
		if f := strings.Fields(line); len(f) > 1 && f[0] == "nvidia-smi" && strings.HasPrefix(f[1], "--query-gpu=") {
			query = strings.TrimPrefix(f[1], "--query-gpu=")
			if len(f) < 3 || f[2] != "--format=csv,noheader,nounits" {
				t.Errorf("documented command %q: want --format=csv,noheader,nounits", line)
			}
		}
	}
	if query == "" {
		t.Fatalf("import telemetry --help documents no nvidia-smi --query-gpu command:\n%s", help)
	}

	// The fixture's header line is what nvidia-smi prints for the documented query.
	fixtures := filepath.Join("..", "..", "telemetry", "nvidiasmi", "testdata", "h200-documented")
	header, err := os.ReadFile(filepath.Join(fixtures, "header-nounits.csv"))
	if err != nil {
		t.Fatal(err)
	}
	var cols []string
	for _, c := range strings.Split(strings.SplitN(string(header), "\n", 2)[0], ",") {
		name, _, _ := strings.Cut(strings.TrimSpace(c), " [")
		cols = append(cols, name)
	}
	if got := strings.Join(cols, ","); got != query {
		t.Fatalf("fixture columns %q, want the documented query %q", got, query)
	}

	var stored int
	for i, name := range []string{"noheader-nounits.csv", "header-nounits.csv", "header-units.csv"} {
		code, out, errOut := runCLI(t, dir, "import", "telemetry", "--format", "nvidia-smi", "--host", "h200",
			"--output", "json", filepath.Join(fixtures, name))
		var st []fileStats
		if code != exitOK || json.Unmarshal([]byte(out), &st) != nil || len(st) != 1 {
			t.Fatalf("import telemetry %s: exit %d\n%s%s", name, code, out, errOut)
		}
		s := st[0]
		if s.Lines != 48 || s.Samples != 48 || s.Skipped != 0 {
			t.Errorf("import telemetry %s = %+v; want 48 lines, 48 samples, none skipped", name, s)
		}
		// Every shape holds the same readings: after the first, every rollup is already stored.
		if i == 0 {
			stored = s.Rollups
			if stored == 0 {
				t.Errorf("import telemetry %s stored no rollups", name)
			}
		} else if s.Rollups != 0 || s.Repeated != stored {
			t.Errorf("import telemetry %s = %d new, %d already stored; want 0, %d", name, s.Rollups, s.Repeated, stored)
		}
	}
}
