//go:build cgo

package nvml

import (
	"context"

	gonvml "github.com/NVIDIA/go-nvml/pkg/nvml"

	"github.com/gpucost/gpucost"
)

// Processes returns the compute processes on every GPU and MIG instance, with the memory they
// hold and their SM and memory utilisation since the previous call (NVML keeps a short history
// of per-process samples).
func (c *Collector) Processes(ctx context.Context) ([]Process, error) {
	n, ret := c.Lib.DeviceGetCount()
	if ret != gonvml.SUCCESS {
		return nil, gpucost.Errorf(gpucost.EUnavailable, "NVML: count devices: %s", ret)
	}
	var out []Process
	for i := range n {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		dev, ret := c.Lib.DeviceGetHandleByIndex(i)
		if ret != gonvml.SUCCESS {
			continue
		}
		out = c.processes(dev, out)
		if mode, _, ret := dev.GetMigMode(); ret == gonvml.SUCCESS && mode == gonvml.DEVICE_MIG_ENABLE {
			count, _ := dev.GetMaxMigDeviceCount()
			for j := range count {
				if mig, ret := dev.GetMigDeviceHandleByIndex(j); ret == gonvml.SUCCESS {
					out = c.processes(mig, out)
				}
			}
		}
	}
	return out, nil
}

// processes appends the processes of one device.
func (c *Collector) processes(dev gonvml.Device, out []Process) []Process {
	uuid, ret := dev.GetUUID()
	if ret != gonvml.SUCCESS {
		return out
	}
	procs, ret := dev.GetComputeRunningProcesses()
	if ret != gonvml.SUCCESS || len(procs) == 0 {
		return out
	}
	util := c.processUtil(dev, uuid)
	for _, p := range procs {
		pr := Process{GPU: uuid, PID: int(p.Pid), UsedMiB: gpucost.Absent, SMUtil: gpucost.Absent, MemUtil: gpucost.Absent}
		if p.UsedGpuMemory > 0 {
			pr.UsedMiB = float64(p.UsedGpuMemory) / mib
		}
		if u, ok := util[p.Pid]; ok {
			pr.SMUtil, pr.MemUtil = float64(u.SmUtil), float64(u.MemUtil)
		}
		out = append(out, pr)
	}
	return out
}

// processUtil returns the latest utilisation sample of each process on a device since the last
// call, from GetProcessUtilization.
func (c *Collector) processUtil(dev gonvml.Device, uuid string) map[uint32]gonvml.ProcessUtilizationSample {
	c.mu.Lock()
	since := c.lastProc[uuid]
	c.mu.Unlock()
	samples, ret := dev.GetProcessUtilization(since)
	if ret != gonvml.SUCCESS { // ERROR_NOT_FOUND: no sample since then
		return nil
	}
	latest := make(map[uint32]gonvml.ProcessUtilizationSample, len(samples))
	newest := since
	for _, s := range samples {
		if prev, ok := latest[s.Pid]; !ok || s.TimeStamp > prev.TimeStamp {
			latest[s.Pid] = s
		}
		newest = max(newest, s.TimeStamp)
	}
	c.mu.Lock()
	if c.lastProc == nil {
		c.lastProc = map[string]uint64{}
	}
	c.lastProc[uuid] = newest
	c.mu.Unlock()
	return latest
}

// PIDs returns the processes using each GPU or MIG instance, by UUID, so that a profiler can
// tell which GPUs a process tree uses.
func (c *Collector) PIDs(ctx context.Context) (map[string][]int, error) {
	procs, err := c.Processes(ctx)
	if err != nil {
		return nil, err
	}
	out := map[string][]int{}
	for _, p := range procs {
		out[p.GPU] = append(out[p.GPU], p.PID)
	}
	return out, nil
}
