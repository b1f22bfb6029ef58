//go:build unix

package fleet

import (
	"syscall"
	"time"
)

// cpuTime returns the CPU time the process has used, all threads, so that a benchmark on a
// busy machine reports what the work cost as well as how long it took.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
