package plan

import (
	"bytes"
	"encoding/csv"
	"strconv"
	"testing"
)

func parseOpenb(tb testing.TB, data []byte) []SharePod {
	rows, err := csv.NewReader(bytes.NewReader(data)).ReadAll()
	if err != nil {
		tb.Fatal(err)
	}
	col := map[string]int{}
	for i, h := range rows[0] {
		col[h] = i
	}
	num := func(r []string, c string) int64 {
		v, err := strconv.ParseInt(r[col[c]], 10, 64)
		if err != nil {
			tb.Fatalf("%s %q: %v", c, r[col[c]], err)
		}
		return v
	}
	var pods []SharePod
	for _, r := range rows[1:] {
		p := SharePod{Name: r[col["name"]], GPUs: int(num(r, "num_gpu")), Milli: int(num(r, "gpu_milli")), Start: num(r, "creation_time"), End: num(r, "deletion_time")}
		if p.GPUs > 1 && p.Milli == 0 {
			p.Milli = 1000
		}
		pods = append(pods, p)
	}
	return pods
}

// TestPlanShareOpenb pins the plan for the real openb trace's 8,152 pods (7,064 requesting
// GPUs, 3,078 of them a fraction of one): all at once, fractional sharing needs 6,330 GPUs
// against 7,433 whole (−15%), 53 over the L2 lower bound of 6,277, the same as first-fit
// decreasing; MIG 6,732, at its bound, since its profiles round fractions up to sevenths (810
// thousandths take a whole 7g). Over time 71 GPUs at the peak, 59,781 GPU-hours whole,
// 53,371 shared.
func TestPlanShareOpenb(t *testing.T) {
	r, err := PlanShare(readOpenb(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("all at once %+v; peak %+v; hours %+v", r.AllAtOnce, r.Peak, r.GPUHours)
	want := ShareNeed{Whole: 7433, Fractional: 6330, FFD: 6330, Bound: 6277, MIG: 6732, MIGBound: 6732, Requests: 7064}
	if r.AllAtOnce != want || r.Fractional != 3078 {
		t.Errorf("openb all at once = %+v, %d fractional; want %+v, 3078", r.AllAtOnce, r.Fractional, want)
	}
	if r.Peak.Whole != 71 || r.Peak.Fractional != 67 || int(r.GPUHours.NoSharing) != 59781 || int(r.GPUHours.Fractional) != 53371 {
		t.Errorf("openb over time = peak %+v, hours %+v; want 71 whole and 67 shared at the peak, 59781 and 53371 GPU-hours", r.Peak, r.GPUHours)
	}
}
