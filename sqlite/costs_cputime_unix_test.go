//go:build unix

package sqlite_test

import (
	"syscall"
	"time"
)

// costCPUTime returns the CPU time the process has used, all threads (the collector's included),
// so that benchmarks on a busy machine report what the work cost as well as how long it took.
func costCPUTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
