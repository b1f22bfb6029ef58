// Package source opens the GPU source a --source value names (NVML, nvidia-smi, a
// dcgm-exporter endpoint, a Prometheus API, or the demo fleet) as a collector that gpucost
// agent and gpucost profile read on an interval (docs/architecture.md "The flow").
package source

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/demo"
	"github.com/gpucost/gpucost/telemetry/dcgm"
	"github.com/gpucost/gpucost/telemetry/nvidiasmi"
	"github.com/gpucost/gpucost/telemetry/nvml"
	"github.com/gpucost/gpucost/telemetry/promql"
)

// Help says which values Open takes, for the --source flag's help and its error.
const Help = `where to read GPUs: auto (NVML, else nvidia-smi), nvml, nvidia-smi,
dcgm=URL (a dcgm-exporter /metrics endpoint), prometheus=URL (a Prometheus-compatible API holding
DCGM series), or demo[:N] (the demo fleet's first N GPUs, live)`

// Source is a collector and, where the source knows it, which processes use which GPU.
type Source struct {
	gpucost.Collector
	Name string // what logs call it: nvml, nvidia-smi, demo:N, or the spec with its URL
	// Processes returns the PIDs using each GPU, by GPU UUID; nil where the source cannot tell.
	Processes func(ctx context.Context) (map[string][]int, error)

	close func() error // releases the library or the looping nvidia-smi; may be nil
}

// Close releases what the source holds.
func (s Source) Close() error {
	if s.close == nil {
		return nil
	}
	return s.close()
}

// Options are what Open needs besides the spec.
type Options struct {
	Interval time.Duration    // how often the source is read: nvidia-smi loops at it
	Now      func() time.Time // the demo fleet's clock; default time.Now
	Log      *slog.Logger     // says why auto fell back to nvidia-smi; default: discard
}

// Open builds the collector spec names, to be read every o.Interval. A spec it does not know,
// a URL source without its URL or a bad demo count is gpucost.EInvalid; NVML that cannot be
// loaded is gpucost.EUnavailable.
func Open(spec string, o Options) (Source, error) {
	kind, arg, _ := strings.Cut(spec, "=")
	client := &http.Client{Timeout: 10 * time.Second}
	host, _ := os.Hostname()
	switch kind {
	case "auto":
		c, err := nvml.New()
		if err == nil {
			return Source{Collector: c, Name: "nvml", Processes: c.PIDs, close: c.Close}, nil
		}
		if o.Log != nil {
			o.Log.Warn("using nvidia-smi", "because", err)
		}
		return Open("nvidia-smi", o)
	case "nvml":
		c, err := nvml.New()
		if err != nil {
			return Source{}, gpucost.Errorf(gpucost.EUnavailable, "source nvml: %w; in a container, run it with the NVIDIA container runtime, or read another source: --source nvidia-smi, dcgm=URL", err)
		}
		return Source{Collector: c, Name: "nvml", Processes: c.PIDs, close: c.Close}, nil
	case "nvidia-smi":
		// One looping nvidia-smi rather than one process a sample, and its process list
		// at most every 10 s: starting nvidia-smi each second costs percents of a core.
		c := &nvidiasmi.Collector{Path: "nvidia-smi", Host: host, Loop: o.Interval, AppsEvery: 10 * time.Second}
		if arg != "" {
			c.Path = arg
		}
		return Source{Collector: c, Name: "nvidia-smi", Processes: c.PIDs, close: c.Close}, nil
	case "dcgm", "prometheus":
		if arg == "" {
			return Source{}, gpucost.Errorf(gpucost.EInvalid, "--source %s needs a URL: %s=http://HOST:PORT", kind, kind)
		}
		if kind == "dcgm" {
			return Source{Collector: &dcgm.Collector{URL: arg, Client: client, Host: host}, Name: spec}, nil
		}
		return Source{Collector: &promql.Collector{URL: arg, Client: client}, Name: spec}, nil
	}
	if n, ok := strings.CutPrefix(spec, "demo"); ok {
		return demoSource(n, o.Now)
	}
	return Source{}, gpucost.Errorf(gpucost.EInvalid, "--source %q: %s", spec, Help)
}

// demoSource reads the demo fleet's first n GPUs as they would be now; arg is "" or ":N".
func demoSource(arg string, now func() time.Time) (Source, error) {
	if now == nil {
		now = time.Now
	}
	fleet := demo.Fleet()
	n := demo.GPUs(fleet)
	if arg != "" {
		v, err := strconv.Atoi(strings.TrimPrefix(arg, ":"))
		if err != nil || v <= 0 || !strings.HasPrefix(arg, ":") {
			return Source{}, gpucost.Errorf(gpucost.EInvalid, "--source demo%s: use demo or demo:N with N a positive number of GPUs", arg)
		}
		n = min(n, v)
	}
	return Source{Collector: &demo.Live{Fleet: fleet, GPUs: n, Now: now}, Name: fmt.Sprintf("demo:%d", n)}, nil
}
