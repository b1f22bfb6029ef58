package plan

import (
	"strings"
	"testing"
)

// TestPlanShareNotes: openb's pods get the FGD paper's published figures for context, and pods
// that name GPU models are counted, with a note on how they were packed.
func TestPlanShareNotes(t *testing.T) {
	r, err := PlanShare(readOpenb(t))
	if err != nil {
		t.Fatal(err)
	}
	notes := strings.Join(r.Notes, "\n")
	if !r.Openb || r.Typed != 0 || !strings.Contains(notes, "FGD paper (Weng et al., USENIX ATC '23)") || !strings.Contains(notes, "up to 49% fewer GPUs unallocated") || strings.Contains(notes, "gpu_spec") {
		t.Errorf("openb: Openb %v, Typed %d, notes:\n%s\nwant the FGD context and no typed pods", r.Openb, r.Typed, notes)
	}
	pods := []SharePod{
		{Name: "a", GPUs: 1, Milli: 500, Start: 0, End: 10, Types: "A100"},
		{Name: "b", GPUs: 1, Milli: 500, Start: 0, End: 10, Types: "V100M32|A100"},
		{Name: "c", GPUs: 1, Milli: 300, Start: 0, End: 10},
	}
	r, err = PlanShare(pods)
	if err != nil {
		t.Fatal(err)
	}
	notes = strings.Join(r.Notes, "\n")
	if r.Openb || r.Typed != 2 || !strings.Contains(notes, "2 GPU pods name the GPU models they may run on (gpu_spec): a fraction shares a GPU only with fractions of the same gpu_spec or of none") || strings.Contains(notes, "FGD") {
		t.Errorf("typed pods: Openb %v, Typed %d, notes:\n%s\nwant 2 typed and no FGD context", r.Openb, r.Typed, notes)
	}
}

// TestPlanShareGPUTypes: a fraction shares a GPU only with fractions of the same Types or of
// none; fractions of any model fill the room the typed GPUs leave; the bounds ignore Types.
func TestPlanShareGPUTypes(t *testing.T) {
	frac := func(milli int, types string) SharePod {
		return SharePod{Name: types, GPUs: 1, Milli: milli, Start: 0, End: 3600, Types: types}
	}
	for _, tc := range []struct {
		name             string
		pods             []SharePod
		frac, ffd, bound int
	}{
		{"two models apart", []SharePod{frac(500, "A100"), frac(500, "T4")}, 2, 2, 1},
		{"one model together", []SharePod{frac(500, "A100"), frac(500, "A100")}, 1, 1, 1},
		{"any model fills the room", []SharePod{frac(600, "A100"), frac(600, "T4"), frac(400, ""), frac(400, "")}, 2, 2, 2},
		{"any model beside typed", []SharePod{frac(500, "A100"), frac(500, "T4"), frac(300, ""), frac(200, "")}, 2, 2, 2},
		{"no types", []SharePod{frac(500, ""), frac(500, ""), frac(300, "")}, 2, 2, 2},
	} {
		r, err := PlanShare(tc.pods)
		if err != nil {
			t.Fatal(err)
		}
		a := r.AllAtOnce
		if a.Fractional != tc.frac || a.FFD != tc.ffd || a.Bound != tc.bound || r.Peak.Fractional != tc.frac {
			t.Errorf("%s: PlanShare = %d best fit, %d first fit, bound %d, %d at the peak; want %d, %d, %d, %d", tc.name, a.Fractional, a.FFD, a.Bound, r.Peak.Fractional, tc.frac, tc.ffd, tc.bound, tc.frac)
		}
		if a.MIG < a.MIGBound || a.Fractional < a.Bound {
			t.Errorf("%s: a packing under its bound: %+v", tc.name, a)
		}
	}
	// MIG keeps models apart too: two 4g slices of different models cannot share a GPU anyway,
	// but two 3g slices of different models can only share without types.
	typed, _ := PlanShare([]SharePod{frac(400, "A100"), frac(400, "T4")})
	plain, _ := PlanShare([]SharePod{frac(400, ""), frac(400, "")})
	if typed.AllAtOnce.MIG != 2 || plain.AllAtOnce.MIG != 1 {
		t.Errorf("MIG with two 3g slices: %d GPUs typed, %d plain; want 2 and 1", typed.AllAtOnce.MIG, plain.AllAtOnce.MIG)
	}
}
