package nvidiasmi

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/gpucost/gpucost"
)

// TestReadRecordCommand reads the output of RecordCommand, the command gpucost import
// telemetry documents, captured on an H200 in each shape --format can give it.
func TestReadRecordCommand(t *testing.T) {
	if !strings.Contains(RecordCommand, "--query-gpu="+RecordQuery+" ") || len(recordLayout) != 9 {
		t.Fatalf("RecordCommand = %q; want the 9-field RecordQuery", RecordCommand)
	}
	var first []gpucost.Sample
	for _, name := range []string{"noheader-nounits", "header-nounits", "header-units", "noheader-units"} {
		data, err := os.ReadFile("testdata/h200-documented/" + name + ".csv")
		if err != nil {
			t.Fatal(err)
		}
		samples, st, err := readAll(t, string(data))
		if err != nil || len(samples) != 48 || st.Lines != 48 || st.Skipped != 0 {
			t.Fatalf("Read(%s) = %d samples, %+v, %v; want 48 samples, none skipped", name, len(samples), st, err)
		}
		var util float64
		for _, s := range samples {
			util += s.Util
		}
		s := samples[0]
		want := gpucost.GPU{UUID: "GPU-394b5914-a0f6-bd86-685c-15226d72588b", Host: "dgx-07", Model: "NVIDIA H200", Index: 0}
		if s.GPU != want || s.MemTotalMiB != 143771 || s.PowerW != 81.2 || s.TempC != 38 || util != 1490 {
			t.Errorf("Read(%s): first sample %+v, utilisation sum %v; want the H200, 143771 MiB, 81.2 W, 38 °C, sum 1490", name, s, util)
		}
		if first == nil {
			first = samples
		} else if fmt.Sprint(samples) != fmt.Sprint(first) { // Absent is NaN: compare as text
			t.Errorf("Read(%s) differs from Read(noheader-nounits)", name)
		}
	}
}

// TestReadHeaderlessWidths reads headerless lines of RecordQuery's 9 fields and QueryGPU's 10,
// and skips a line whose width differs from the first line's.
func TestReadHeaderlessWidths(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		samples    int
		skipped    int
	}{
		{"record query", "2026/11/01 10:00:00.000, 0, GPU-a, L4, 50, 2, 3, 4, 5\n", 1, 0},
		{"with mig.mode.current", "2026/11/01 10:00:00.000, 0, GPU-a, L4, 50, 2, 3, 4, 5, Disabled\n", 1, 0},
		{"mixed widths", "2026/11/01 10:00:00.000, 0, GPU-a, L4, 50, 2, 3, 4, 5\n" +
			"2026/11/01 10:00:01.000, 0, GPU-a, L4, 50, 2, 3, 4, 5, Disabled\n", 1, 1},
	} {
		samples, st, err := readAll(t, tc.text)
		if err != nil || len(samples) != tc.samples || st.Skipped != tc.skipped || samples[0].Util != 50 {
			t.Errorf("Read(%s) = %d samples, %d skipped (%v), %v; want %d, %d", tc.name, len(samples), st.Skipped, st.Skips, err, tc.samples, tc.skipped)
		}
	}
}

// TestReadNoGPUColumn reads the real H200 recording whose query had no uuid or index: without
// Reader.GPU it fails with the flag to give and what to record instead; with it, every line is
// that GPU's.
func TestReadNoGPUColumn(t *testing.T) {
	data, err := os.ReadFile("testdata/h200-phases/nvidia-smi-1s.csv")
	if err != nil {
		t.Fatal(err)
	}
	_, st, err := readAll(t, string(data))
	if err == nil || !strings.Contains(err.Error(), "--query-gpu="+RecordQuery) || !strings.Contains(err.Error(), "--gpu") || st.Lines != 48 {
		t.Errorf("Read(h200-phases) = %d lines, %v; want 48 lines and an error naming --gpu and --query-gpu=%s", st.Lines, err, RecordQuery)
	}
	for _, gpu := range []string{"GPU-394b5914-a0f6-bd86-685c-15226d72588b", "0"} {
		var samples []gpucost.Sample
		st, err := Reader{Host: "h200", GPU: gpu}.Read(strings.NewReader(string(data)), "1s.csv", func(s gpucost.Sample) { samples = append(samples, s) })
		if err != nil || len(samples) != 48 || st.Skipped != 0 {
			t.Fatalf("Read(GPU %s) = %d samples, %+v, %v; want 48, none skipped", gpu, len(samples), st, err)
		}
		var sum float64
		for _, s := range samples {
			sum += s.Util
		}
		want := gpucost.GPU{UUID: gpu, Host: "h200", Index: -1}
		if gpu == "0" {
			want = gpucost.GPU{UUID: "gpu0", Host: "h200", Index: 0}
		}
		if mean := sum / 48; samples[0].GPU != want || mean != 1490.0/48 || !gpucost.IsAbsent(samples[0].MemTotalMiB) || samples[0].PowerW != 81.2 {
			t.Errorf("Read(GPU %s): %+v, mean utilisation %v; want %+v, 1490/48 = 31.04%%, 81.2 W", gpu, samples[0].GPU, mean, want)
		}
	}
	// A recording that names its GPUs keeps them.
	samples, _, err := readAllGPU(t, "timestamp, index, utilization.gpu\n2026/11/01 10:00:00.000, 3, 50\n", "GPU-other")
	if err != nil || len(samples) != 1 || samples[0].GPU.UUID != "gpu3" || samples[0].GPU.Index != 3 {
		t.Errorf("Read(index column, GPU set) = %+v, %v; want gpu3", samples, err)
	}
}

func readAllGPU(t *testing.T, text, gpu string) ([]gpucost.Sample, Stats, error) {
	t.Helper()
	var out []gpucost.Sample
	st, err := Reader{Host: "n", GPU: gpu}.Read(strings.NewReader(text), "x.csv", func(s gpucost.Sample) { out = append(out, s) })
	return out, st, err
}
