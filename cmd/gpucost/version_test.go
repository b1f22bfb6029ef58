package main

import (
	"encoding/json"
	"runtime"
	"strings"
	"testing"
)

// TestVersion: gpucost version --output json names the build, --version prints it on one line,
// and what make build stamps with -ldflags -X wins over the VCS stamp.
func TestVersion(t *testing.T) {
	dir := t.TempDir()
	code, out, errOut := runCLI(t, dir, "version", "--output", "json")
	if code != exitOK {
		t.Fatalf("version --output json: exit %d, stderr %s", code, errOut)
	}
	var b BuildInfo
	if err := json.Unmarshal([]byte(out), &b); err != nil {
		t.Fatalf("version --output json: %v\n%s", err, out)
	}
	if b.Version == "" || b.Commit == "" || b.BuildDate == "" || b.GoVersion != runtime.Version() || b.NVML != nvmlCompiled {
		t.Errorf("version --output json = %+v; want a version, commit, date, %s and nvml %v", b, runtime.Version(), nvmlCompiled)
	}
	code, out, _ = runCLI(t, dir, "--version")
	if code != exitOK || !strings.HasPrefix(out, "gpucost "+b.Version+" (commit ") || !strings.Contains(out, runtime.Version()) ||
		strings.Count(out, "\n") != 1 {
		t.Errorf("--version: exit %d, %q; want one line naming the version, commit and Go version", code, out)
	}

	defer func(v, c, d string) { version, commit, buildDate = v, c, d }(version, commit, buildDate)
	version, commit, buildDate = "v1.2.3", "0123456789abcdef0123", "2026-11-27T10:00:00Z"
	got := buildInfo()
	if got.Version != "v1.2.3" || got.Commit != "0123456789abcdef0123" || got.BuildDate != "2026-11-27T10:00:00Z" {
		t.Errorf("buildInfo() with -ldflags -X = %+v", got)
	}
	if s := got.String(); !strings.HasPrefix(s, "gpucost v1.2.3 (commit 0123456789ab") || !strings.Contains(s, "built 2026-11-27T10:00:00Z") {
		t.Errorf("BuildInfo.String() = %q", s)
	}
}
