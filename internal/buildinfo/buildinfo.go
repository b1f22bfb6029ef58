// Package buildinfo says which gpucost this is and how it was built: the version, commit and
// build date make stamps with -ldflags -X, else the VCS stamp go build records, and the
// toolchain, platform and whether NVML can be loaded.
package buildinfo

import (
	"fmt"
	"runtime"
	"runtime/debug"
)

// Info is what gpucost version prints: which gpucost this is and how it was built.
type Info struct {
	Version   string `json:"version"`
	Commit    string `json:"commit"`     // the VCS revision, "unknown" when not recorded
	Modified  bool   `json:"modified"`   // the working tree had uncommitted changes
	BuildDate string `json:"build_date"` // RFC 3339, from -ldflags or the commit time; "unknown" when neither
	GoVersion string `json:"go_version"` // the toolchain that built the binary
	Platform  string `json:"platform"`   // GOOS/GOARCH
	NVML      bool   `json:"nvml"`       // built with cgo, so the agent can load NVML
}

// Read returns the Info of the running binary: version, commit and date as the linker set
// them, then the module's VCS stamp for what they leave out.
func Read(version, commit, date string) Info {
	b := Info{Version: version, Commit: commit, BuildDate: date, GoVersion: runtime.Version(),
		Platform: runtime.GOOS + "/" + runtime.GOARCH, NVML: NVML}
	if bi, ok := debug.ReadBuildInfo(); ok {
		b.fill(bi)
	}
	if b.Commit == "" {
		b.Commit = "unknown"
	}
	if b.BuildDate == "" {
		b.BuildDate = "unknown"
	}
	return b
}

// fill takes from bi's VCS stamp and module version what the linker's variables left empty
// (a "dev" version counts as empty).
func (b *Info) fill(bi *debug.BuildInfo) {
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			if b.Commit == "" {
				b.Commit = s.Value
			}
		case "vcs.time":
			if b.BuildDate == "" {
				b.BuildDate = s.Value
			}
		case "vcs.modified":
			b.Modified = s.Value == "true"
		}
	}
	if b.Version == "dev" && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		b.Version = bi.Main.Version
	}
}

// String is the one line --version prints.
func (b Info) String() string {
	c := b.Commit
	if len(c) > 12 {
		c = c[:12]
	}
	if b.Modified {
		c += "-dirty"
	}
	nvml := "without NVML (no cgo)"
	if b.NVML {
		nvml = "with NVML"
	}
	return fmt.Sprintf("gpucost %s (commit %s, built %s, %s, %s) %s", b.Version, c, b.BuildDate, b.GoVersion, b.Platform, nvml)
}
