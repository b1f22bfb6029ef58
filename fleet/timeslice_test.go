package fleet

import (
	"testing"
	"time"

	"github.com/gpucost/gpucost"
)

// TestTimeSlicedFigures: two pods time-slice machine a's GPU, each series its share of the GPU's
// time (docs/architecture.md "Time-sliced GPUs: per-process samples"): pod hog 30%, pod light
// 10%, so the GPU was 40% busy. The GPU is counted once, 24 GPU-hours; the pods hold it in
// proportion to their use (18 and 6 h), use 7.2 and 2.4 h, and pay $180 and $60 of the $240 line.
func TestTimeSlicedFigures(t *testing.T) {
	f := &fakeStore{}
	f.line("a", day1, 24, 240e9, gpucost.Labels{"team": "ml"})
	share := func(pod string) gpucost.Labels {
		return gpucost.Labels{"pod_uid": pod, gpucost.LabelGPUShare: gpucost.GPUShareSM}
	}
	f.hours("a", share("hog"), day1, 24, 30)
	f.hours("a", share("light"), day1, 24, 10)
	s := build(t, f, Period{Start: day1, End: day1.Add(24 * time.Hour)})
	fleet := s.Fleet(GPUOnly)
	if len(fleet) != 1 || fleet[0].GPUHours() != 24 || fleet[0].UsedGPUHours() != 9.6 || fleet[0].GPUCost().Nanos != 240e9 {
		t.Fatalf("fleet = %+v; want 24 GPU-hours (the GPU once), 9.6 used, $240", fleet)
	}
	pods := byGroup(t, s, "pod", GPUOnly)
	for _, c := range []struct {
		pod               string
		gpuH, usedH       float64
		gpuCost, idleCost int64
	}{
		{"hog", 18, 7.2, 180e9, 108e9},
		{"light", 6, 2.4, 60e9, 36e9},
	} {
		p := pods[c.pod]
		if p.GPUHours() != c.gpuH || p.UsedGPUHours() != c.usedH || p.GPUCost().Nanos != c.gpuCost || p.IdleCost.Nanos != c.idleCost {
			t.Errorf("pod %s: %v GPU-h, %v used, cost %v, idle %v; want %v, %v, %v, %v", c.pod,
				p.GPUHours(), p.UsedGPUHours(), p.GPUCost(), p.IdleCost, c.gpuH, c.usedH, gpucost.USD(c.gpuCost), gpucost.USD(c.idleCost))
		}
	}
}
