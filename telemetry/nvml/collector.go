//go:build cgo

package nvml

import (
	"context"
	"fmt"
	"math"
	"strings"
	"sync"
	"time"

	gonvml "github.com/NVIDIA/go-nvml/pkg/nvml"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/telemetry/workload"
)

// Collector samples the GPUs NVML sees.
type Collector struct {
	Lib      gonvml.Interface // initialised; see Open
	Host     string           // the host the GPUs are on
	ProcRoot string           // where to read processes' cgroup and environ; "" means /proc
	Now      func() time.Time
	// OnStats, if set, is called after each Collect with what it skipped and which GPUs
	// vanished, so that they can be logged.
	OnStats func(Stats)
	// MemoryV2 reads memory with nvmlDeviceGetMemoryInfo_v2, whose used memory leaves out what
	// the driver reserves for itself, as nvidia-smi's memory.used and dcgm-exporter's
	// DCGM_FI_DEV_FB_USED do (docs/telemetry.md "Memory used"). New sets it where the driver has
	// the function (R510 and later); without it, used memory includes the reservation.
	MemoryV2 bool

	mu    sync.Mutex
	last  gpucost.GPUsSeen        // the GPUs of the last Collect
	procs map[string]*deviceProcs // by device UUID: its processes' latest utilisation samples
}

var _ gpucost.Collector = (*Collector)(nil)

// New loads NVML from the NVIDIA driver and initialises it. Without the driver it returns an
// error wrapping ErrUnavailable that says so.
func New() (*Collector, error) {
	lib := gonvml.New()
	c, err := Open(lib)
	if err != nil {
		return nil, err
	}
	c.MemoryV2 = lib.Extensions().LookupSymbol("nvmlDeviceGetMemoryInfo_v2") == nil
	return c, nil
}

// Open initialises lib, the real library or a mock, and returns a Collector over it.
func Open(lib gonvml.Interface) (*Collector, error) {
	if ret := lib.Init(); ret != gonvml.SUCCESS {
		return nil, initError(ret)
	}
	return &Collector{Lib: lib}, nil
}

// initError says why NVML did not start and what happens instead.
func initError(ret gonvml.Return) error {
	var why string
	switch ret {
	case gonvml.ERROR_LIBRARY_NOT_FOUND:
		why = "libnvidia-ml.so.1 not found — no NVIDIA driver?"
	case gonvml.ERROR_DRIVER_NOT_LOADED:
		why = "the NVIDIA kernel driver is not loaded (nvidia.ko)"
	case gonvml.ERROR_NO_PERMISSION:
		why = "no permission to open the NVIDIA devices (/dev/nvidia*)"
	case gonvml.ERROR_LIB_RM_VERSION_MISMATCH:
		why = "the NVML library and the kernel driver are of different versions (reboot after a driver upgrade?)"
	default:
		why = "nvmlInit: " + ret.Error()
	}
	return gpucost.Errorf(gpucost.EUnavailable, "%w: %s", ErrUnavailable, why)
}

// Close shuts NVML down.
func (c *Collector) Close() error {
	if ret := c.Lib.Shutdown(); ret != gonvml.SUCCESS {
		return fmt.Errorf("shut NVML down: %s", ret)
	}
	return nil
}

// Collect returns one sample per GPU and one per MIG instance, each labelled with the workloads
// of the processes on it; a GPU that several workloads time-slice gives one sample per workload
// instead, each with its share of the GPU (see shareGPU). A GPU that fails (ERROR_GPU_IS_LOST) is left out and counted, and
// reported in Stats.Vanished if it was there last time.
func (c *Collector) Collect(ctx context.Context) ([]gpucost.Sample, error) {
	r, err := c.read(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]gpucost.Sample, 0, len(r.samples))
	for i, s := range r.samples {
		out = append(out, shareGPU(s, r.perGPU[i], r.workloads[i], r.sampling[i])...)
	}
	return out, nil
}

// CollectProcesses returns one sample per GPU and MIG instance, labelled with the workloads of
// the processes on it, and those compute processes (see Process), read in one pass: NVML gives
// each per-process utilisation sample once.
func (c *Collector) CollectProcesses(ctx context.Context) ([]gpucost.Sample, []Process, error) {
	r, err := c.read(ctx)
	if err != nil {
		return nil, nil, err
	}
	return r.samples, r.procs, nil
}

// read reads every device once.
func (c *Collector) read(ctx context.Context) (*read, error) {
	n, ret := c.Lib.DeviceGetCount()
	if ret != gonvml.SUCCESS {
		return nil, gpucost.Errorf(gpucost.EUnavailable, "NVML: count devices: %s", ret)
	}
	at := time.Now()
	if c.Now != nil {
		at = c.Now()
	}
	var st Stats
	r := &read{samples: make([]gpucost.Sample, 0, n), st: &st}
	for i := range n {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		c.device(i, at, r)
	}
	c.noteVanished(r.samples, &st)
	st.Samples = len(r.samples)
	if c.OnStats != nil {
		c.OnStats(st)
	}
	return r, nil
}

// read is what one read of every device gathers.
type read struct {
	samples   []gpucost.Sample
	procs     []Process
	perGPU    [][]Process           // per sample, the processes on its GPU or MIG instance
	workloads [][]workload.Workload // per sample, its processes' workloads
	sampling  []bool                // per sample, whether NVML samples its processes
	st        *Stats
}

// add appends a device's sample and its processes.
func (r *read) add(s gpucost.Sample, procs []Process, ws []workload.Workload, sampling bool) {
	s.Labels = workload.Labels(ws)
	r.samples = append(r.samples, s)
	r.procs = append(r.procs, procs...)
	r.perGPU = append(r.perGPU, procs)
	r.workloads = append(r.workloads, ws)
	r.sampling = append(r.sampling, sampling)
}

// device appends the samples and processes of device i and of its MIG instances.
func (c *Collector) device(i int, at time.Time, r *read) {
	st := r.st
	dev, ret := c.Lib.DeviceGetHandleByIndex(i)
	if ret != gonvml.SUCCESS {
		st.skip(fmt.Sprintf("GPU %d", i), "no handle: "+describe(ret)+"; GPU left out")
		return
	}
	uuid, ret := dev.GetUUID()
	if ret != gonvml.SUCCESS {
		st.skip(fmt.Sprintf("GPU %d", i), "no UUID: "+describe(ret)+"; GPU left out")
		return
	}
	name, _ := dev.GetName()
	s := gpucost.NewSample(at, gpucost.GPU{UUID: uuid, Host: c.Host, Model: name, Index: i})
	rd := readings{dev: dev, what: fmt.Sprintf("GPU %d (%s)", i, uuid), st: st, memV2: c.MemoryV2}
	rd.device(&s)
	if rd.lost {
		return
	}
	procs, sampling := c.processes(dev, uuid)
	r.add(s, procs, c.workloads(procs), sampling)
	if mode, _, ret := dev.GetMigMode(); ret == gonvml.SUCCESS && mode == gonvml.DEVICE_MIG_ENABLE {
		c.instances(dev, s.GPU, at, r)
	}
}

// instances appends a sample and the processes of each MIG instance of the GPU g: its memory
// and the workloads on it. NVML reports no utilisation, power or temperature for an instance.
func (c *Collector) instances(dev gonvml.Device, g gpucost.GPU, at time.Time, r *read) {
	st := r.st
	count, ret := dev.GetMaxMigDeviceCount()
	if ret != gonvml.SUCCESS {
		st.skip(g.UUID, "MIG instances: "+describe(ret))
		return
	}
	for j := range count {
		mig, ret := dev.GetMigDeviceHandleByIndex(j)
		if ret == gonvml.ERROR_NOT_FOUND {
			continue // no instance in this slot
		}
		if ret != gonvml.SUCCESS {
			st.skip(g.UUID, fmt.Sprintf("MIG device %d: %s; left out", j, describe(ret)))
			continue
		}
		uuid, ret := mig.GetUUID()
		if ret != gonvml.SUCCESS {
			st.skip(g.UUID, fmt.Sprintf("MIG device %d: no UUID: %s; left out", j, describe(ret)))
			continue
		}
		s := gpucost.NewSample(at, gpucost.GPU{UUID: uuid, Host: g.Host, Model: g.Model, Index: g.Index,
			Parent: g.UUID, Profile: profile(dev, mig)})
		rd := readings{dev: mig, what: "MIG " + uuid, st: st, memV2: c.MemoryV2}
		rd.memory(&s)
		if rd.lost {
			return
		}
		procs, sampling := c.processes(mig, uuid)
		r.add(s, procs, c.workloads(procs), sampling)
	}
}

// profile names a MIG instance's profile, such as "1g.10gb": NVML names a MIG device
// "NVIDIA A100-SXM4-80GB MIG 1g.10gb". Failing that it is made from the GPU instance's profile
// info, its slices and its memory rounded up to whole GiB, which can differ from NVIDIA's name.
func profile(parent, mig gonvml.Device) string {
	if name, ret := mig.GetName(); ret == gonvml.SUCCESS {
		if _, p, ok := strings.Cut(name, "MIG "); ok {
			return strings.TrimSpace(p)
		}
	}
	id, ret := mig.GetGpuInstanceId()
	if ret != gonvml.SUCCESS {
		return ""
	}
	gi, ret := parent.GetGpuInstanceById(id)
	if ret != gonvml.SUCCESS {
		return ""
	}
	info, ret := gi.GetInfo()
	if ret != gonvml.SUCCESS {
		return ""
	}
	p, ret := parent.GetGpuInstanceProfileInfo(int(info.ProfileId))
	if ret != gonvml.SUCCESS {
		return ""
	}
	return fmt.Sprintf("%dg.%dgb", p.SliceCount, int(math.Ceil(float64(p.MemorySizeMB)/1024)))
}

// workloads returns the workload of each process.
func (c *Collector) workloads(procs []Process) []workload.Workload {
	ws := make([]workload.Workload, len(procs))
	for i, p := range procs {
		ws[i] = workload.Of(c.ProcRoot, p.PID)
	}
	return ws
}

// noteVanished reports the GPUs of the last Collect that this one lacks.
func (c *Collector) noteVanished(samples []gpucost.Sample, st *Stats) {
	c.mu.Lock()
	defer c.mu.Unlock()
	now := gpucost.SeenIn(samples)
	for _, uuid := range c.last.Missing(now) {
		st.Vanished = append(st.Vanished, uuid)
		st.skip(uuid, fmt.Sprintf("GPU %d (%s) was in the last sample and is missing now: lost, fallen off the bus or removed?", c.last[uuid], uuid))
	}
	c.last = now
}
