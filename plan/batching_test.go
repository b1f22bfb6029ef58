package plan

import (
	"errors"
	"math"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
)

// TestFitRecoversLine: points on α + β·b give α and β back with R² = 1.
func TestFitRecoversLine(t *testing.T) {
	var pts []BatchPoint
	for _, b := range []int{1, 2, 4, 8, 16} {
		pts = append(pts, BatchPoint{b, 5*time.Millisecond + time.Duration(b)*time.Millisecond})
	}
	p, err := NewLatencyProfile(pts)
	if err != nil {
		t.Fatal(err)
	}
	if p.Alpha != 5*time.Millisecond || p.Beta != time.Millisecond || math.Abs(p.R2-1) > 1e-12 || p.MaxBatch != 16 {
		t.Errorf("NewLatencyProfile(5ms + 1ms·b) = α %v, β %v, R² %v, max %d", p.Alpha, p.Beta, p.R2, p.MaxBatch)
	}
	if got := p.Service(12); got != 17*time.Millisecond {
		t.Errorf("Service(12) = %v, want 17ms interpolated", got)
	}
}

// TestBatchingPlan: a measured profile at 2,000 requests/s and p99 ≤ 100 ms.
func TestBatchingPlan(t *testing.T) {
	data, err := os.ReadFile("testdata/latency_profile.csv")
	if err != nil {
		t.Fatal(err)
	}
	prof, err := ParseLatencyProfile(data)
	if err != nil {
		t.Fatal(err)
	}
	if prof.R2 < 0.99 || prof.Beta < 900*time.Microsecond || prof.Beta > 1100*time.Microsecond {
		t.Errorf("fit = %v, want β ≈ 1 ms with R² ≥ 0.99", prof)
	}
	o := BatchingOptions{Rate: 2000, Quantile: 0.99, SLO: 100 * time.Millisecond, Profile: prof, PricePerGPU: gpucost.USD(500_000_000)}
	r, err := Batching(o)
	if err != nil {
		t.Fatal(err)
	}
	if r.Unbatched == nil || r.Best.GPUs >= r.Unbatched.GPUs || r.Best.MaxBatchSize < 8 {
		t.Fatalf("Batching = best %+v, unbatched %+v; want batches to save GPUs", r.Best, r.Unbatched)
	}
	for _, p := range r.Plans {
		if p.Response > o.SLO || p.MaxQueueDelay < p.Fill || p.Utilisation >= 1 {
			t.Errorf("batch %d: response %v, delay %v < fill %v, utilisation %v", p.MaxBatchSize, p.Response, p.MaxQueueDelay, p.Fill, p.Utilisation)
		}
		// One replica fewer misses the SLO: the count is the minimum.
		if p.Replicas > 1 && ResponseQuantile(p.Replicas-1, o.Rate/float64(p.MaxBatchSize), p.Service, ProfileSpread, 0.99) < o.SLO-p.Fill-time.Microsecond {
			t.Errorf("batch %d: %d replicas is not the fewest", p.MaxBatchSize, p.Replicas)
		}
		if p.GPUs < r.Best.GPUs {
			t.Errorf("batch %d needs %d GPUs, fewer than the best's %d", p.MaxBatchSize, p.GPUs, r.Best.GPUs)
		}
	}
	if want := 64.0 / 0.0698; math.Abs(r.Plans[len(r.Plans)-1].ThroughputPerGPU-want) > 0.01 && r.LargestBatch == 64 {
		t.Errorf("throughput at 64 = %v, want %v", r.Plans[len(r.Plans)-1].ThroughputPerGPU, want)
	}
	// A tight SLO leaves only small batches; one under a batch of one is refused.
	o.SLO = 30 * time.Millisecond
	if r, err := Batching(o); err != nil || r.LargestBatch >= 32 {
		t.Errorf("Batching(SLO 30 ms) = largest %d, %v; want under 32", r.LargestBatch, err)
	}
	o.SLO = 5 * time.Millisecond
	var e *gpucost.Error
	if _, err := Batching(o); err == nil || !errors.As(err, &e) || !strings.Contains(err.Error(), "even a batch of one takes 6.1ms") {
		t.Errorf("Batching(SLO 5 ms) = %v; want the batch of one named", err)
	}
}

func TestFittedProfileCandidates(t *testing.T) {
	p, err := FittedProfile(5*time.Millisecond, time.Millisecond, 48)
	if err != nil {
		t.Fatal(err)
	}
	if got := p.candidates(0); len(got) != 7 || got[6] != 48 {
		t.Errorf("candidates = %v, want powers of two and 48", got)
	}
	if p.Service(10) != 15*time.Millisecond {
		t.Errorf("Service(10) = %v", p.Service(10))
	}
}

func TestParseLatencyProfileBadInput(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"b,l\n1,2\n", "needs batch_size and latency_ms"},
		{"batch_size,latency_ms\n0,5\n", "line 2 column 1: batch size \"0\""},
		{"batch_size,latency_ms\n1,-5\n", "line 2 column 2: latency \"-5\""},
		{"batch_size,latency_ms\n1,5\n1,6\n", "line 3: batch size 1 appears twice"},
		{"batch_size,latency_ms\n", "no measurements"},
	} {
		_, err := ParseLatencyProfile([]byte(tc.in))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ParseLatencyProfile(%q) = %v; want %q", tc.in, err, tc.want)
		}
	}
}

// FuzzParseLatencyProfile: any input either fails cleanly or gives a profile whose service
// times are positive and finite, and a plan that keeps its SLO.
func FuzzParseLatencyProfile(f *testing.F) {
	data, err := os.ReadFile("testdata/latency_profile.csv")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(data)
	f.Add([]byte("batch,latency_us\n1,500\n4,900\n"))
	f.Fuzz(func(t *testing.T, in []byte) {
		p, err := ParseLatencyProfile(in)
		if err != nil {
			return
		}
		for b := 1; b <= min(p.MaxBatch, 256); b++ {
			if s := p.Service(float64(b)); s <= 0 {
				t.Fatalf("Service(%d) = %v for %q", b, s, in)
			}
		}
		r, err := Batching(BatchingOptions{Rate: 100, Quantile: 0.99, SLO: time.Second, Profile: p})
		if err != nil {
			return
		}
		for _, bp := range r.Plans {
			if bp.Response > time.Second {
				t.Fatalf("plan %+v misses the SLO for %q", bp, in)
			}
		}
	})
}
