package fleet

import "testing"

func TestDimensionsParse(t *testing.T) {
	d := Dimensions()
	if len(d) == 0 {
		t.Fatal("Dimensions() = none")
	}
	for _, by := range d {
		if _, err := ParseDimension(by); err != nil {
			t.Errorf("ParseDimension(%q) = %v; Dimensions offers it", by, err)
		}
	}
	d[0] = "changed"
	if Dimensions()[0] == "changed" {
		t.Error("Dimensions() shares its slice: a caller's change reaches ParseDimension")
	}
}
