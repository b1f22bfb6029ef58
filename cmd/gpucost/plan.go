package main

import (
	"strconv"
	"strings"

	"github.com/gpucost/gpucost"
	"github.com/spf13/cobra"
)

func newPlanCmd(e *env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "plan",
		Short: "Planners: instance sizing, commitments, MIG packing, checkpoint intervals, spot fleets",
	}
	cmd.AddCommand(newPlanCheckpointCmd(e), newPlanCommitCmd(e), newPlanInstanceCmd(e), newPlanMIGCmd(e), newPlanFleetCmd(e), newPlanCapacityCmd(e), newPlanBatchingCmd(e), newPlanAutoscaleCmd(e))
	return cmd
}

// byteUnits are the size suffixes parseBytes takes: decimal as storage and networks count.
var byteUnits = []struct {
	suffix string
	bytes  float64
}{{"TB", 1e12}, {"GB", 1e9}, {"MB", 1e6}, {"KB", 1e3}, {"TiB", 1 << 40}, {"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}, {"B", 1}}

// parseBytes reads a size such as "98GB", "1.5TiB" or "512MB"; perSecond reads a bandwidth such
// as "1GB/s".
func parseBytes(flag, s string, perSecond bool) (float64, error) {
	bad := gpucost.Errorf(gpucost.EInvalid, "--%s %q: use a size such as 98GB, 1.5TiB or 512MB%s", flag, s, map[bool]string{true: " per second: 1GB/s"}[perSecond])
	v := strings.TrimSpace(s)
	if perSecond {
		var ok bool
		if v, ok = strings.CutSuffix(v, "/s"); !ok {
			return 0, bad
		}
	}
	for _, u := range byteUnits {
		if n, ok := strings.CutSuffix(v, u.suffix); ok {
			f, err := strconv.ParseFloat(strings.TrimSpace(n), 64)
			if err != nil || f <= 0 {
				return 0, bad
			}
			return f * u.bytes, nil
		}
	}
	return 0, bad
}
