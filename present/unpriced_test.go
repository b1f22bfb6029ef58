package present

import (
	"strings"
	"testing"

	"github.com/gpucost/gpucost/fleet"
)

// TestPriceNotesNameUnpricedModels names every model without a price with its GPU-hours, most
// first.
func TestPriceNotesNameUnpricedModels(t *testing.T) {
	s := &fleet.Snapshot{Stats: fleet.Stats{Unpriced: 15.5,
		UnpricedBy: map[string]float64{"NVIDIA RTX 4000 Ada Generation": 3.5, "GRID A100-10C": 12}}}
	notes := strings.Join(PriceNotes(s, nil), "\n")
	want := "15.5 GPU-hours of models neither the bill nor the catalog prices are not in the costs: " +
		"GRID A100-10C 12.0 GPU-h, NVIDIA RTX 4000 Ada Generation 3.5 GPU-h."
	if !strings.Contains(notes, want) {
		t.Errorf("PriceNotes = %q, want it to hold %q", notes, want)
	}
}
