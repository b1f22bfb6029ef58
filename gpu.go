package gpucost

import (
	"context"
	"math"
	"math/bits"
	"slices"
	"strconv"
	"strings"
	"time"
)

// GPU identifies one physical GPU or one MIG instance on a host.
type GPU struct {
	UUID  string `json:"uuid"` // "GPU-…" for a whole GPU, "MIG-…" (or the parent UUID plus Instance) for a MIG instance
	Host  string `json:"host"`
	Model string `json:"model"` // as the driver names it, e.g. "NVIDIA A100-SXM4-80GB"; see catalog.Normalize
	Index int    `json:"index"` // the driver's device index on the host, -1 when unknown

	// For a MIG instance: the parent GPU's UUID and the profile name, such as "1g.10gb".
	Parent  string `json:"parent"`
	Profile string `json:"profile"`
}

// Labels attribute a GPU's use to its users: pod, namespace, container, job and any other
// key a source reports. Keys are lower-case.
type Labels map[string]string

// Well-known label keys.
const (
	LabelPod       = "pod"
	LabelNamespace = "namespace"
	LabelContainer = "container"
	LabelJob       = "job"

	// LabelGPUShare marks a series that is one workload's share of a GPU it time-slices with
	// others: value GPUShareSM says its Util is the percent of the GPU's time that workload's
	// kernels ran, from per-process samples (docs/architecture.md "Time-sliced GPUs:
	// per-process samples").
	LabelGPUShare = "gpu_share"
	GPUShareSM    = "sm"
)

// String returns the labels in a canonical form, "k1=v1,k2=v2" with keys sorted; two label sets
// are equal if and only if their strings are.
func (l Labels) String() string {
	if len(l) == 0 {
		return ""
	}
	keys := make([]string, 0, len(l))
	for k := range l {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var b strings.Builder
	for i, k := range keys {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(k)
		b.WriteByte('=')
		b.WriteString(l[k])
	}
	return b.String()
}

// ParseLabels is the inverse of Labels.String.
func ParseLabels(s string) Labels {
	if s == "" {
		return nil
	}
	l := Labels{}
	for kv := range strings.SplitSeq(s, ",") {
		k, v, _ := strings.Cut(kv, "=")
		l[k] = v
	}
	return l
}

// Sample is one reading of one GPU at one instant. A field the source did not report is NaN
// (see Absent); collectors never put negative or NaN readings in a field they did report.
type Sample struct {
	Time time.Time
	GPU  GPU

	Util        float64 // GPU utilisation, percent of time a kernel ran, 0–100
	MemUsedMiB  float64 // framebuffer memory in use
	MemTotalMiB float64 // framebuffer memory in all
	PowerW      float64 // power draw
	TempC       float64 // GPU temperature

	// Profiling metrics (DCGM_FI_PROF_*), fractions 0–1; NaN where the source has none.
	SMActive       float64
	SMOccupancy    float64
	GrEngineActive float64

	Labels Labels
}

// Absent marks a reading the source did not report.
var Absent = math.NaN()

// IsAbsent reports whether a reading is absent.
func IsAbsent(v float64) bool { return v != v }

// NewSample returns a sample of g at t with every reading absent.
func NewSample(t time.Time, g GPU) Sample {
	return Sample{Time: t, GPU: g, Util: Absent, MemUsedMiB: Absent, MemTotalMiB: Absent,
		PowerW: Absent, TempC: Absent, SMActive: Absent, SMOccupancy: Absent, GrEngineActive: Absent}
}

// Series is a GPU together with the labels it carried: the unit that rollups are kept for.
// When a GPU moves from one pod to another, its samples fall into a new series.
type Series struct {
	GPU    GPU    `json:"gpu"`
	Labels Labels `json:"labels"`
}

// Key returns a string that identifies the series: equal series have equal keys.
func (s Series) Key() string {
	return s.GPU.Host + "\x00" + s.GPU.UUID + "\x00" + s.Labels.String()
}

// Rollup aggregates a series' samples over one minute or one hour. Sums rather than means are
// kept, so two rollups of disjoint samples merge exactly (see MergeRollups). Coverage records which
// sub-slots (seconds of a minute, minutes of an hour) held samples, which is how a re-import of
// the same samples is recognised and not counted twice.
type Rollup struct {
	Series *Series       // shared by all rollups of the series
	Start  time.Time     // the start of the minute or hour, UTC
	Width  time.Duration // time.Minute or time.Hour

	Samples  int    // number of samples
	Coverage uint64 // bit i: sub-slot i (second or minute) holds a sample

	UtilSum, UtilMax float64
	UtilP50, UtilP95 float64 // over the rollup's samples

	MemMaxMiB, MemP95MiB, MemTotalMiB float64

	PowerSamples       int
	PowerSum, PowerMax float64
	TempMaxC           float64 // NaN if no sample had a temperature

	ProfSamples                                    int // samples that carried profiling metrics
	SMActiveSum, SMOccupancySum, GrEngineActiveSum float64

	// IdleMinutes counts the minutes whose mean utilisation was below the store's idle threshold;
	// for an hour, IdleMask has bit i set when minute i was idle. For a minute rollup IdleMask
	// is 1 when the minute was idle.
	IdleMinutes int
	IdleMask    uint64

	// UtilHist counts an hour rollup's samples per whole percent of utilisation (101 bins, 0–100),
	// so hourly and group quantiles merge exactly; nil for minute rollups.
	UtilHist []uint32
}

// UtilMean returns the mean utilisation, NaN with no samples.
func (r *Rollup) UtilMean() float64 { return ratio(r.UtilSum, r.Samples) }

// PowerMean returns the mean power draw, NaN with no power samples.
func (r *Rollup) PowerMean() float64 { return ratio(r.PowerSum, r.PowerSamples) }

// SMActiveMean returns the mean SM activity (0–1), NaN without profiling samples.
func (r *Rollup) SMActiveMean() float64 { return ratio(r.SMActiveSum, r.ProfSamples) }

// SMOccupancyMean returns the mean SM occupancy (0–1), NaN without profiling samples.
func (r *Rollup) SMOccupancyMean() float64 { return ratio(r.SMOccupancySum, r.ProfSamples) }

// GPUHours returns the GPU time the rollup covers, in hours: the minutes that held samples.
func (r *Rollup) GPUHours() float64 {
	if r.Width != time.Hour {
		return float64(min(r.Samples, 1)) / 60
	}
	return float64(bits.OnesCount64(r.Coverage)) / 60
}

func ratio(sum float64, n int) float64 {
	if n == 0 {
		return math.NaN()
	}
	return sum / float64(n)
}

// Collector reads the current sample of every GPU a source sees.
type Collector interface {
	Collect(ctx context.Context) ([]Sample, error)
}

// Skip is an input record that was left out, with where it was and why.
type Skip struct {
	File   string
	Line   int
	Field  string // the column or metric, if one is to blame
	Reason string
}

func (s Skip) String() string {
	out := s.File
	if s.Line > 0 {
		out += ":" + strconv.Itoa(s.Line)
	}
	if s.Field != "" {
		out += ": " + s.Field
	}
	return out + ": " + s.Reason
}

// GPUsSeen is the set of GPUs in one reading of a source: UUID → device index.
type GPUsSeen map[string]int

// SeenIn returns the GPUs that samples hold.
func SeenIn(samples []Sample) GPUsSeen {
	g := make(GPUsSeen, len(samples))
	for _, s := range samples {
		g[s.GPU.UUID] = s.GPU.Index
	}
	return g
}

// Missing returns the UUIDs of g's GPUs that now lacks, sorted: the GPUs that vanished between
// two readings, or, the other way round, the ones that appeared.
func (g GPUsSeen) Missing(now GPUsSeen) []string {
	var out []string
	for uuid := range g {
		if _, ok := now[uuid]; !ok {
			out = append(out, uuid)
		}
	}
	slices.Sort(out)
	return out
}
