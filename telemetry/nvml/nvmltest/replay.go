//go:build cgo

package nvmltest

import (
	"time"

	gonvml "github.com/NVIDIA/go-nvml/pkg/nvml"
	"github.com/NVIDIA/go-nvml/pkg/nvml/mock"
)

// Replay is a GPU whose mock NVML device gives a capture's figures. Each read of the device's
// utilisation moves it to the capture's next poll; after the last it stays there, and NVML
// has no newer per-process samples to give.
type Replay struct {
	Capture  Capture
	UUID     string
	TotalMiB uint64 // the device's memory; its used memory is the running processes' sum
	poll     int    // the poll the device is at; -1 before the first read
	Since    []uint64
}

// NewReplay returns a replay of c as the GPU uuid with totalMiB of memory.
func NewReplay(c Capture, uuid string, totalMiB uint64) *Replay {
	return &Replay{Capture: c, UUID: uuid, TotalMiB: totalMiB, poll: -1}
}

// Now returns the time of the poll the replay is at, its newest per-process sample: a
// collector's clock in step with the capture.
func (r *Replay) Now() time.Time {
	var newest uint64
	for _, p := range r.Capture.Polls[max(r.poll, 0)].Procs {
		newest = max(newest, p.TimeStampUS)
	}
	return time.UnixMicro(int64(newest)).UTC()
}

// Device returns the mock device.
func (r *Replay) Device() *mock.Device {
	c := &r.Capture
	return &mock.Device{
		GetUUIDFunc: func() (string, gonvml.Return) { return r.UUID, gonvml.SUCCESS },
		GetNameFunc: func() (string, gonvml.Return) { return c.Name, gonvml.SUCCESS },
		GetUtilizationRatesFunc: func() (gonvml.Utilization, gonvml.Return) {
			r.poll = min(r.poll+1, len(c.Polls)-1)
			p := c.Polls[r.poll]
			return gonvml.Utilization{Gpu: p.GPUUtil, Memory: p.MemUtil}, gonvml.SUCCESS
		},
		GetMemoryInfoFunc: func() (gonvml.Memory, gonvml.Return) {
			var used uint64
			for _, p := range c.Running {
				used += p.UsedBytes
			}
			total := r.TotalMiB << 20
			return gonvml.Memory{Total: total, Used: used, Free: total - used}, gonvml.SUCCESS
		},
		GetPowerUsageFunc:  func() (uint32, gonvml.Return) { return 0, gonvml.ERROR_NOT_SUPPORTED },
		GetTemperatureFunc: func(gonvml.TemperatureSensors) (uint32, gonvml.Return) { return 0, gonvml.ERROR_NOT_SUPPORTED },
		GetComputeRunningProcessesFunc: func() ([]gonvml.ProcessInfo, gonvml.Return) {
			out := make([]gonvml.ProcessInfo, 0, len(c.Running))
			for _, p := range c.Running {
				out = append(out, gonvml.ProcessInfo{Pid: p.PID, UsedGpuMemory: p.UsedBytes})
			}
			return out, gonvml.SUCCESS
		},
		GetProcessUtilizationFunc: func(since uint64) ([]gonvml.ProcessUtilizationSample, gonvml.Return) {
			r.Since = append(r.Since, since)
			var out []gonvml.ProcessUtilizationSample
			for _, p := range c.Polls[max(r.poll, 0)].Procs {
				if p.TimeStampUS > since {
					out = append(out, gonvml.ProcessUtilizationSample{Pid: p.PID, TimeStamp: p.TimeStampUS, SmUtil: p.SM, MemUtil: p.Mem})
				}
			}
			if len(out) == 0 {
				return nil, gonvml.ERROR_NOT_FOUND
			}
			return out, gonvml.SUCCESS
		},
		GetMigModeFunc: func() (int, int, gonvml.Return) {
			if c.MIG {
				return gonvml.DEVICE_MIG_ENABLE, gonvml.DEVICE_MIG_ENABLE, gonvml.SUCCESS
			}
			return gonvml.DEVICE_MIG_DISABLE, gonvml.DEVICE_MIG_DISABLE, gonvml.SUCCESS
		},
	}
}

// Lib returns a mock NVML that shows the devices, in order.
func Lib(devs ...gonvml.Device) *mock.Interface {
	return &mock.Interface{
		InitFunc:           func() gonvml.Return { return gonvml.SUCCESS },
		ShutdownFunc:       func() gonvml.Return { return gonvml.SUCCESS },
		DeviceGetCountFunc: func() (int, gonvml.Return) { return len(devs), gonvml.SUCCESS },
		DeviceGetHandleByIndexFunc: func(i int) (gonvml.Device, gonvml.Return) {
			if i < 0 || i >= len(devs) {
				return nil, gonvml.ERROR_INVALID_ARGUMENT
			}
			return devs[i], gonvml.SUCCESS
		},
	}
}
