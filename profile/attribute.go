package profile

import (
	"cmp"
	"context"
	"math"
	"slices"
	"strconv"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/telemetry/workload"
)

// What a Result's figures are of (Result.Attribution).
const (
	// AttrProcess: utilisation is the command's process tree's share of SM time and VRAM its
	// processes' memory, from NVML's per-process samples.
	AttrProcess = "process"
	// AttrInstance: the command runs on MIG instances, for which NVML samples no utilisation;
	// VRAM is its processes' memory on them.
	AttrInstance = "instance"
	// AttrDevice: the figures are the whole GPUs', whoever used them.
	AttrDevice = "device"
)

// The notes a Result gives when its figures are not the command's own.
const (
	noteSource = "the source cannot attribute utilisation to processes: utilisation and VRAM are the whole GPU's; another process may be using it"
	noteNoProc = "NVML gave no per-process utilisation samples for the command's GPUs: utilisation is the whole GPU's; another process may be using it"
	noteNoTree = "none of the command's processes showed in NVML's process list (a process in another PID namespace?): the figures are every GPU's"
	noteMIG    = "NVML samples no utilisation on a MIG instance: VRAM is the command's processes' own on its instance, utilisation unknown"
)

// Other is another process on one of the command's GPUs.
type Other struct {
	GPU         string   `json:"gpu"`
	PID         int      `json:"pid"`
	PodUID      string   `json:"pod_uid,omitempty"`
	ContainerID string   `json:"container_id,omitempty"`
	Job         string   `json:"job,omitempty"`
	SMMean      *float64 `json:"sm_mean,omitempty"`       // its mean share of SM time, percent; nil where not sampled
	VRAMPeakMiB float64  `json:"vram_peak_mib,omitempty"` // the most GPU memory it held
}

// attribution keeps what a run's readings say about whose its GPUs' use was.
type attribution struct {
	read     bool   // the readings came with per-process samples (Profiler.Read)
	procRoot string // where to read other processes' workloads

	devUtil, devMem []float64 // the whole GPUs' readings
	unattributed    []float64 // device utilisation of readings without per-process samples
	unattributedN   int
	instances       bool         // some of the command's GPUs are MIG instances
	memDevice       bool         // some VRAM readings are the device's: no process memory
	before          *accumulator // every GPU, in readings before the command showed on one
	others          map[otherKey]*otherAcc
}

type otherKey struct {
	gpu string
	pid int
}

type otherAcc struct {
	Other
	smSum float64
	smN   int
}

// device keeps a reading of the whole GPU.
func (a *attribution) device(s gpucost.Sample) {
	if !gpucost.IsAbsent(s.Util) {
		a.devUtil = append(a.devUtil, s.Util)
	}
	if !gpucost.IsAbsent(s.MemUsedMiB) {
		a.devMem = append(a.devMem, s.MemUsedMiB)
	}
}

// other counts a reading of another process on one of the command's GPUs; sampled says the
// reading had per-process samples, so that a process without one ran no kernel.
func (a *attribution) other(p Proc, sampled bool) {
	k := otherKey{p.GPU, p.PID}
	o := a.others[k]
	if o == nil {
		if a.others == nil {
			a.others = map[otherKey]*otherAcc{}
		}
		w := workload.Of(a.procRoot, p.PID)
		o = &otherAcc{Other: Other{GPU: p.GPU, PID: p.PID, PodUID: w.PodUID, ContainerID: w.ContainerID, Job: w.Job}}
		a.others[k] = o
	}
	if sampled {
		if !gpucost.IsAbsent(p.SMUtil) {
			o.smSum += p.SMUtil
		}
		o.smN++
	}
	if !gpucost.IsAbsent(p.UsedMiB) {
		o.VRAMPeakMiB = max(o.VRAMPeakMiB, p.UsedMiB)
	}
}

// sampleProcs takes one reading of the GPUs and their processes, and keeps the command's share
// of the GPUs its process tree uses.
func (p *Profiler) sampleProcs(ctx context.Context, pid int, acc *accumulator, res *Result) {
	samples, procs, err := p.Read(ctx)
	if err != nil {
		res.SourceErr = err.Error()
		return
	}
	acc.read, acc.procRoot = true, p.procRoot()
	tree := descendants(acc.procRoot, pid)
	byGPU := map[string][]Proc{}
	mine := map[string]bool{}
	for _, pr := range procs {
		byGPU[pr.GPU] = append(byGPU[pr.GPU], pr)
		mine[pr.GPU] = mine[pr.GPU] || tree[pr.PID]
	}
	seen := false
	for _, s := range samples {
		if mine[s.GPU.UUID] {
			acc.attribute(s, byGPU[s.GPU.UUID], tree)
			seen = true
		}
	}
	if !seen { // the command has no GPU process yet, or NVML shows it under another PID
		if acc.before == nil {
			acc.before = &accumulator{}
		}
		for _, s := range samples {
			acc.before.add(s)
			acc.before.device(s)
		}
	}
}

// attribute keeps one reading of a GPU the command uses: its processes' share of SM time and
// their memory, and the other processes on it.
func (a *accumulator) attribute(s gpucost.Sample, procs []Proc, tree map[int]bool) {
	a.addGPU(s)
	a.device(s)
	a.instances = a.instances || s.GPU.Parent != ""
	sampled := slices.ContainsFunc(procs, func(p Proc) bool { return !gpucost.IsAbsent(p.SMUtil) })
	own, mem, memKnown := 0.0, 0.0, false
	for _, p := range procs {
		if !tree[p.PID] {
			a.other(p, sampled)
			continue
		}
		if !gpucost.IsAbsent(p.SMUtil) {
			own += p.SMUtil
		}
		if !gpucost.IsAbsent(p.UsedMiB) {
			mem += p.UsedMiB
			memKnown = true
		}
	}
	switch {
	case sampled:
		a.util = append(a.util, min(own, 100))
	case !gpucost.IsAbsent(s.Util):
		a.unattributed = append(a.unattributed, s.Util)
		a.unattributedN++
	default:
		a.unattributedN++
	}
	switch {
	case memKnown:
		a.mem = append(a.mem, mem)
	case !gpucost.IsAbsent(s.MemUsedMiB):
		a.mem = append(a.mem, s.MemUsedMiB)
		a.memDevice = true
	}
}

// attributeResult sets r's attribution, its whole-GPU figures and the other processes, and
// returns the accumulator whose readings are r's figures: a itself, or the readings of every GPU
// when the command never showed on one.
func (a *accumulator) attributeResult(r *Result) *accumulator {
	if a.read && len(a.gpus) == 0 && a.before != nil {
		r.AllGPUs = true
		r.Attribution, r.AttributionNote = AttrDevice, noteNoTree
		b := a.before
		r.GPUUtilMean, r.GPUMemPeakMiB = round1(mean(b.devUtil)), quantile(b.devMem, 1)
		return b
	}
	r.Attribution = AttrDevice
	switch {
	case !a.read:
		r.AttributionNote = noteSource
	case len(a.util) > 0:
		r.Attribution = AttrProcess
		if a.unattributedN > 0 {
			r.AttributionNote = strconv.Itoa(a.unattributedN) + " readings without per-process samples were left out of utilisation"
		}
	case a.instances:
		r.Attribution, r.AttributionNote = AttrInstance, noteMIG
	default:
		a.util = a.unattributed
		r.AttributionNote = noteNoProc
	}
	if a.memDevice && r.Attribution != AttrDevice {
		r.AttributionNote = joinNotes(r.AttributionNote, "NVML gave no process memory in some readings: VRAM there is the whole GPU's")
	}
	r.GPUUtilMean, r.GPUMemPeakMiB = round1(mean(a.devUtil)), quantile(a.devMem, 1)
	r.Others = a.otherList()
	return a
}

// otherList returns the other processes, busiest first.
func (a *attribution) otherList() []Other {
	out := make([]Other, 0, len(a.others))
	for _, o := range a.others {
		v := o.Other
		if o.smN > 0 {
			m := round1(o.smSum / float64(o.smN))
			v.SMMean = &m
		}
		out = append(out, v)
	}
	sm := func(o Other) float64 {
		if o.SMMean == nil {
			return -1
		}
		return *o.SMMean
	}
	slices.SortFunc(out, func(x, y Other) int {
		return cmp.Or(cmp.Compare(sm(y), sm(x)), cmp.Compare(x.GPU, y.GPU), cmp.Compare(x.PID, y.PID))
	})
	return out
}

func round1(v float64) float64 { return math.Round(v*10) / 10 }

func joinNotes(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}
