package promtext

import (
	"bytes"
	"os"
	"os/exec"
	"testing"
)

// TestPromtoolCheck has Prometheus' own linter, promtool check metrics, read a page with every
// kind of family and label values that need escaping.
func TestPromtoolCheck(t *testing.T) {
	bin, err := exec.LookPath("promtool")
	if err != nil {
		msg := "promtool is not installed; to run this test: apt-get install -y prometheus"
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	var r Registry
	c := NewCounterVec("gpucost_jobs_total", "Jobs done, by \"result\".", "result")
	c.With(`odd "value" \ with\nescapes`).Inc()
	h := NewHistogramVec("gpucost_wait_seconds", "Time waited.", []float64{0.1, 1}, "queue")
	h.With("a").Observe(0.5)
	r.Register(c, h, GaugeFunc("gpucost_queue_samples", "Samples queued.", func() float64 { return 1 }), GoCollector(), ProcessCollector())
	cmd := exec.Command(bin, "check", "metrics")
	cmd.Stdin = bytes.NewReader(r.Page())
	if out, err := cmd.CombinedOutput(); err != nil || len(bytes.TrimSpace(out)) > 0 {
		t.Errorf("promtool check metrics = %v:\n%s\npage:\n%s", err, out, r.Page())
	}
}
