package profile

import (
	"context"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/telemetry/nvml"
)

// NVML returns a Profiler.Read that reads c's GPUs and their processes in one pass.
func NVML(c *nvml.Collector) func(ctx context.Context) ([]gpucost.Sample, []Proc, error) {
	return func(ctx context.Context) ([]gpucost.Sample, []Proc, error) {
		samples, procs, err := c.CollectProcesses(ctx)
		if err != nil {
			return nil, nil, err
		}
		out := make([]Proc, len(procs))
		for i, p := range procs {
			out[i] = Proc{GPU: p.GPU, PID: p.PID, SMUtil: p.SMUtil, UsedMiB: p.UsedMiB}
		}
		return samples, out, nil
	}
}
