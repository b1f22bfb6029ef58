package main

import (
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/gpucost/gpucost/present"
	"github.com/spf13/cobra"
)

// Set by the linker where make builds a release:
// -ldflags "-X main.version=v0.1.0 -X main.commit=… -X main.buildDate=…".
// Where they are empty, buildInfo falls back on the VCS stamp go build records.
var (
	version   = "dev"
	commit    = ""
	buildDate = ""
)

// BuildInfo is what gpucost version prints: which gpucost this is and how it was built.
type BuildInfo struct {
	Version   string `json:"version"`
	Commit    string `json:"commit"`     // the VCS revision, "unknown" when not recorded
	Modified  bool   `json:"modified"`   // the working tree had uncommitted changes
	BuildDate string `json:"build_date"` // RFC 3339, from -ldflags or the commit time; "unknown" when neither
	GoVersion string `json:"go_version"` // the toolchain that built the binary
	Platform  string `json:"platform"`   // GOOS/GOARCH
	NVML      bool   `json:"nvml"`       // built with cgo, so the agent can load NVML
}

// buildInfo reads the linker's variables, then the module's VCS stamp for what they leave out.
func buildInfo() BuildInfo {
	b := BuildInfo{Version: version, Commit: commit, BuildDate: buildDate, GoVersion: runtime.Version(),
		Platform: runtime.GOOS + "/" + runtime.GOARCH, NVML: nvmlCompiled}
	if bi, ok := debug.ReadBuildInfo(); ok {
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
	if b.Commit == "" {
		b.Commit = "unknown"
	}
	if b.BuildDate == "" {
		b.BuildDate = "unknown"
	}
	return b
}

// String is the one line --version prints.
func (b BuildInfo) String() string {
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

// versionTable is gpucost version's output: a field per row, the BuildInfo as JSON.
func versionTable(b BuildInfo) present.Table {
	yes := map[bool]string{true: "yes", false: "no"}
	return present.Table{
		Title:   "gpucost " + b.Version,
		Columns: []string{"Field", "Value"},
		Rows: [][]string{
			{"version", b.Version}, {"commit", b.Commit}, {"modified", yes[b.Modified]},
			{"build date", b.BuildDate}, {"go version", b.GoVersion}, {"platform", b.Platform},
			{"nvml", yes[b.NVML]},
		},
		JSON: b,
	}
}

func newVersionCmd(e *env) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version, commit, build date, Go version and whether NVML support is built in",
		Example: `  gpucost version
  gpucost --version
  gpucost version --output json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return e.print(versionTable(buildInfo()))
		},
	}
}

// addVersionFlag gives root a --version flag printing BuildInfo's one line. It is gpucost's
// own flag, not cobra's Version field: cobra prints that through text/template, whose
// reflect.Value.MethodByName keeps every exported method in the binary (docs/architecture.md
// "Binary size").
func addVersionFlag(root *cobra.Command, e *env) {
	version := root.Flags().Bool("version", false, "print the version, commit, build date and Go version on one line")
	root.RunE = func(cmd *cobra.Command, args []string) error {
		if *version {
			_, err := fmt.Fprintln(e.stdout, buildInfo().String())
			return err
		}
		return cmd.Help()
	}
}
