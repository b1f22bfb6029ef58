//go:build unix

package analyze

import (
	"syscall"
	"time"
)

// cpuTime returns the CPU time the process has used, all threads (the collector's included).
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
