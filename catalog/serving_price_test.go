package catalog

import (
	"strings"
	"testing"

	"github.com/gpucost/gpucost"
)

// TestServingPrice checks the serving planners' price: the catalog's median on-demand price and
// where it came from, the spot price under it by the catalog's discount, and the errors that
// tell what to give instead.
func TestServingPrice(t *testing.T) {
	c, err := Bundled()
	if err != nil {
		t.Fatal(err)
	}
	p, from, err := c.ServingPrice("A10G", "aws")
	want, _, _ := c.PricePerGPUHour("A10G", "aws")
	if err != nil || p != want || p.IsZero() || !strings.HasPrefix(from, "median on-demand $/GPU-h over regions: aws ") {
		t.Fatalf("ServingPrice(A10G, aws) = %v, %q, %v; want %v from the median on-demand offer", p, from, err, want)
	}
	if _, _, err := c.ServingPrice("no-such-gpu", ""); gpucost.ErrorCode(err) != gpucost.EInvalid || !strings.Contains(err.Error(), "give --price") {
		t.Errorf("ServingPrice(no-such-gpu) = %v; want %s telling to give --price", err, gpucost.EInvalid)
	}
	spot, err := c.SpotServingPrice("A10G", "aws", p)
	d, _, _ := c.SpotDiscount("A10G", "aws")
	if err != nil || spot != p.MulFloat(1-d/100) || spot.Nanos >= p.Nanos {
		t.Errorf("SpotServingPrice(A10G, aws, %v) = %v, %v; want %v less %.1f%%", p, spot, err, p, d)
	}
	if _, err := c.SpotServingPrice("A10G", "aws", gpucost.Money{}); gpucost.ErrorCode(err) != gpucost.EInvalid || !strings.Contains(err.Error(), "give --spot-price") {
		t.Errorf("SpotServingPrice(A10G, aws, 0) = %v; want %s telling to give --spot-price", err, gpucost.EInvalid)
	}
}
