// Package usage reads what the running process has used of the machine, for the benchmarks that
// report CPU seconds and peak memory beside wall time: on a shared machine the CPU time is the
// steady measure of what the work cost (README "Speed").
package usage

import (
	"os"
	"strconv"
	"strings"
)

// PeakRSS returns the process's peak resident set size in bytes (Linux's VmHWM), 0 where the
// system does not say.
func PeakRSS() int64 {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for line := range strings.SplitSeq(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			return kb << 10
		}
	}
	return 0
}
