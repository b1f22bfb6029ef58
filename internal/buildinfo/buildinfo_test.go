package buildinfo

import (
	"runtime/debug"
	"testing"
)

func TestFill(t *testing.T) {
	stamp := &debug.BuildInfo{Main: debug.Module{Version: "v0.3.0"}, Settings: []debug.BuildSetting{
		{Key: "vcs.revision", Value: "fedcba9876543210"}, {Key: "vcs.time", Value: "2026-11-01T00:00:00Z"},
		{Key: "vcs.modified", Value: "true"}}}
	for _, tc := range []struct {
		name string
		in   Info
		want Info
	}{
		{"the VCS stamp fills what the linker left", Info{Version: "dev"},
			Info{Version: "v0.3.0", Commit: "fedcba9876543210", BuildDate: "2026-11-01T00:00:00Z", Modified: true}},
		{"the linker's variables win", Info{Version: "v1.2.3", Commit: "0123", BuildDate: "2026-11-27T10:00:00Z"},
			Info{Version: "v1.2.3", Commit: "0123", BuildDate: "2026-11-27T10:00:00Z", Modified: true}},
	} {
		got := tc.in
		got.fill(stamp)
		if got != tc.want {
			t.Errorf("%s: fill(%+v) = %+v, want %+v", tc.name, tc.in, got, tc.want)
		}
	}
}

func TestRead(t *testing.T) {
	b := Read("v1.2.3", "", "")
	if b.Version != "v1.2.3" || b.Commit == "" || b.BuildDate == "" || b.GoVersion == "" || b.NVML != NVML {
		t.Errorf("Read(v1.2.3, \"\", \"\") = %+v; want the version, a commit and date (or unknown), the toolchain", b)
	}
}

func TestString(t *testing.T) {
	b := Info{Version: "v1.2.3", Commit: "0123456789abcdef0123", Modified: true, BuildDate: "2026-11-27T10:00:00Z",
		GoVersion: "go1.26.8", Platform: "linux/amd64"}
	want := "gpucost v1.2.3 (commit 0123456789ab-dirty, built 2026-11-27T10:00:00Z, go1.26.8, linux/amd64) without NVML (no cgo)"
	if got := b.String(); got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
	b.NVML, b.Modified = true, false
	if got := b.String(); got != "gpucost v1.2.3 (commit 0123456789ab, built 2026-11-27T10:00:00Z, go1.26.8, linux/amd64) with NVML" {
		t.Errorf("String() with NVML = %q", got)
	}
}
