package refresh

import (
	"reflect"
	"testing"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/pricing"
)

func TestOffers(t *testing.T) {
	a, b, c := gpucost.Offer{InstanceType: "a"}, gpucost.Offer{InstanceType: "b"}, gpucost.Offer{InstanceType: "c"}
	got := Offers([]*pricing.Result{{Offers: []gpucost.Offer{a}}, {}, {Offers: []gpucost.Offer{b, c}}})
	if !reflect.DeepEqual(got, []gpucost.Offer{a, b, c}) {
		t.Errorf("Offers(a, none, b c) = %v; want a, b, c", got)
	}
	if got := Offers(nil); got != nil {
		t.Errorf("Offers(nil) = %v; want none", got)
	}
}
