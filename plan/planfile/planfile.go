// Package planfile reads the files the planners take — hourly usage, MIG workload lists,
// batch latency profiles and arrival traces — into plan's and traffic's values, so that plan
// stays pure. Errors are gpucost.EInvalid errors that name the flag that gave the file, the
// file, and the line and column where one applies.
package planfile

import (
	"fmt"
	"math"
	"os"
	"strings"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/internal/csvin"
	"github.com/gpucost/gpucost/plan"
	"github.com/gpucost/gpucost/traffic"
)

// ReadUsage reads the usage column of an hourly usage file (plan commit --usage): one row per
// hour, in units per hour.
func ReadUsage(name string) ([]float64, error) {
	c, err := csvin.Open("--usage", name, "usage")
	if err != nil {
		return nil, err
	}
	var out []float64
	err = c.Each(func(rec []string) error {
		v, err := c.Number(rec, "usage")
		out = append(out, v)
		return err
	})
	return out, err
}

// ReadMIGWorkloads reads a workloads file (plan mig --workloads) with name, memory_gb and
// compute_share columns; no file named is an error that says what to give.
func ReadMIGWorkloads(name string) ([]plan.MIGWorkload, error) {
	if name == "" {
		return nil, gpucost.Errorf(gpucost.EInvalid, "--workloads FILE.csv is required: name, memory_gb, compute_share")
	}
	c, err := csvin.Open("--workloads", name, "name", "memory_gb", "compute_share")
	if err != nil {
		return nil, err
	}
	var out []plan.MIGWorkload
	err = c.Each(func(rec []string) error {
		w := plan.MIGWorkload{Name: c.Get(rec, "name")}
		if w.MemoryGB, err = c.Number(rec, "memory_gb"); err != nil {
			return err
		}
		if w.ComputeShare, err = c.Number(rec, "compute_share"); err != nil {
			return err
		}
		out = append(out, w)
		return nil
	})
	return out, err
}

// ReadLatencyProfile reads a batch latency profile (--batch-profile): batch_size and
// latency_ms, latency_us or latency_s.
func ReadLatencyProfile(name string) (plan.LatencyProfile, error) {
	data, err := os.ReadFile(name)
	if err != nil {
		return plan.LatencyProfile{}, gpucost.Errorf(gpucost.EInvalid, "--batch-profile: %w", err)
	}
	p, err := plan.ParseLatencyProfile(data)
	if err != nil {
		return p, fmt.Errorf("--batch-profile %s: %w", name, err)
	}
	return p, nil
}

// TraceOptions are how plan autoscale and plan capacity read --trace, as written on the command line.
type TraceOptions struct {
	Gaps  string // auto, error or zero
	Step  string // a duration, or "" for the rows' spacing (rates, samples) or 1m (a request log)
	Sort  bool   // accept an unsorted request log
	Shape string // --trace-shape: requests, rates, samples, or "" to tell from the file
}

// ReadTrace reads an arrival trace file (--trace): a request log is binned into o.Step, by the
// minute when none is given; a rate file keeps its rows' spacing; per-source samples are
// summed at their scrape interval. A file whose shape is ambiguous is an error that shows it.
func ReadTrace(name string, o TraceOptions) (*traffic.Trace, error) {
	if name == "" {
		return nil, gpucost.Errorf(gpucost.EInvalid, "--trace FILE is required: a CSV of request timestamps, of timestamp,rate, or of timestamp,source,value")
	}
	gaps, err := traffic.ParseGapPolicy(o.Gaps)
	if err != nil {
		return nil, gpucost.Errorf(gpucost.EInvalid, "--gaps: %w", err)
	}
	shape, err := traffic.ParseFormat(o.Shape)
	if err != nil {
		return nil, gpucost.Errorf(gpucost.EInvalid, "--trace-shape: %w", err)
	}
	to := traffic.Options{Gaps: gaps, Sort: o.Sort, Format: shape}
	if o.Step != "" {
		if to.Step, err = time.ParseDuration(o.Step); err != nil || to.Step <= 0 {
			return nil, gpucost.Errorf(gpucost.EInvalid, "--step %q: give an interval such as 1s or 1m", o.Step)
		}
	}
	f, err := os.Open(name)
	if err != nil {
		return nil, gpucost.Errorf(gpucost.EInvalid, "--trace: %w", err)
	}
	defer f.Close()
	if to.Format == "" {
		if to.Format, err = traffic.Detect(f); err != nil {
			return nil, gpucost.Errorf(gpucost.EInvalid, "--trace %s: %w", name, err)
		}
		if _, err := f.Seek(0, 0); err != nil {
			return nil, fmt.Errorf("read trace %s: %w", name, err)
		}
	}
	if to.Step == 0 && to.Format == traffic.Timestamps {
		to.Step = time.Minute
	}
	return traffic.Read(f, name, to)
}

// ReadSharePods reads a pod list (plan share --workloads) in openb's format: name, num_gpu,
// gpu_milli (thousandths of one GPU for a fractional request) and, optionally, gpu_spec,
// gpu_memory_mib (see ReadSharePodsFor) and creation_time and deletion_time in seconds.
func ReadSharePods(name string) ([]plan.SharePod, error) { return ReadSharePodsFor(name, 0) }

// ReadSharePodsFor is ReadSharePods for GPUs of memMiB each (0: not known). A pod's
// gpu_memory_mib is the GPU memory it needs on each GPU it takes: required of a fraction where
// the column is present (0 for none), at most memMiB where that is known. openb's memory_mib is
// host memory, not GPU memory; a column named like GPU memory in another unit is refused rather
// than left unread.
func ReadSharePodsFor(name string, memMiB int) ([]plan.SharePod, error) {
	c, err := csvin.Open("--workloads", name, "name", "num_gpu", "gpu_milli")
	if err != nil {
		return nil, err
	}
	if err := gpuMemoryColumn(c, name); err != nil {
		return nil, err
	}
	timed := c.Has("creation_time") && c.Has("deletion_time")
	var out []plan.SharePod
	err = c.Each(func(rec []string) error {
		p := plan.SharePod{Name: c.Get(rec, "name")}
		n, err := c.Number(rec, "num_gpu")
		if err != nil {
			return err
		}
		m, err := c.Number(rec, "gpu_milli")
		if err != nil {
			return err
		}
		if n != float64(int(n)) || n < 0 || m != float64(int(m)) || m < 0 || m > 1000 {
			return c.Errorf("num_gpu", "%v GPUs of %v thousandths: give whole GPUs and 0–1000 thousandths", n, m)
		}
		p.GPUs, p.Milli = int(n), int(m)
		if p.GPUs > 1 && p.Milli == 0 {
			p.Milli = 1000
		}
		if c.Has("gpu_spec") {
			p.Types = strings.TrimSpace(c.Get(rec, "gpu_spec"))
		}
		if p.MemoryMiB, err = gpuMemory(c, rec, p, memMiB); err != nil {
			return err
		}
		if timed {
			s, err := c.Number(rec, "creation_time")
			if err != nil {
				return err
			}
			e, err := c.Number(rec, "deletion_time")
			if err != nil {
				return err
			}
			p.Start, p.End = int64(s), int64(e)
		}
		out = append(out, p)
		return nil
	})
	return out, err
}

// gpuMemoryColumn refuses a column that looks like GPU memory but is not gpu_memory_mib, such
// as gpu_mem_gib: its figures would be left out of the plan.
func gpuMemoryColumn(c *csvin.File, name string) error {
	for _, h := range c.Header() {
		col := strings.ToLower(strings.TrimSpace(strings.TrimPrefix(h, "\ufeff")))
		if col != "gpu_memory_mib" && (strings.HasPrefix(col, "gpu_mem") || strings.HasPrefix(col, "gpumem")) {
			return gpucost.Errorf(gpucost.EInvalid, "--workloads %s: line 1: column %s: plan share reads GPU memory as gpu_memory_mib, MiB per GPU; rename the column, converting its figures to MiB", name, h)
		}
	}
	return nil
}

// gpuMemory reads pod p's gpu_memory_mib, rounded up to whole MiB: 0 where the file has no such
// column or a pod of no GPU or whole GPUs leaves it empty.
func gpuMemory(c *csvin.File, rec []string, p plan.SharePod, memMiB int) (int, error) {
	const col = "gpu_memory_mib"
	fraction := p.GPUs == 1 && p.Milli > 0 && p.Milli < 1000
	if !c.Has(col) || c.Get(rec, col) == "" && !fraction {
		return 0, nil
	}
	if c.Get(rec, col) == "" {
		return 0, c.Errorf(col, "pod %q takes %d thousandths of a GPU but gives no GPU memory: give the MiB it needs (0 for none)", p.Name, p.Milli)
	}
	v, err := c.Number(rec, col)
	if err != nil {
		return 0, err
	}
	if v > 1<<40 {
		return 0, c.Errorf(col, "pod %q: %s %v MiB is more than any GPU holds: give MiB per GPU, such as 20480", p.Name, col, v)
	}
	m := int(math.Ceil(v))
	if memMiB > 0 && m > memMiB && p.GPUs > 0 {
		return 0, c.Errorf(col, "pod %q needs %d MiB of GPU memory on each GPU, more than one GPU holds (%d MiB, from --gpu or --gpu-memory-gib): give a GPU with more memory, or split the pod", p.Name, m, memMiB)
	}
	return m, nil
}

// ReadTokenProfile reads measured requests (--token-profile): input_tokens, output_tokens and
// latency_ms (or latency_s) per request.
func ReadTokenProfile(name string) ([]plan.TokenPoint, error) {
	c, err := csvin.Open("--token-profile", name, "input_tokens", "output_tokens")
	if err != nil {
		return nil, err
	}
	col, unit := "latency_ms", time.Millisecond
	if !c.Has(col) {
		col, unit = "latency_s", time.Second
	}
	if !c.Has(col) {
		return nil, gpucost.Errorf(gpucost.EInvalid, "--token-profile %s: the header needs latency_ms or latency_s beside input_tokens and output_tokens", name)
	}
	var out []plan.TokenPoint
	err = c.Each(func(rec []string) error {
		var p plan.TokenPoint
		var err error
		if p.Input, err = c.Number(rec, "input_tokens"); err != nil {
			return err
		}
		if p.Output, err = c.Number(rec, "output_tokens"); err != nil {
			return err
		}
		l, err := c.Number(rec, col)
		if err != nil {
			return err
		}
		p.Latency = time.Duration(l * float64(unit))
		out = append(out, p)
		return nil
	})
	return out, err
}
