package main

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

const sourceHelp = `where to read GPUs: auto (NVML, else nvidia-smi), nvml, nvidia-smi,
dcgm=URL (a dcgm-exporter /metrics endpoint), prometheus=URL (a Prometheus-compatible API holding
DCGM series), or demo[:N] (the demo fleet's first N GPUs, live)`

// source is a collector and, where the source knows it, which processes use which GPU.
type source struct {
	gpucost.Collector
	name      string
	processes func(ctx context.Context) (map[string][]int, error)
	close     func() error // releases the library or the looping nvidia-smi; may be nil
}

// Close releases what the source holds.
func (s source) Close() error {
	if s.close == nil {
		return nil
	}
	return s.close()
}

// openSource builds the collector named by a --source value, to be read every interval.
func (e *env) openSource(spec string, interval time.Duration, log *slog.Logger) (source, error) {
	kind, arg, _ := strings.Cut(spec, "=")
	client := &http.Client{Timeout: 10 * time.Second}
	host, _ := os.Hostname()
	switch kind {
	case "auto":
		c, err := nvml.New()
		if err == nil {
			return source{Collector: c, name: "nvml", processes: c.PIDs, close: c.Close}, nil
		}
		log.Warn("using nvidia-smi", "because", err)
		return e.openSource("nvidia-smi", interval, log)
	case "nvml":
		c, err := nvml.New()
		if err != nil {
			return source{}, gpucost.Errorf(gpucost.EUnavailable, "source nvml: %w", err)
		}
		return source{Collector: c, name: "nvml", processes: c.PIDs, close: c.Close}, nil
	case "nvidia-smi":
		// One looping nvidia-smi rather than one process a sample, and its process list
		// at most every 10 s: starting nvidia-smi each second costs percents of a core.
		c := &nvidiasmi.Collector{Path: "nvidia-smi", Host: host, Loop: interval, AppsEvery: 10 * time.Second}
		if arg != "" {
			c.Path = arg
		}
		return source{Collector: c, name: "nvidia-smi", processes: c.PIDs, close: c.Close}, nil
	case "dcgm", "prometheus":
		if arg == "" {
			return source{}, gpucost.Errorf(gpucost.EInvalid, "--source %s needs a URL: %s=http://HOST:PORT", kind, kind)
		}
		if kind == "dcgm" {
			return source{Collector: &dcgm.Collector{URL: arg, Client: client, Host: host}, name: spec}, nil
		}
		return source{Collector: &promql.Collector{URL: arg, Client: client}, name: spec}, nil
	}
	if n, ok := strings.CutPrefix(spec, "demo"); ok {
		return demoSource(n, e.now)
	}
	return source{}, gpucost.Errorf(gpucost.EInvalid, "--source %q: %s", spec, sourceHelp)
}

// demoSource reads the demo fleet's first n GPUs as they would be now.
func demoSource(arg string, now func() time.Time) (source, error) {
	fleet := demo.Fleet()
	n := demo.GPUs(fleet)
	if arg != "" {
		v, err := strconv.Atoi(strings.TrimPrefix(arg, ":"))
		if err != nil || v <= 0 || !strings.HasPrefix(arg, ":") {
			return source{}, gpucost.Errorf(gpucost.EInvalid, "--source demo%s: use demo or demo:N with N a positive number of GPUs", arg)
		}
		n = min(n, v)
	}
	return source{Collector: &demo.Live{Fleet: fleet, GPUs: n, Now: now}, name: fmt.Sprintf("demo:%d", n)}, nil
}
