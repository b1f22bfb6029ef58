package catalog

import "testing"

func TestSpotDiscount(t *testing.T) {
	c, err := Bundled()
	if err != nil {
		t.Fatal(err)
	}
	d, ok, err := c.SpotDiscount("A10G", "aws")
	if err != nil || !ok || d <= 0 || d >= 100 {
		t.Errorf("SpotDiscount(A10G, aws) = %v, %v, %v; want a discount between 0 and 100%%", d, ok, err)
	}
	if _, _, err := c.SpotDiscount("A10G", "no-such-cloud"); err == nil {
		t.Error("SpotDiscount(A10G, no-such-cloud) = nil error; want the catalog's error about the provider")
	}
}
