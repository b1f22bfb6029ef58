// Package profile runs a command while sampling the GPUs it uses, and sums up how well it used
// them: utilisation percentiles, VRAM peak, power, and the profiler verdict of docs/architecture.md.
// Where the source samples each process (NVML), the figures are the command's own process
// tree's, and the other processes sharing its GPUs are named; where it cannot, the result says
// that its figures are the whole GPUs' (docs/architecture.md "Time-sliced GPUs: per-process samples").
package profile

import (
	"context"
	"errors"
	"math"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/gpucost/gpucost"
)

// Profiler samples GPUs while a command runs.
type Profiler struct {
	Source   gpucost.Collector
	Interval time.Duration // default 1 s

	// Processes, if set, returns for each GPU UUID the PIDs of the processes using it, so only
	// the GPUs of the command's process tree are profiled. Without it, or when it finds none of
	// the command's processes, every GPU the source sees is profiled.
	Processes func(ctx context.Context) (map[string][]int, error)
	ProcRoot  string // where to read the process tree and other processes' workloads; default /proc

	// Read, if set, reads the GPUs and the processes on them with their utilisation in one
	// pass (NVML's per-process samples). The result is then the command's own: its processes'
	// share of SM time and their memory, with the processes sharing its GPUs in Others. Source
	// and Processes are not read.
	Read func(ctx context.Context) ([]gpucost.Sample, []Proc, error)
}

// Proc is one process's use of one GPU or MIG instance at one reading.
type Proc struct {
	GPU     string  // UUID of the GPU or MIG instance
	PID     int     //
	SMUtil  float64 // percent of the device's time its kernels ran; gpucost.Absent if unsampled
	UsedMiB float64 // GPU memory it holds; gpucost.Absent if unknown
}

// Result sums up a profiled run.
type Result struct {
	Command    []string      `json:"command"`
	ExitCode   int           `json:"exit_code"`
	Duration   time.Duration `json:"-"`
	Seconds    float64       `json:"duration_s"`
	Samples    int           `json:"samples"`
	GPUs       []string      `json:"gpus"`
	Models     []string      `json:"gpu_models"`
	AllGPUs    bool          `json:"all_gpus"` // true when the command's own GPUs could not be told apart
	SourceErr  string        `json:"source_error,omitempty"`
	UtilMean   float64       `json:"util_mean"`
	UtilP50    float64       `json:"util_p50"`
	UtilP95    float64       `json:"util_p95"`
	MemPeakMiB float64       `json:"vram_peak_mib"`
	MemP95MiB  float64       `json:"vram_p95_mib"`
	MemTotal   float64       `json:"vram_total_mib"`
	PowerMeanW float64       `json:"power_mean_w"`
	Verdict    string        `json:"verdict"`

	// Attribution says whose the utilisation and VRAM figures are: AttrProcess, AttrInstance or
	// AttrDevice; AttributionNote says why when they are not the command's own.
	Attribution     string  `json:"attribution"`
	AttributionNote string  `json:"attribution_note,omitempty"`
	GPUUtilMean     float64 `json:"gpu_util_mean"`     // the whole GPUs' mean utilisation, whoever used them
	GPUMemPeakMiB   float64 `json:"gpu_vram_peak_mib"` // the whole GPUs' VRAM peak
	Others          []Other `json:"others,omitempty"`  // other processes on the command's GPUs, busiest first
}

// Run starts cmd, samples its GPUs every Interval until it exits, and returns the summary. A
// command that fails to start is an error; one that exits non-zero is not: its code is in the
// result. SIGINT and SIGTERM received meanwhile are passed on to the command.
func (p *Profiler) Run(ctx context.Context, cmd *exec.Cmd) (Result, error) {
	interval := p.Interval
	if interval <= 0 {
		interval = time.Second
	}
	res := Result{Command: cmd.Args}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return res, gpucost.Errorf(gpucost.EInvalid, "start %s: %w", cmd.Path, err)
	}
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sigs)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()

	var acc accumulator
	tick := time.NewTicker(interval)
	defer tick.Stop()
	var waitErr error
	for running := true; running; {
		p.sample(ctx, cmd.Process.Pid, &acc, &res)
		select {
		case waitErr = <-done:
			running = false
		case s := <-sigs:
			cmd.Process.Signal(s)
		case <-tick.C:
		}
	}
	res.Duration = time.Since(start)
	res.Seconds = math.Round(res.Duration.Seconds()*1000) / 1000
	var exit *exec.ExitError
	if errors.As(waitErr, &exit) {
		res.ExitCode = exit.ExitCode()
		if ws, ok := exit.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			res.ExitCode = 128 + int(ws.Signal())
		}
	} else if waitErr != nil {
		return res, waitErr
	}
	acc.summarise(&res)
	return res, nil
}

// sample takes one reading of the command's GPUs.
func (p *Profiler) sample(ctx context.Context, pid int, acc *accumulator, res *Result) {
	if p.Read != nil {
		p.sampleProcs(ctx, pid, acc, res)
		return
	}
	samples, err := p.Source.Collect(ctx)
	if err != nil {
		res.SourceErr = err.Error()
		return
	}
	mine, others := p.gpusOf(ctx, pid)
	res.AllGPUs = mine == nil
	for _, s := range samples {
		if mine == nil || mine[s.GPU.UUID] {
			acc.add(s)
			acc.device(s)
		}
	}
	acc.procRoot = p.procRoot()
	for _, o := range others {
		acc.other(o, false)
	}
}

// gpusOf returns the GPUs that pid or its descendants use, or nil if that cannot be told, and
// the other processes on them.
func (p *Profiler) gpusOf(ctx context.Context, pid int) (map[string]bool, []Proc) {
	if p.Processes == nil {
		return nil, nil
	}
	byGPU, err := p.Processes(ctx)
	if err != nil {
		return nil, nil
	}
	tree := descendants(p.procRoot(), pid)
	mine := map[string]bool{}
	for uuid, pids := range byGPU {
		for _, q := range pids {
			if tree[q] {
				mine[uuid] = true
			}
		}
	}
	if len(mine) == 0 {
		return nil, nil
	}
	var others []Proc
	for uuid, pids := range byGPU {
		for _, q := range pids {
			if mine[uuid] && !tree[q] {
				others = append(others, Proc{GPU: uuid, PID: q, SMUtil: gpucost.Absent, UsedMiB: gpucost.Absent})
			}
		}
	}
	return mine, others
}

func (p *Profiler) procRoot() string {
	if p.ProcRoot != "" {
		return p.ProcRoot
	}
	return "/proc"
}

// descendants returns pid and every process below it, read from procRoot/*/stat.
func descendants(procRoot string, pid int) map[int]bool {
	children := map[int][]int{}
	dirs, _ := filepath.Glob(filepath.Join(procRoot, "[0-9]*", "stat"))
	for _, f := range dirs {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		parent, ok := parentPID(string(b))
		if !ok {
			continue
		}
		child, _ := strconv.Atoi(filepath.Base(filepath.Dir(f)))
		children[parent] = append(children[parent], child)
	}
	tree := map[int]bool{pid: true}
	for queue := []int{pid}; len(queue) > 0; queue = queue[1:] {
		for _, c := range children[queue[0]] {
			if !tree[c] {
				tree[c] = true
				queue = append(queue, c)
			}
		}
	}
	return tree
}

// parentPID returns the parent PID, the fourth field, of a /proc/<pid>/stat file's text.
func parentPID(stat string) (int, bool) {
	// The command name may hold spaces and parentheses: the fields start after the last ')'.
	fields := strings.Fields(stat[strings.LastIndexByte(stat, ')')+1:])
	if len(fields) < 2 {
		return 0, false
	}
	ppid, err := strconv.Atoi(fields[1])
	return ppid, err == nil
}

// accumulator keeps the readings of a run; a run has at most a few hundred thousand.
type accumulator struct {
	util, mem, power []float64
	total            float64
	gpus, models     map[string]bool
	attribution
}

func (a *accumulator) add(s gpucost.Sample) {
	a.addGPU(s)
	if !gpucost.IsAbsent(s.Util) {
		a.util = append(a.util, s.Util)
	}
	if !gpucost.IsAbsent(s.MemUsedMiB) {
		a.mem = append(a.mem, s.MemUsedMiB)
	}
}

// addGPU counts s's GPU, its memory size and power, which are the GPU's whoever uses it.
func (a *accumulator) addGPU(s gpucost.Sample) {
	if a.gpus == nil {
		a.gpus, a.models = map[string]bool{}, map[string]bool{}
	}
	a.gpus[s.GPU.UUID] = true
	a.models[s.GPU.Model] = true
	if !gpucost.IsAbsent(s.MemTotalMiB) {
		a.total = max(a.total, s.MemTotalMiB)
	}
	if !gpucost.IsAbsent(s.PowerW) {
		a.power = append(a.power, s.PowerW)
	}
}

func (a *accumulator) summarise(r *Result) {
	a = a.attributeResult(r)
	r.Samples = len(a.util)
	r.GPUs = sortedSet(a.gpus)
	r.Models = sortedSet(a.models)
	r.UtilMean, r.UtilP50, r.UtilP95 = mean(a.util), quantile(a.util, 0.50), quantile(a.util, 0.95)
	r.MemPeakMiB, r.MemP95MiB, r.MemTotal = quantile(a.mem, 1), quantile(a.mem, 0.95), a.total
	r.PowerMeanW = mean(a.power)
	r.Verdict = Verdict(r.UtilMean, len(a.util) > 0)
}

// Verdict is the profiler verdict of docs/architecture.md ("Profiler verdicts"): mean utilisation below
// 25% is overprovisioned, below 60% underutilized, else well utilized.
func Verdict(meanUtil float64, any bool) string {
	switch {
	case !any:
		return "no GPU samples"
	case meanUtil < 25:
		return "overprovisioned"
	case meanUtil < 60:
		return "underutilized"
	}
	return "well utilized"
}

func sortedSet(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

func mean(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := 0.0
	for _, x := range v {
		s += x
	}
	return s / float64(len(v))
}

// quantile returns the q-quantile of v by the nearest-rank method; q = 1 gives the maximum.
func quantile(v []float64, q float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := slices.Clone(v)
	slices.Sort(s)
	i := int(math.Ceil(q*float64(len(s)))) - 1
	return s[max(0, min(i, len(s)-1))]
}
