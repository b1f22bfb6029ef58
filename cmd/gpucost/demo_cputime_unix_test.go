//go:build unix

package main

import (
	"syscall"
	"time"
)

// demoCPUTime returns the CPU time the process has used, all threads, so that the demo's
// benchmarks on a busy machine report what the work cost as well as how long it took.
func demoCPUTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
