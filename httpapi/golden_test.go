package httpapi

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/telemetry/nvidiasmi"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// realSamples reads a real nvidia-smi capture (copied from telemetry/nvidiasmi/testdata).
func realSamples(t testing.TB, name string) []gpucost.Sample {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []gpucost.Sample
	if _, err := nvidiasmi.Read(f, name, "gpu-node-1", func(s gpucost.Sample) { out = append(out, s) }); err != nil {
		t.Fatalf("read %s: %v", name, err)
	}
	return out
}

// TestWireGolden fixes the wire form of real samples, which agents of other versions read and
// write: go test ./httpapi -run TestWireGolden -update rewrites it after a deliberate change.
func TestWireGolden(t *testing.T) {
	for _, name := range []string{"nvidia-smi-a100-8gpu.csv", "nvidia-smi-a100-mig.csv"} {
		samples := realSamples(t, name)
		if len(samples) == 0 {
			t.Fatalf("%s: no samples", name)
		}
		var got bytes.Buffer
		enc := json.NewEncoder(&got)
		enc.SetIndent("", "  ")
		req := SamplesRequest{}
		for _, s := range samples {
			req.Samples = append(req.Samples, FromSample(s))
		}
		if err := enc.Encode(req); err != nil {
			t.Fatal(err)
		}
		golden := filepath.Join("testdata", name+".wire.golden.json")
		if *update {
			os.WriteFile(golden, got.Bytes(), 0o644)
		}
		want, err := os.ReadFile(golden)
		if err != nil {
			t.Fatalf("%v (run with -update to create it)", err)
		}
		if !bytes.Equal(got.Bytes(), want) {
			t.Errorf("wire form of %s differs from %s:\n%s", name, golden, got.String())
		}
		back, err := DecodeSamples(bytes.NewReader(want))
		if err != nil || len(back.Samples) != len(samples) {
			t.Fatalf("DecodeSamples(%s) = %v; want %d samples", golden, err, len(samples))
		}
		for i := range samples {
			s, r := samples[i], back.Samples[i].Sample()
			if r.GPU != s.GPU || !r.Time.Equal(s.Time) || !same(r.Util, s.Util) || !same(r.MemUsedMiB, s.MemUsedMiB) ||
				!same(r.PowerW, s.PowerW) || !same(r.TempC, s.TempC) || r.Labels.String() != s.Labels.String() {
				t.Errorf("%s sample %d: decoded %+v; want %+v", name, i, r, s)
			}
		}
	}
}
