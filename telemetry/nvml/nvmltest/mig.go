//go:build cgo

package nvmltest

import (
	gonvml "github.com/NVIDIA/go-nvml/pkg/nvml"
	"github.com/NVIDIA/go-nvml/pkg/nvml/mock"
)

// MIGInstance is a MIG instance of a synthetic GPU: made up for tests, not captured.
type MIGInstance struct {
	UUID, Profile string // "MIG-…", "3g.40gb"
	TotalMiB      uint64
	Procs         []Running
}

// MIGGPU returns a synthetic mock GPU in MIG mode with the instances. As on a real GPU in MIG
// mode, NVML gives no utilisation for the GPU or its instances, and no per-process samples.
func MIGGPU(uuid, name string, totalMiB uint64, instances ...MIGInstance) *mock.Device {
	d := migDevice(uuid, name, totalMiB, nil)
	d.GetMigModeFunc = func() (int, int, gonvml.Return) {
		return gonvml.DEVICE_MIG_ENABLE, gonvml.DEVICE_MIG_ENABLE, gonvml.SUCCESS
	}
	d.GetMaxMigDeviceCountFunc = func() (int, gonvml.Return) { return 7, gonvml.SUCCESS }
	d.GetMigDeviceHandleByIndexFunc = func(i int) (gonvml.Device, gonvml.Return) {
		if i >= len(instances) {
			return nil, gonvml.ERROR_NOT_FOUND
		}
		m := instances[i]
		return migDevice(m.UUID, name+" MIG "+m.Profile, m.TotalMiB, m.Procs), gonvml.SUCCESS
	}
	return d
}

// migDevice is a GPU in MIG mode or one of its instances, holding procs.
func migDevice(uuid, name string, totalMiB uint64, procs []Running) *mock.Device {
	return &mock.Device{
		GetUUIDFunc: func() (string, gonvml.Return) { return uuid, gonvml.SUCCESS },
		GetNameFunc: func() (string, gonvml.Return) { return name, gonvml.SUCCESS },
		GetUtilizationRatesFunc: func() (gonvml.Utilization, gonvml.Return) {
			return gonvml.Utilization{}, gonvml.ERROR_NOT_SUPPORTED
		},
		GetMemoryInfoFunc: func() (gonvml.Memory, gonvml.Return) {
			var used uint64
			for _, p := range procs {
				used += p.UsedBytes
			}
			return gonvml.Memory{Total: totalMiB << 20, Used: used, Free: totalMiB<<20 - used}, gonvml.SUCCESS
		},
		GetPowerUsageFunc:  func() (uint32, gonvml.Return) { return 0, gonvml.ERROR_NOT_SUPPORTED },
		GetTemperatureFunc: func(gonvml.TemperatureSensors) (uint32, gonvml.Return) { return 0, gonvml.ERROR_NOT_SUPPORTED },
		GetComputeRunningProcessesFunc: func() ([]gonvml.ProcessInfo, gonvml.Return) {
			out := make([]gonvml.ProcessInfo, 0, len(procs))
			for _, p := range procs {
				out = append(out, gonvml.ProcessInfo{Pid: p.PID, UsedGpuMemory: p.UsedBytes})
			}
			return out, gonvml.SUCCESS
		},
		GetProcessUtilizationFunc: func(uint64) ([]gonvml.ProcessUtilizationSample, gonvml.Return) {
			return nil, gonvml.ERROR_NOT_SUPPORTED
		},
		GetMigModeFunc: func() (int, int, gonvml.Return) { return 0, 0, gonvml.ERROR_NOT_SUPPORTED },
	}
}
