//go:build cgo

package nvml

import (
	"context"

	gonvml "github.com/NVIDIA/go-nvml/pkg/nvml"

	"github.com/gpucost/gpucost"
)

// sampleCarry is how long, in NVML's microseconds, a process's latest utilisation sample still
// stands for it when NVML took newer samples of other processes on the device but none of it:
// NVML samples each process at its own pace, and a light process's sample can be a second
// older than a busy neighbour's.
const sampleCarry = 2_000_000

// deviceProcs is what the collector remembers of one device's per-process utilisation samples.
type deviceProcs struct {
	since  uint64                                     // the newest NVML timestamp read
	latest map[uint32]gonvml.ProcessUtilizationSample // each process's latest sample
}

// Processes returns the compute processes on every GPU and MIG instance, with the memory they
// hold and their SM and memory utilisation (see Process). Collect reads the same samples: a
// caller that wants both calls CollectProcesses, which reads each device once.
func (c *Collector) Processes(ctx context.Context) ([]Process, error) {
	_, procs, err := c.CollectProcesses(ctx)
	return procs, err
}

// processes returns the compute processes of one device, with the memory they hold and their
// utilisation from NVML's per-process samples; sampling says that NVML samples the device's
// processes, though it may have taken no sample since the last read.
func (c *Collector) processes(dev gonvml.Device, uuid string) (_ []Process, sampling bool) {
	procs, ret := dev.GetComputeRunningProcesses()
	if ret != gonvml.SUCCESS || len(procs) == 0 {
		return nil, false
	}
	util, sampling := c.processUtil(dev, uuid)
	out := make([]Process, 0, len(procs))
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
	return out, sampling
}

// processUtil returns the utilisation sample that stands for each process on a device now, from
// GetProcessUtilization: its latest since the last call or, when NVML sampled other processes
// but not it, its previous one if no more than sampleCarry older than the newest. Without new
// samples at all it returns nil: NVML has not sampled the device since, because no process ran
// a kernel (sampling is true), or it cannot (sampling is false: not supported, MIG).
func (c *Collector) processUtil(dev gonvml.Device, uuid string) (_ map[uint32]gonvml.ProcessUtilizationSample, sampling bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.procs == nil {
		c.procs = map[string]*deviceProcs{}
	}
	d := c.procs[uuid]
	if d == nil {
		d = &deviceProcs{latest: map[uint32]gonvml.ProcessUtilizationSample{}}
		c.procs[uuid] = d
	}
	samples, ret := dev.GetProcessUtilization(d.since)
	if ret != gonvml.SUCCESS || len(samples) == 0 { // ERROR_NOT_FOUND: no sample since then
		return nil, ret == gonvml.SUCCESS || ret == gonvml.ERROR_NOT_FOUND
	}
	newest := d.since
	for _, s := range samples {
		if prev, ok := d.latest[s.Pid]; !ok || s.TimeStamp > prev.TimeStamp {
			d.latest[s.Pid] = s
		}
		newest = max(newest, s.TimeStamp)
	}
	d.since = newest
	out := make(map[uint32]gonvml.ProcessUtilizationSample, len(d.latest))
	for pid, s := range d.latest {
		if s.TimeStamp+sampleCarry < newest {
			delete(d.latest, pid) // gone quiet or exited
			continue
		}
		out[pid] = s
	}
	return out, true
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
