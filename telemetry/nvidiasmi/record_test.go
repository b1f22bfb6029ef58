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

// TestReadNoGPUColumn reads the real H200 recording whose query had no uuid or index: it fails
// with what to record instead.
func TestReadNoGPUColumn(t *testing.T) {
	data, err := os.ReadFile("../../../shared/datasets/nvidia/h200-phases/nvidia-smi-1s.csv")
	if err != nil {
		t.Skipf("the shared H200 recording is not here: %v", err)
	}
	_, st, err := readAll(t, string(data))
	if err == nil || !strings.Contains(err.Error(), "--query-gpu="+RecordQuery) || st.Lines != 48 {
		t.Errorf("Read(h200-phases) = %d lines, %v; want 48 lines and an error naming --query-gpu=%s", st.Lines, err, RecordQuery)
	}
}
