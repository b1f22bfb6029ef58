package catalog

import (
	"strings"
	"testing"

	"github.com/gpucost/gpucost"
)

func TestImportedOffers(t *testing.T) {
	a, b, c := gpucost.Offer{InstanceType: "a"}, gpucost.Offer{InstanceType: "b"}, gpucost.Offer{InstanceType: "c"}
	got, err := ImportedOffers([]*Import{{Offers: []gpucost.Offer{a, b}}, {}, {Offers: []gpucost.Offer{c}}}, []string{"x.csv", "y.csv", "z.csv"})
	if err != nil || len(got) != 3 || got[0] != a || got[1] != b || got[2] != c {
		t.Errorf("ImportedOffers(a b, none, c) = %v, %v; want a, b, c in order", got, err)
	}
	_, err = ImportedOffers([]*Import{{}, {}}, []string{"x.csv", "y.csv"})
	if gpucost.ErrorCode(err) != gpucost.EInvalid || !strings.Contains(err.Error(), "no NVIDIA GPU offers in x.csv, y.csv") {
		t.Errorf("ImportedOffers(none) = %v; want %s naming the files", err, gpucost.EInvalid)
	}
}
