// Package goldenfile compares test output with golden files under testdata, and rewrites them
// when a test runs with -update. It also gives GPU samples one readable JSON form for goldens.
package goldenfile

import (
	"bytes"
	"encoding/json"
	"os"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
)

// Check compares got with the file at path, or writes got there when update is set.
func Check(t testing.TB, path string, got []byte, update bool) {
	t.Helper()
	if update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -run %s -update to create it)", err, t.Name())
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file; got:\n%s", path, got)
	}
}

// sample is a Sample as golden files show it: absent readings are left out.
type sample struct {
	Time           time.Time
	GPU            gpucost.GPU
	Util           *float64       `json:",omitempty"`
	MemUsedMiB     *float64       `json:",omitempty"`
	MemTotalMiB    *float64       `json:",omitempty"`
	PowerW         *float64       `json:",omitempty"`
	TempC          *float64       `json:",omitempty"`
	SMActive       *float64       `json:",omitempty"`
	SMOccupancy    *float64       `json:",omitempty"`
	GrEngineActive *float64       `json:",omitempty"`
	Labels         gpucost.Labels `json:",omitempty"`
}

func present(v float64) *float64 {
	if gpucost.IsAbsent(v) {
		return nil
	}
	return &v
}

// Samples returns samples as indented JSON, one object per sample.
func Samples(samples []gpucost.Sample) []byte {
	out := make([]sample, len(samples))
	for i, s := range samples {
		out[i] = sample{s.Time, s.GPU, present(s.Util), present(s.MemUsedMiB), present(s.MemTotalMiB),
			present(s.PowerW), present(s.TempC), present(s.SMActive), present(s.SMOccupancy), present(s.GrEngineActive), s.Labels}
	}
	b, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		panic(err)
	}
	return append(b, '\n')
}
