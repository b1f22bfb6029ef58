package source

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/demo"
	"github.com/gpucost/gpucost/telemetry/dcgm"
	"github.com/gpucost/gpucost/telemetry/nvidiasmi"
	"github.com/gpucost/gpucost/telemetry/promql"
)

func TestOpen(t *testing.T) {
	all := demo.GPUs(demo.Fleet())
	tests := []struct {
		spec, name string
		check      func(t *testing.T, s Source)
	}{
		{"nvidia-smi", "nvidia-smi", func(t *testing.T, s Source) {
			c := s.Collector.(*nvidiasmi.Collector)
			if c.Path != "nvidia-smi" || c.Loop != 2*time.Second || s.Processes == nil {
				t.Errorf("nvidia-smi: path %q, loop %v, processes %v; want the PATH's nvidia-smi looping every 2s, with processes", c.Path, c.Loop, s.Processes != nil)
			}
		}},
		{"nvidia-smi=/opt/bin/nvidia-smi", "nvidia-smi", func(t *testing.T, s Source) {
			if c := s.Collector.(*nvidiasmi.Collector); c.Path != "/opt/bin/nvidia-smi" {
				t.Errorf("nvidia-smi=PATH: path %q, want /opt/bin/nvidia-smi", c.Path)
			}
		}},
		{"dcgm=http://node:9400/metrics", "dcgm=http://node:9400/metrics", func(t *testing.T, s Source) {
			if c := s.Collector.(*dcgm.Collector); c.URL != "http://node:9400/metrics" || c.Client == nil {
				t.Errorf("dcgm: URL %q, client %v", c.URL, c.Client)
			}
		}},
		{"prometheus=http://prom:9090", "prometheus=http://prom:9090", func(t *testing.T, s Source) {
			if c := s.Collector.(*promql.Collector); c.URL != "http://prom:9090" || s.Processes != nil {
				t.Errorf("prometheus: URL %q, processes %v; want no process list", c.URL, s.Processes != nil)
			}
		}},
		{"demo", "demo:" + strconv.Itoa(all), nil},
		{"demo:3", "demo:3", func(t *testing.T, s Source) {
			samples, err := s.Collect(context.Background())
			if err != nil || len(samples) != 3 {
				t.Errorf("demo:3 Collect = %d samples, %v; want 3", len(samples), err)
			}
		}},
		{"demo:100000", "demo:" + strconv.Itoa(all), nil},
	}
	now := func() time.Time { return time.Date(2026, 11, 2, 10, 0, 0, 0, time.UTC) }
	for _, tt := range tests {
		t.Run(tt.spec, func(t *testing.T) {
			s, err := Open(tt.spec, Options{Interval: 2 * time.Second, Now: now})
			if err != nil {
				t.Fatalf("Open(%q) = %v", tt.spec, err)
			}
			defer s.Close()
			if s.Name != tt.name {
				t.Errorf("Open(%q).Name = %q, want %q", tt.spec, s.Name, tt.name)
			}
			if tt.check != nil {
				tt.check(t, s)
			}
		})
	}
}

func TestOpenRefuses(t *testing.T) {
	tests := []struct{ spec, text string }{
		{"dcgm", "--source dcgm needs a URL: dcgm=http://HOST:PORT"},
		{"prometheus=", "--source prometheus needs a URL: prometheus=http://HOST:PORT"},
		{"demo:0", "--source demo:0: use demo or demo:N with N a positive number of GPUs"},
		{"demo:x", "--source demo:x: use demo or demo:N with N a positive number of GPUs"},
		{"demo8", "--source demo8: use demo or demo:N"},
		{"rocm", `--source "rocm": where to read GPUs: auto (NVML, else nvidia-smi)`},
	}
	for _, tt := range tests {
		_, err := Open(tt.spec, Options{})
		if err == nil || gpucost.ErrorCode(err) != gpucost.EInvalid || !strings.Contains(err.Error(), tt.text) {
			t.Errorf("Open(%q) = %v; want invalid with %q", tt.spec, err, tt.text)
		}
	}
}

// TestOpenAuto checks that auto gives NVML where the library loads, else nvidia-smi, and
// never an error: which one depends on the host.
func TestOpenAuto(t *testing.T) {
	s, err := Open("auto", Options{Interval: time.Second})
	if err != nil {
		t.Fatalf(`Open("auto") = %v`, err)
	}
	defer s.Close()
	if s.Name != "nvml" && s.Name != "nvidia-smi" {
		t.Errorf(`Open("auto").Name = %q, want nvml or nvidia-smi`, s.Name)
	}
}
