//go:build unix

package usage

import (
	"syscall"
	"time"
)

// CPU returns the user and system CPU time the process has used, all its threads (the garbage
// collector's included); 0 if the system does not say.
func CPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
