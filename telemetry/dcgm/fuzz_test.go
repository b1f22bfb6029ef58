package dcgm

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/telemetry/dcgmfields"
)

// FuzzRead checks that any input is read without panicking, that no emitted reading is negative,
// NaN-but-present or out of range, that the stats add up, and that reading on several goroutines
// gives what reading on one does.
func FuzzRead(f *testing.F) {
	files, _ := filepath.Glob("testdata/samples/*.prom")
	for _, file := range files {
		b, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	var w bytes.Buffer
	if err := Write(&w, fleet(4, 2, 9)); err != nil {
		f.Fatal(err)
	}
	f.Add(w.Bytes())
	f.Add([]byte(scrapeText(" 1") + scrapeText("") + "# EOF\n"))
	f.Add([]byte(dcgmfields.MetricGPUUtil + `{gpu="0",UUID="a\"}",x="\\"} -1 2` + "\n" + dcgmfields.MetricFBUsed + "{} NaN\n{" + dcgmfields.MetricGPUTemp + `"} 3`))
	f.Add([]byte("# TYPE x histogram\nx_bucket{le=\"1\"} 2\nx_sum 3\nx_count 2\n" + dcgmfields.MetricPowerUsage + `{gpu="1"} 5` + "\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		read := func(workers int) ([]gpucost.Sample, Stats, error) {
			var out []gpucost.Sample
			st, err := Read(bytes.NewReader(data), "fuzz", ReadOptions{At: scrapeTime, Host: "h", Workers: workers},
				func(s gpucost.Sample) { out = append(out, s) })
			return out, st, err
		}
		one, st, err := read(1)
		for _, s := range one {
			for _, c := range []struct {
				v, max float64
			}{{s.Util, 100}, {s.MemUsedMiB, 0}, {s.MemTotalMiB, 0}, {s.PowerW, 0}, {s.TempC, 0},
				{s.SMActive, 1}, {s.SMOccupancy, 1}, {s.GrEngineActive, 1}} {
				if !gpucost.IsAbsent(c.v) && (c.v < 0 || (c.max > 0 && c.v > c.max) || c.v > 1e308) {
					t.Fatalf("sample %+v has an invalid reading %v", s, c.v)
				}
			}
			if s.GPU.UUID == "" {
				t.Fatalf("sample %+v has no GPU UUID", s)
			}
		}
		if st.Samples != len(one) || len(st.Skips) > MaxSkips+len(st.Unknown) || st.Skipped > st.Lines+strings.Count(string(data), "\n")+1 {
			t.Fatalf("stats %+v do not add up with %d samples", st, len(one))
		}
		two, st2, err2 := read(3)
		if (err == nil) != (err2 == nil) || !bytes.Equal(golden(one), golden(two)) || st.Skipped != st2.Skipped || st.Lines != st2.Lines {
			t.Fatalf("Read on 1 and 3 goroutines differ: %v / %v, %+v / %+v", err, err2, st, st2)
		}
	})
}
