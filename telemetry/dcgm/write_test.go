package dcgm

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/telemetry/dcgmfields"
)

// fleet returns samples of gpus GPUs on hosts of 8 over n scrapes 10 s apart: whole GPUs with
// pods and jobs, MIG instances, and some readings absent.
func fleet(gpus, n int, seed uint64) []gpucost.Sample {
	rng := rand.New(rand.NewPCG(seed, 1))
	start := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	var out []gpucost.Sample
	for k := range n {
		t := start.Add(time.Duration(k) * 10 * time.Second)
		for i := range gpus {
			g := gpucost.GPU{UUID: fmt.Sprintf("GPU-%08x-0000-0000-0000-%012d", i, i), Host: fmt.Sprintf("node-%d", i/8),
				Model: "NVIDIA A100-SXM4-80GB", Index: i % 8}
			if i%8 == 7 {
				g.Parent, g.Profile = g.UUID, "3g.40gb"
				g.UUID = MIGUUID(g.UUID, "2")
			}
			s := gpucost.NewSample(t, g)
			s.Util = float64(rng.IntN(101))
			s.MemUsedMiB = float64(rng.IntN(81920))
			s.MemTotalMiB = 81920
			s.PowerW = float64(rng.IntN(400000)) / 1000
			s.TempC = float64(30 + rng.IntN(50))
			if i%3 != 0 {
				s.SMActive, s.SMOccupancy, s.GrEngineActive = rng.Float64(), rng.Float64(), rng.Float64()
			}
			if i%4 == 1 {
				s.Labels = gpucost.Labels{"pod": fmt.Sprintf("train-%d", i), "namespace": "ml", "container": "main",
					"job": "job \"quoted\" \\ x"}
			}
			if i%5 == 2 {
				s.Util = gpucost.Absent
			}
			out = append(out, s)
		}
	}
	return out
}

func sortSamples(s []gpucost.Sample) {
	slices.SortStableFunc(s, func(a, b gpucost.Sample) int {
		if c := a.Time.Compare(b.Time); c != 0 {
			return c
		}
		return strings.Compare(a.GPU.Host+a.GPU.UUID, b.GPU.Host+b.GPU.UUID)
	})
}

func TestWriteReadRoundTrip(t *testing.T) {
	want := fleet(24, 3, 1)
	var buf bytes.Buffer
	if err := Write(&buf, want); err != nil {
		t.Fatalf("Write: %v", err)
	}
	for _, workers := range []int{1, 3} {
		got, stats, err := readAll(t, buf.String(), ReadOptions{Workers: workers})
		if err != nil || stats.Skipped != 0 {
			t.Fatalf("Read(workers=%d) = %v, stats %+v", workers, err, stats)
		}
		sortSamples(got)
		sortSamples(want)
		if g, w := golden(got), golden(want); !bytes.Equal(g, w) {
			t.Errorf("Read(Write(samples), workers=%d) differs:\ngot  %s\nwant %s", workers, g, w)
		}
	}
	if !strings.Contains(buf.String(), `hpc_job="job \"quoted\" \\ x"`) ||
		!strings.Contains(buf.String(), `GPU_I_PROFILE="3g.40gb",GPU_I_ID="2",Hostname="node-0"`) {
		t.Errorf("Write output lacks dcgm-exporter's labels:\n%s", buf.String()[:2000])
	}
	if n := strings.Count(buf.String(), "# TYPE "+dcgmfields.MetricGPUUtil+" gauge\n"); n != 3 {
		t.Errorf("Write wrote TYPE for %s %d times, want once per scrape (3)", dcgmfields.MetricGPUUtil, n)
	}
}

// TestReadConcatenatedWrites reads recordings appended one after another.
func TestReadConcatenatedWrites(t *testing.T) {
	samples := fleet(8, 4, 2)
	var buf bytes.Buffer
	for k := range 4 {
		if err := Write(&buf, samples[k*8:(k+1)*8]); err != nil {
			t.Fatal(err)
		}
	}
	got, stats, err := readAll(t, buf.String(), ReadOptions{})
	if err != nil || len(got) != len(samples) || stats.Skipped != 0 {
		t.Fatalf("Read = %d samples, %v, %+v; want %d", len(got), err, stats, len(samples))
	}
}

func TestWriteRejects(t *testing.T) {
	ok := fleet(1, 1, 3)[0]
	for _, c := range []struct {
		name   string
		change func(s *gpucost.Sample)
		want   string
	}{
		{"no time", func(s *gpucost.Sample) { s.Time = time.Time{} }, "no time"},
		{"negative power", func(s *gpucost.Sample) { s.PowerW = -1 }, "negative value -1"},
		{"util above 100", func(s *gpucost.Sample) { s.Util = 101 }, "above 100"},
		{"MIG UUID", func(s *gpucost.Sample) { s.GPU.Parent = "GPU-p"; s.GPU.UUID = "MIG-1" }, "is not MIGUUID"},
		{"label name", func(s *gpucost.Sample) { s.Labels = gpucost.Labels{"a-b": "x"} }, `label name "a-b"`},
	} {
		s := ok
		c.change(&s)
		err := Write(&bytes.Buffer{}, []gpucost.Sample{s})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: Write = %v, want an error containing %q", c.name, err, c.want)
		}
	}
}
