//go:build !unix

package main

import "time"

// demoCPUTime is not measured here; the demo's benchmarks report 0 CPU time.
func demoCPUTime() time.Duration { return 0 }
