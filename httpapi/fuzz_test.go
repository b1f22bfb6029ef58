package httpapi

import (
	"bytes"
	"encoding/json"
	"math"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/telemetry"
)

// FuzzDecodeSamples feeds the decoder arbitrary bodies: it must return a request or an EInvalid
// error, never panic, and what it decodes must survive validation and a round trip.
func FuzzDecodeSamples(f *testing.F) {
	real := testSamples(1, 2, 2, time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC))
	real[0].SMActive, real[0].TempC = 0.4, 61
	f.Add(samplesBody(f, real))
	f.Add(samplesBody(f, realSamples(f, "nvidia-smi-a100-8gpu.csv")))
	f.Add(samplesBody(f, realSamples(f, "nvidia-smi-a100-mig.csv")))
	f.Add([]byte(`{"samples":[{"time":"2026-11-22T09:00:00Z","gpu":{"uuid":"GPU-1","host":"h","index":0},"util":null,"gr_engine_active":0.5,"labels":{"POD":"x"}}]}`))
	f.Add([]byte(`{"samples":[]}`))
	f.Add([]byte(`{"samples":null}`))
	f.Add([]byte(`{"samples":[{"util":1e400}]}`))
	f.Add([]byte(`{"samples":[{"util":-1,"gpu":{"index":-5}}]} x`))
	f.Add([]byte(`[1,2,3]`))
	f.Fuzz(func(t *testing.T, body []byte) {
		req, err := DecodeSamples(bytes.NewReader(body))
		if err != nil {
			if gpucost.ErrorCode(err) != gpucost.EInvalid {
				t.Fatalf("DecodeSamples(%q) error %v has code %s; want invalid", body, err, gpucost.ErrorCode(err))
			}
			return
		}
		for i := range req.Samples {
			s := req.Samples[i].Sample()
			if telemetry.Validate(s, time.Time{}) != nil {
				continue
			}
			b, err := json.Marshal(FromSample(s))
			if err != nil {
				t.Fatalf("FromSample of decoded sample %d: %v", i, err)
			}
			var back SampleJSON
			if err := json.Unmarshal(b, &back); err != nil {
				t.Fatalf("re-decode %s: %v", b, err)
			}
			again := back.Sample()
			if !same(again.Util, s.Util) || !same(again.PowerW, s.PowerW) || again.GPU != s.GPU || !again.Time.Equal(s.Time) {
				t.Fatalf("round trip of %+v gave %+v", s, again)
			}
		}
	})
}

func same(a, b float64) bool { return a == b || math.IsNaN(a) && math.IsNaN(b) }
