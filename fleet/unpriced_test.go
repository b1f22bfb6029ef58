package fleet

import (
	"context"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
)

// h100Catalog prices only the H100, at $10 a GPU-hour.
type h100Catalog struct{ fakeCatalog }

func (h100Catalog) PricePerGPUHour(model, _ string) (gpucost.Money, gpucost.Offer, bool) {
	if model != "H100-SXM" {
		return gpucost.Money{}, gpucost.Offer{}, false
	}
	return fakeCatalog{}.PricePerGPUHour(model, "")
}

// TestUnpricedByModel names each model the catalog does not price with its GPU-hours.
func TestUnpricedByModel(t *testing.T) {
	f := &fakeStore{}
	f.hours("h", nil, day1, 2, 50) // an H100: priced
	for _, g := range []struct {
		model string
		hours int
	}{{"GRID A100-10C", 12}, {"NVIDIA RTX 4000 Ada Generation", 3}} {
		s := &gpucost.Series{GPU: gpucost.GPU{UUID: "GPU-" + g.model, Host: "v", Model: g.model}}
		for i := range g.hours {
			f.rollups = append(f.rollups, gpucost.Rollup{Series: s, Start: day1.Add(time.Duration(i) * time.Hour), Width: time.Hour,
				Samples: 60, Coverage: 1<<60 - 1, UtilSum: 600})
		}
	}
	s, err := Build(context.Background(), f, h100Catalog{}, Options{Period: Period{Start: day1, End: day1.Add(24 * time.Hour)}})
	if err != nil {
		t.Fatal(err)
	}
	by := s.Stats.UnpricedBy
	if s.Stats.Unpriced != 15 || len(by) != 2 || by["GRID A100-10C"] != 12 || by["NVIDIA RTX 4000 Ada Generation"] != 3 {
		t.Errorf("Build: Unpriced = %v, UnpricedBy = %v; want 15: GRID A100-10C 12, NVIDIA RTX 4000 Ada Generation 3", s.Stats.Unpriced, by)
	}
}
