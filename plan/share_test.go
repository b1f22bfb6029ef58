package plan

import (
	"math/rand/v2"
	"os"
	"slices"
	"testing"
)

// TestPlanShareSmall: three pods of 600 thousandths and three of 400 share three GPUs in pairs,
// against six whole; under MIG the 600s take 7g (5 slices round up to the whole GPU) and the
// 400s 3g, two to a GPU: five.
func TestPlanShareSmall(t *testing.T) {
	var pods []SharePod
	for i := range 3 {
		pods = append(pods, SharePod{Name: "big", GPUs: 1, Milli: 600, Start: 0, End: 3600}, SharePod{Name: "small", GPUs: 1, Milli: 400, Start: int64(i) * 3600, End: int64(i+1) * 3600})
	}
	pods = append(pods, SharePod{Name: "eight", GPUs: 8, Milli: 1000}, SharePod{Name: "cpu"})
	r, err := PlanShare(pods)
	if err != nil {
		t.Fatal(err)
	}
	want := ShareNeed{Whole: 14, Fractional: 11, FFD: 11, Bound: 11, MIG: 13, MIGBound: 13, Requests: 7}
	if r.AllAtOnce != want || r.GPUPods != 7 || r.Fractional != 6 || r.MultiGPU != 1 || r.NeverRan != 1 {
		t.Errorf("PlanShare all at once = %+v (%d GPU pods, %d fractional, %d multi, %d never ran); want %+v", r.AllAtOnce, r.GPUPods, r.Fractional, r.MultiGPU, r.NeverRan, want)
	}
	// The first hour runs the three 600s and one 400 (4 whole, 3 shared); then one 400 an hour.
	if r.Peak.Whole != 4 || r.Peak.Fractional != 3 || r.PeakAt != 0 || r.GPUHours.NoSharing != 6 || r.GPUHours.Fractional != 5 {
		t.Errorf("PlanShare over time = peak %+v at %d, hours %+v; want 4 whole and 3 shared at 0, 6 and 5 GPU-hours", r.Peak, r.PeakAt, r.GPUHours)
	}
	if _, err := PlanShare([]SharePod{{Name: "x", GPUs: 2, Milli: 500}}); err == nil {
		t.Error("PlanShare(2 GPUs of 500 thousandths): want an error")
	}
}

// TestBinPackingBounds: on random fractions the L2 bound never exceeds either packing, and
// best-fit decreasing never uses more GPUs than requests.
func TestBinPackingBounds(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 8))
	for range 300 {
		sizes := make([]int, 1+rng.IntN(60))
		for i := range sizes {
			sizes[i] = 1 + rng.IntN(999)
		}
		slices.SortFunc(sizes, func(a, b int) int { return b - a })
		lb, bfd, ffd := binPackingL2(sizes), bestFitDecreasing(sizes), firstFitDecreasing(sizes)
		if lb > bfd || lb > ffd || bfd > len(sizes) {
			t.Fatalf("sizes %v: L2 %d, BFD %d, FFD %d", sizes, lb, bfd, ffd)
		}
	}
}

// BenchmarkPlanShareOpenb plans the 8,152 openb pods; the target is under 5 s a run.
func BenchmarkPlanShareOpenb(b *testing.B) {
	pods := readOpenb(b)
	for b.Loop() {
		if _, err := PlanShare(pods); err != nil {
			b.Fatal(err)
		}
	}
}

// readOpenb reads the pod list without planfile (which imports plan).
func readOpenb(tb testing.TB) []SharePod {
	data, err := os.ReadFile(openbPods)
	if err != nil {
		tb.Skipf("the shared datasets are not beside the repository (%v)", err)
	}
	return parseOpenb(tb, data)
}
