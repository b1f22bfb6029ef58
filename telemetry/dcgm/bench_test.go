package dcgm

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/internal/usage"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// recording returns n scrapes of a host with gpus GPUs made from a real dcgm-exporter scrape
// (an L40S: 23 metrics, 7 labels a line), each line with a millisecond timestamp, and its count
// of metric lines.
func recording(tb testing.TB, gpus, n int) ([]byte, int) {
	data, err := os.ReadFile("testdata/samples/upcloud_L40S.prom")
	if err != nil {
		tb.Fatal(err)
	}
	var families [][]string // HELP, TYPE, sample line
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	for i := 0; i+2 < len(lines); i += 3 {
		families = append(families, lines[i:i+3])
	}
	var b bytes.Buffer
	count := 0
	for k := range n {
		ts := fmt.Sprint(int64(1_790_000_000_000) + int64(k)*1000)
		for _, f := range families {
			b.WriteString(f[0] + "\n" + f[1] + "\n")
			for g := range gpus {
				line := strings.Replace(f[2], `gpu="0"`, fmt.Sprintf(`gpu="%d"`, g), 1)
				line = strings.Replace(line, "GPU-5b4e07f6", fmt.Sprintf("GPU-%08x", g), 1)
				b.WriteString(line + " " + ts + "\n")
				count++
			}
		}
	}
	return b.Bytes(), count
}

// BenchmarkRead measures the recording reader: metric lines (Prometheus samples) per second.
func BenchmarkRead(b *testing.B) {
	data, lines := recording(b, 8, 500)
	for _, workers := range []int{1, 2} {
		b.Run(fmt.Sprintf("workers=%d", workers), func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			samples := 0
			cpu := usage.CPU()
			for b.Loop() {
				st, err := Read(bytes.NewReader(data), "bench", ReadOptions{Workers: workers}, func(gpucost.Sample) {})
				if err != nil || st.Skipped != 0 {
					b.Fatal(err, st.Skips)
				}
				samples = st.Samples
			}
			cpu = usage.CPU() - cpu
			b.ReportMetric(float64(lines*b.N)/b.Elapsed().Seconds(), "lines/s")
			b.ReportMetric(float64(lines*b.N)/cpu.Seconds(), "lines/cpu-s")
			b.ReportMetric(float64(samples*b.N)/b.Elapsed().Seconds(), "gpusamples/s")
		})
	}
}

// BenchmarkExpfmtAlone is the baseline: expfmt over each whole scrape, labels and all, with
// nothing done with its output.
func BenchmarkExpfmtAlone(b *testing.B) {
	data, lines := recording(b, 8, 50)
	scrapes := bytes.SplitAfter(data, []byte("\n# HELP DCGM_FI_DEV_SM_CLOCK"))
	tp := expfmt.NewTextParser(model.UTF8Validation)
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		for i, s := range scrapes {
			if i > 0 {
				s = append([]byte("# HELP DCGM_FI_DEV_SM_CLOCK"), s...)
			}
			s = bytes.TrimSuffix(s, []byte("# HELP DCGM_FI_DEV_SM_CLOCK"))
			if _, err := tp.TextToMetricFamilies(bytes.NewReader(s)); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(lines*b.N)/b.Elapsed().Seconds(), "lines/s")
}

// BenchmarkCollect measures one scrape of an 8-GPU dcgm-exporter over loopback HTTP.
func BenchmarkCollect(b *testing.B) {
	data, _ := recording(b, 8, 1)
	data = bytes.ReplaceAll(data, []byte(" 1790000000000\n"), []byte("\n"))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.Write(data) }))
	defer srv.Close()
	c := &Collector{URL: srv.URL}
	for b.Loop() {
		s, err := c.Collect(context.Background())
		if err != nil || len(s) != 8 {
			b.Fatal(len(s), err)
		}
	}
}

// BenchmarkCollectParse is Collect's parsing alone, without HTTP.
func BenchmarkCollectParse(b *testing.B) {
	data, _ := recording(b, 8, 1)
	data = bytes.ReplaceAll(data, []byte(" 1790000000000\n"), []byte("\n"))
	p := newParser("")
	p.at = time.Now()
	var r bytes.Reader
	samples := make([]gpucost.Sample, 0, 8)
	for b.Loop() {
		r.Reset(data)
		samples = samples[:0]
		var st Stats
		if err := p.run(&r, 1, &st, func(s gpucost.Sample) { samples = append(samples, s) }); err != nil || len(samples) != 8 {
			b.Fatal(err)
		}
	}
}

// BenchmarkReadWritten reads what Write writes, as the demo fleet and imports do: 64 GPUs, 8
// metrics each, one scrape per timestamp.
func BenchmarkReadWritten(b *testing.B) {
	var buf bytes.Buffer
	if err := Write(&buf, fleet(64, 200, 5)); err != nil {
		b.Fatal(err)
	}
	lines := strings.Count(buf.String(), "\n") - strings.Count(buf.String(), "\n#")
	b.SetBytes(int64(buf.Len()))
	cpu := usage.CPU()
	for b.Loop() {
		if _, err := Read(bytes.NewReader(buf.Bytes()), "bench", ReadOptions{}, func(gpucost.Sample) {}); err != nil {
			b.Fatal(err)
		}
	}
	cpu = usage.CPU() - cpu
	b.ReportMetric(float64(lines*b.N)/b.Elapsed().Seconds(), "lines/s")
	b.ReportMetric(float64(lines*b.N)/cpu.Seconds(), "lines/cpu-s")
}

// BenchmarkWrite measures the writer: metric lines per second.
func BenchmarkWrite(b *testing.B) {
	samples := fleet(64, 200, 5)
	var buf bytes.Buffer
	for b.Loop() {
		buf.Reset()
		if err := Write(&buf, samples); err != nil {
			b.Fatal(err)
		}
	}
	lines := strings.Count(buf.String(), "\n") - strings.Count(buf.String(), "\n#")
	b.ReportMetric(float64(lines*b.N)/b.Elapsed().Seconds(), "lines/s")
}
