package dcgm

import (
	"bytes"
	"context"
	"flag"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/internal/goldenfile"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/golden")

// scrapeTime is the time given to lines without a timestamp.
var scrapeTime = time.Date(2026, 11, 1, 10, 0, 0, 0, time.UTC)

func golden(samples []gpucost.Sample) []byte { return goldenfile.Samples(samples) }

func checkGolden(t *testing.T, path string, got []byte) {
	t.Helper()
	goldenfile.Check(t, path, got, *update)
}

func sampleFiles(t *testing.T) []string {
	files, err := filepath.Glob("testdata/samples/*.prom")
	if err != nil || len(files) == 0 {
		t.Fatalf("no sample files in testdata/samples: %v", err)
	}
	return files
}

// TestCollectGolden scrapes every real dcgm-exporter sample from a local HTTP server.
func TestCollectGolden(t *testing.T) {
	srv := httptest.NewServer(http.FileServer(http.Dir("testdata/samples")))
	defer srv.Close()
	for _, file := range sampleFiles(t) {
		base := filepath.Base(file)
		t.Run(base, func(t *testing.T) {
			var stats Stats
			c := &Collector{URL: srv.URL + "/" + base, Host: "fallback", Now: func() time.Time { return scrapeTime },
				OnStats: func(s Stats) { stats = s }}
			samples, err := c.Collect(context.Background())
			if err != nil {
				t.Fatalf("Collect: %v", err)
			}
			if len(samples) != 1 || stats.Skipped != 0 || len(stats.Unknown) != 0 || stats.Samples != 1 {
				t.Errorf("Collect(%s) = %d samples, stats %+v; want 1 sample, nothing skipped", base, len(samples), stats)
			}
			if want := strings.Count("\n"+readFile(t, file), "\nDCGM_"); stats.Lines != want {
				t.Errorf("Collect(%s) read %d metric lines, want %d", base, stats.Lines, want)
			}
			checkGolden(t, filepath.Join("testdata/golden", strings.TrimSuffix(base, ".prom")+".json"), golden(samples))

			// A second scrape reuses the parsed label sets and gives the same.
			again, err := c.Collect(context.Background())
			if err != nil || !bytes.Equal(golden(again), golden(samples)) {
				t.Errorf("second Collect(%s) = %s, %v; want the same as the first", base, golden(again), err)
			}
		})
	}
}

func readFile(t *testing.T, path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// readAll reads text with Read and returns its samples.
func readAll(t *testing.T, text string, opt ReadOptions) ([]gpucost.Sample, Stats, error) {
	t.Helper()
	var samples []gpucost.Sample
	stats, err := Read(strings.NewReader(text), "test.prom", opt, func(s gpucost.Sample) { samples = append(samples, s) })
	return samples, stats, err
}

// TestReadSamples checks the readings of a real T4 scrape against the file.
func TestReadSamples(t *testing.T) {
	samples, stats, err := readAll(t, readFile(t, "testdata/samples/ericsson-ccd_T4.prom"), ReadOptions{At: scrapeTime})
	if err != nil || len(samples) != 1 {
		t.Fatalf("Read = %d samples, %v; want 1", len(samples), err)
	}
	s := samples[0]
	want := gpucost.GPU{UUID: "GPU-6d5c0ac5-74d7-3130-46f1-e93ed57f469a", Host: "cp-bm14r7", Model: "Tesla T4", Index: 0}
	if s.GPU != want {
		t.Errorf("GPU = %+v, want %+v", s.GPU, want)
	}
	for _, c := range []struct {
		name      string
		got, want float64
	}{
		{"Util", s.Util, 91}, {"MemUsedMiB", s.MemUsedMiB, 5120}, {"MemTotalMiB", s.MemTotalMiB, 5120 + 9791 + 447},
		{"PowerW", s.PowerW, 68.244}, {"TempC", s.TempC, 74}, {"GrEngineActive", s.GrEngineActive, 0.156205},
	} {
		if c.got != c.want {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}
	if !gpucost.IsAbsent(s.SMActive) || !gpucost.IsAbsent(s.SMOccupancy) || s.Labels != nil || !s.Time.Equal(scrapeTime) {
		t.Errorf("sample = %+v; want SM readings absent, no labels, time %v", s, scrapeTime)
	}
	if stats.Lines != 20 || stats.Samples != 1 || stats.Skipped != 0 {
		t.Errorf("stats = %+v, want 20 lines, 1 sample", stats)
	}
}

func TestReadAbsentReadingsAreNaN(t *testing.T) {
	text := `DCGM_FI_DEV_GPU_UTIL{gpu="1",UUID="GPU-x",Hostname="h"} 5 1700000000000` + "\n"
	samples, _, err := readAll(t, text, ReadOptions{})
	if err != nil || len(samples) != 1 {
		t.Fatalf("Read = %v, %v", samples, err)
	}
	s := samples[0]
	for name, v := range map[string]float64{"MemUsedMiB": s.MemUsedMiB, "MemTotalMiB": s.MemTotalMiB,
		"PowerW": s.PowerW, "TempC": s.TempC, "SMActive": s.SMActive} {
		if !math.IsNaN(v) {
			t.Errorf("%s = %v, want NaN (absent)", name, v)
		}
	}
	if s.Util != 5 || !s.Time.Equal(time.UnixMilli(1700000000000)) || s.GPU.Index != 1 {
		t.Errorf("sample = %+v", s)
	}
}

// endless is an io.Reader of n scrapes of a real 8-GPU host with timestamps, made as it is read.
type endless struct {
	scrape []byte // one scrape, with a timestamp placeholder
	n, k   int
	buf    []byte
}

func (e *endless) Read(p []byte) (int, error) {
	for len(e.buf) == 0 {
		if e.k == e.n {
			return 0, io.EOF
		}
		ts := strconv.FormatInt(1_790_000_000_000+int64(e.k)*1000, 10)
		e.buf = bytes.ReplaceAll(e.scrape, []byte("TS"), []byte(ts))
		e.k++
	}
	n := copy(p, e.buf)
	e.buf = e.buf[n:]
	return n, nil
}

// TestReadBoundedMemory reads a 40 MB recording without holding it: the heap stays small.
func TestReadBoundedMemory(t *testing.T) {
	one, _ := recording(t, 8, 1)
	r := &endless{scrape: bytes.ReplaceAll(one, []byte(" 1790000000000\n"), []byte(" TS\n")), n: 1000}
	var peak uint64
	var ms runtime.MemStats
	samples := 0
	st, err := Read(r, "big.prom", ReadOptions{}, func(gpucost.Sample) {
		if samples++; samples%2000 == 0 {
			runtime.ReadMemStats(&ms)
			peak = max(peak, ms.HeapInuse)
		}
	})
	if err != nil || samples != 8000 || st.Lines != 184_000 {
		t.Fatalf("Read = %d samples, %+v, %v", samples, st, err)
	}
	t.Logf("peak heap in use %.1f MiB reading %d MB", float64(peak)/(1<<20), 1000*len(one)>>20)
	if peak > 32<<20 {
		t.Errorf("heap in use reached %d MiB reading %d MB", peak>>20, 1000*len(one)>>20)
	}
}

// TestSamplesAreTheDataset checks that testdata/samples holds every dcgm-exporter sample of the
// shared datasets, unchanged, so the golden tests cover them all.
func TestSamplesAreTheDataset(t *testing.T) {
	shared, _ := filepath.Glob("../../../shared/datasets/dcgm/samples/*.prom")
	if len(shared) == 0 {
		t.Skip("../../../shared/datasets/dcgm/samples is absent: the checkout has no shared datasets beside it")
	}
	for _, file := range shared {
		want, _ := os.ReadFile(file)
		got, err := os.ReadFile(filepath.Join("testdata/samples", filepath.Base(file)))
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("testdata/samples/%s is missing or differs from %s: copy it and run go test -run TestCollectGolden -update", filepath.Base(file), file)
		}
	}
}
