package plan

import (
	"strings"
	"testing"
)

// TestPlanShareNotes: openb's pods get the FGD paper's published figures for context, and pods
// that name GPU models are counted with a note that the packing does not keep them apart.
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
	if r.Openb || r.Typed != 2 || !strings.Contains(notes, "2 GPU pods name the GPU models") || strings.Contains(notes, "FGD") {
		t.Errorf("typed pods: Openb %v, Typed %d, notes:\n%s\nwant 2 typed and no FGD context", r.Openb, r.Typed, notes)
	}
}
