//go:build !unix

package sqlite_test

import "time"

// costCPUTime is not measured here; benchmarks report 0 CPU time.
func costCPUTime() time.Duration { return 0 }
