// Package demo builds gpucost's demo fleet: a month of realistic GPU telemetry for a platform
// like reference case R1 in docs/architecture.md — small experiments on 4×V100 instances that use one GPU,
// a 40×A100 serving pool at about 20% utilisation, notebooks idle every night and weekend,
// weekly evaluation jobs provisioned for 24 hours that work for 8, and one busy training node.
// It is deterministic: the same period gives the same samples.
package demo

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"github.com/gpucost/gpucost"
)

// Instance is one machine of the fleet.
type Instance struct {
	Host         string
	Provider     string
	Region       string
	InstanceType string
	GPUModel     string // as the driver names it
	GPUs         int
	MemTotalMiB  float64
	TDPW         float64
	Namespace    string // the Kubernetes namespace
	Pod          string
	Team         string // the owner tags of its bill lines; empty for an untagged machine
	Project      string
	Job          func(t time.Time) string // the batch job running at t, if any (the job label)
	Workload     Workload
}

// Workload says how busy a GPU is at a time: util in percent and memory in MiB, or ok false when
// the instance is not running then (it is not billed and sends no samples).
type Workload func(gpu int, t time.Time, r *rand.Rand) (util, memMiB float64, ok bool)

// Fleet returns the demo fleet's instances.
func Fleet() []Instance {
	var fleet []Instance
	add := func(n int, host, itype, model string, gpus int, memMiB, tdp float64, ns, pod, team, project string, w Workload) {
		for i := 1; i <= n; i++ {
			fleet = append(fleet, Instance{
				Host: fmt.Sprintf("%s-%02d", host, i), Provider: "aws", Region: "us-east-1",
				InstanceType: itype, GPUModel: model, GPUs: gpus, MemTotalMiB: memMiB, TDPW: tdp,
				Namespace: ns, Pod: fmt.Sprintf("%s-%02d", pod, i), Team: team, Project: project, Workload: w,
			})
		}
	}
	const a100 = "NVIDIA A100-SXM4-40GB"
	add(5, "serving-a100", "p4d.24xlarge", a100, 8, 40960, 400, "serving", "llm-server", "inference", "chat-api", serving)
	add(6, "research-v100", "p3.8xlarge", "Tesla V100-SXM2-16GB", 4, 16384, 300, "research", "experiment", "research", "experiments", experiment)
	add(1, "eval-a100", "p4d.24xlarge", a100, 8, 40960, 400, "eval", "eval-weekly", "research", "evaluation", evalJob)
	add(8, "notebook-a10g", "g5.2xlarge", "NVIDIA A10G", 1, 23028, 300, "notebooks", "jupyter", "data-science", "notebooks", notebook)
	add(1, "train-h100", "p5.48xlarge", "NVIDIA H100 80GB HBM3", 8, 81559, 700, "training", "pretrain-7b", "foundation-models", "pretrain-7b", training)
	fleet[len(fleet)-2].Team, fleet[len(fleet)-2].Project = "", "" // a notebook someone launched without tags
	for i := range fleet {
		switch fleet[i].Namespace {
		case "eval":
			fleet[i].Job = func(t time.Time) string { return "eval-" + t.Format("2006-01-02") }
		case "training":
			fleet[i].Job = func(time.Time) string { return "pretrain-7b-run3" }
		}
	}
	return fleet
}

// serving follows daily traffic: about 8% at night and 35% in the afternoon, 20% on average.
func serving(gpu int, t time.Time, r *rand.Rand) (float64, float64, bool) {
	h := float64(t.Hour()) + float64(t.Minute())/60
	day := 0.5 - 0.5*math.Cos((h-3)/24*2*math.Pi) // 0 at 03:00, 1 at 15:00
	util := 7 + 28*day + r.NormFloat64()*4
	return clamp(util), 24000 + r.Float64()*800, true
}

// experiment runs small experiments on GPU 0 of a 4-GPU machine in runs of a few hours; the
// other three GPUs are never used.
func experiment(gpu int, t time.Time, r *rand.Rand) (float64, float64, bool) {
	if gpu > 0 {
		return 0, 3, true
	}
	// Experiments keep GPU 0 busy 5 hours in every 7.
	if (t.Unix()/3600)%7 < 5 {
		return clamp(72 + r.NormFloat64()*8), 9800 + r.Float64()*400, true
	}
	return 0, 3, true
}

// evalJob runs every Monday from 00:00: the instance is held for 24 hours and works for 8.
func evalJob(gpu int, t time.Time, r *rand.Rand) (float64, float64, bool) {
	if t.Weekday() != time.Monday {
		return 0, 0, false
	}
	if t.Hour() < 8 {
		return clamp(86 + r.NormFloat64()*5), 31000 + r.Float64()*2000, true
	}
	return 0, 3, true
}

// notebook is used on weekdays from 09:00 to 18:00 UTC in bursts and idles otherwise, holding
// its kernel's memory all the while.
func notebook(gpu int, t time.Time, r *rand.Rand) (float64, float64, bool) {
	wd := t.Weekday()
	if wd != time.Saturday && wd != time.Sunday && t.Hour() >= 9 && t.Hour() < 18 && r.Float64() < 0.45 {
		return clamp(40 + r.NormFloat64()*20), 11000 + r.Float64()*3000, true
	}
	return 0, 11000, true
}

// training is a long pre-training run that keeps its GPUs busy.
func training(gpu int, t time.Time, r *rand.Rand) (float64, float64, bool) {
	return clamp(93 + r.NormFloat64()*3), 76000 + r.Float64()*2000, true
}

func clamp(u float64) float64 { return math.Round(math.Max(0, math.Min(100, u))) }

// UUID returns the stable UUID of the gpu-th GPU of an instance.
func (in Instance) UUID(gpu int) string {
	h := uint64(14695981039346656037)
	for _, c := range in.Host {
		h = (h ^ uint64(c)) * 1099511628211
	}
	h ^= uint64(gpu) * 0x9e3779b97f4a7c15
	return fmt.Sprintf("GPU-%08x-%04x-%04x-%04x-%012x", uint32(h>>32), uint16(h>>16), uint16(h),
		uint16(h>>48)^uint16(gpu), h&0xffffffffffff)
}

// Samples calls emit for every sample of every GPU in the fleet from from to to, one every step,
// in time order. Readings follow the workloads; power and temperature follow utilisation. The
// samples of one series share their Labels map: emit must not change it.
func Samples(fleet []Instance, from, to time.Time, step time.Duration, emit func(gpucost.Sample)) {
	sc := newScraper(fleet)
	var scrape []gpucost.Sample
	for t := from; t.Before(to); t = t.Add(step) {
		scrape = sc.scrape(scrape[:0], t)
		for _, s := range scrape {
			emit(s)
		}
	}
}

// scraper makes the fleet's samples one time at a time, oldest first: each instance draws its
// readings from its own random source, seeded by its place in the fleet, so the same period
// gives the same samples. It keeps each GPU's identity and labels, which do not change between
// scrapes (a job label changes with the job).
type scraper struct {
	fleet  []Instance
	rngs   []*rand.Rand
	gpus   [][]gpucost.GPU  // per instance, per GPU index
	labels []gpucost.Labels // per instance: the labels of its latest sample
	jobs   []string         // per instance with a Job: the job its labels name
}

func newScraper(fleet []Instance) *scraper {
	sc := &scraper{fleet: fleet, rngs: make([]*rand.Rand, len(fleet)), gpus: make([][]gpucost.GPU, len(fleet)),
		labels: make([]gpucost.Labels, len(fleet)), jobs: make([]string, len(fleet))}
	for i, in := range fleet {
		sc.rngs[i] = rand.New(rand.NewPCG(uint64(i)+1, 42))
		for g := range in.GPUs {
			sc.gpus[i] = append(sc.gpus[i], in.gpu(g))
		}
	}
	return sc
}

// scrape appends the samples of every running GPU of the fleet at t to buf.
func (sc *scraper) scrape(buf []gpucost.Sample, t time.Time) []gpucost.Sample {
	for i, in := range sc.fleet {
		for g := range in.GPUs {
			util, mem, ok := in.Workload(g, t, sc.rngs[i])
			if !ok {
				continue
			}
			s := gpucost.NewSample(t, sc.gpus[i][g])
			in.read(&s, util, mem)
			s.Labels = sc.labelsAt(i, t)
			buf = append(buf, s)
		}
	}
	return buf
}

// labelsAt returns the labels of instance i's samples at t, made anew only when its job changes.
func (sc *scraper) labelsAt(i int, t time.Time) gpucost.Labels {
	in := &sc.fleet[i]
	job := ""
	if in.Job != nil {
		job = in.Job(t)
	}
	if sc.labels[i] == nil || job != sc.jobs[i] {
		sc.labels[i], sc.jobs[i] = in.labels(job), job
	}
	return sc.labels[i]
}

func (in Instance) gpu(g int) gpucost.GPU {
	return gpucost.GPU{UUID: in.UUID(g), Host: in.Host, Model: in.GPUModel, Index: g}
}

// read sets the readings of s from its utilisation and memory: power and temperature follow
// utilisation.
func (in Instance) read(s *gpucost.Sample, util, mem float64) {
	s.Util = util
	s.MemUsedMiB = mem
	s.MemTotalMiB = in.MemTotalMiB
	idleW := in.TDPW * 0.15
	s.PowerW = math.Round((idleW+(in.TDPW*0.85-idleW)*util/100)*1000) / 1000
	s.TempC = math.Round(32 + 45*util/100)
}

// labels are the labels of the instance's samples while job runs ("" for none).
func (in Instance) labels(job string) gpucost.Labels {
	l := gpucost.Labels{gpucost.LabelNamespace: in.Namespace, gpucost.LabelPod: in.Pod, gpucost.LabelContainer: in.Namespace}
	if in.Job != nil {
		l[gpucost.LabelJob] = job
	}
	return l
}

func (in Instance) sample(g int, t time.Time, util, mem float64) gpucost.Sample {
	s := gpucost.NewSample(t, in.gpu(g))
	in.read(&s, util, mem)
	job := ""
	if in.Job != nil {
		job = in.Job(t)
	}
	s.Labels = in.labels(job)
	return s
}

// Live is a collector that reads the first GPUs of a fleet as they are at Now: a source for
// trying the agent without GPUs.
type Live struct {
	Fleet []Instance
	GPUs  int
	Now   func() time.Time

	rng *rand.Rand
	buf []gpucost.Sample
}

// Collect returns one sample for each of the first l.GPUs GPUs of the fleet that are running.
func (l *Live) Collect(ctx context.Context) ([]gpucost.Sample, error) {
	if l.rng == nil {
		l.rng = rand.New(rand.NewPCG(uint64(l.Now().UnixNano()), 7))
	}
	t := l.Now().Truncate(time.Second).UTC()
	l.buf = l.buf[:0]
	n := 0
	for _, in := range l.Fleet {
		for g := 0; g < in.GPUs && n < l.GPUs; g, n = g+1, n+1 {
			if util, mem, ok := in.Workload(g, t, l.rng); ok {
				l.buf = append(l.buf, in.sample(g, t, util, mem))
			}
		}
	}
	return l.buf, nil
}
