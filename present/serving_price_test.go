package present

import (
	"slices"
	"testing"

	"github.com/gpucost/gpucost"
)

// TestServingPriceNotes says where a serving plan's price came from, or why its money column is
// blank, never both; BlankColumn empties that column only.
func TestServingPriceNotes(t *testing.T) {
	price := gpucost.USD(800_000_000)
	if got, want := ServingPriceNote(price, "--price", " on demand"), []string{"Price: $0.80 per GPU-hour on demand (--price)."}; !slices.Equal(got, want) {
		t.Errorf("ServingPriceNote = %q, want %q", got, want)
	}
	if got := NoServingPrice("--price", "the Cost column"); got != nil {
		t.Errorf("NoServingPrice(priced) = %q, want none", got)
	}
	if got := ServingPriceNote(gpucost.Money{}, "", ""); got != nil {
		t.Errorf("ServingPriceNote(no price) = %q, want none", got)
	}
	if got := NoServingPrice("", "the Cost column"); len(got) != 1 || got[0][:37] != "No price: the Cost column is blank be" {
		t.Errorf("NoServingPrice(no price) = %q, want one note on the Cost column", got)
	}
	tab := Table{Columns: []string{"Policy", "Cost"}, Rows: [][]string{{"static", "$0.00"}, {"oracle"}}}
	tab.BlankColumn("Cost")
	tab.BlankColumn("Missing")
	if tab.Rows[0][0] != "static" || tab.Rows[0][1] != "" || len(tab.Rows[1]) != 1 {
		t.Errorf("BlankColumn(Cost) rows = %q; want the Cost cells empty, the rest kept", tab.Rows)
	}
}
