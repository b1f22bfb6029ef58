package present

import (
	"fmt"

	"github.com/gpucost/gpucost/plan"
)

// Share is plan share's table: whole-GPU, fractional and MIG needs side by side, all at once,
// at the peak of the requests running together and over time, with first-fit decreasing and
// the lower bounds beside them.
func Share(r plan.ShareResult) Table {
	t := Table{
		Title:   fmt.Sprintf("GPUs for %d GPU pods: whole GPUs, fractional sharing and MIG", r.GPUPods),
		Columns: []string{"Way", "All at once", "Peak together", "GPU-hours"},
		Right:   []int{1, 2, 3},
		JSON:    r,
	}
	a, p, h := r.AllAtOnce, r.Peak, r.GPUHours
	row := func(way string, all, peak int, hours float64) {
		t.Rows = append(t.Rows, []string{way, fmt.Sprint(all), fmt.Sprint(peak), fmt.Sprintf("%.0f", hours)})
	}
	row("whole GPUs (no sharing)", a.Whole, p.Whole, h.NoSharing)
	row("fractional: time-slicing or MPS (best-fit decreasing)", a.Fractional, p.Fractional, h.Fractional)
	row("fractional: first-fit decreasing", a.FFD, p.FFD, h.FFD)
	row("fractional: lower bound (Martello–Toth L2)", a.Bound, p.Bound, h.Bound)
	row("MIG profiles ("+r.MIGPacker+" all at once)", a.MIG, p.MIG, h.MIG)
	t.Rows = append(t.Rows, []string{"MIG: lower bound", fmt.Sprint(a.MIGBound), fmt.Sprint(p.MIGBound), ""})
	t.Notes = r.Notes
	return t
}
