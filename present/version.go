package present

import "github.com/gpucost/gpucost/internal/buildinfo"

// Version is gpucost version's output: a field per row, the Info as JSON.
func Version(b buildinfo.Info) Table {
	yes := map[bool]string{true: "yes", false: "no"}
	return Table{
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
