package catalog

import (
	"testing"
	"time"

	"github.com/gpucost/gpucost"
)

// TestUserPrice: a user's price of a model comes before every provider's, under any of the
// model's names, is no offer, and the later of two replaces the earlier.
func TestUserPrice(t *testing.T) {
	c, err := Bundled()
	if err != nil {
		t.Fatal(err)
	}
	asOf := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	c2 := c.With([]gpucost.Offer{
		UserPrice("NVIDIA L4", gpucost.USD(500_000_000), asOf, "test"),
		UserPrice("NVIDIA RTX 4000 Ada Generation", gpucost.USD(760_000_000), asOf, "test"),
	})
	for _, name := range []string{"L4", "NVIDIA L4"} {
		if m, o, ok := c2.PricePerGPUHour(name, "aws"); !ok || m.Nanos != 500_000_000 || o.Provider != UserProvider {
			t.Errorf("PricePerGPUHour(%s, aws) = %s, %s, %v; want the user's $0.50", name, m.Decimal(), o.Provider, ok)
		}
	}
	if m, _, ok := c2.PricePerGPUHour("NVIDIA RTX 4000 Ada Generation", "aws"); !ok || m.Nanos != 760_000_000 {
		t.Errorf("PricePerGPUHour(RTX 4000 Ada) = %s, %v; want the user's $0.76", m.Decimal(), ok)
	}
	if m, _, _ := c.PricePerGPUHour("L4", "aws"); m.Nanos == 500_000_000 {
		t.Errorf("the bundled catalog took the user price: With must return a new catalog")
	}
	if len(c2.Offers()) != len(c.Offers()) || c2.Imported() != 0 || len(c2.UserPrices()) != 2 || contains(c2.Providers(), UserProvider) {
		t.Errorf("With(user prices): %d offers (want %d), %d imported, %d user prices, providers %v; want prices kept apart from offers",
			len(c2.Offers()), len(c.Offers()), c2.Imported(), len(c2.UserPrices()), c2.Providers())
	}
	c3 := c2.With([]gpucost.Offer{UserPrice("L4", gpucost.USD(600_000_000), asOf, "again")})
	if m, o, _ := c3.PricePerGPUHour("NVIDIA L4", "gcp"); m.Nanos != 600_000_000 || o.Source != "again" || len(c3.UserPrices()) != 2 {
		t.Errorf("a second L4 price: %s from %q, %d user prices; want $0.60 from again, 2", m.Decimal(), o.Source, len(c3.UserPrices()))
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
