package refresh

import (
	"context"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/internal/storetest"
	"github.com/gpucost/gpucost/spotrisk"
)

// TestKeepSpotPrices: the spot prices of offers are added to the stored history, a damaged one
// starting again; offers without a spot price store nothing.
func TestKeepSpotPrices(t *testing.T) {
	ctx := context.Background()
	at := time.Date(2026, 11, 27, 0, 0, 0, 0, time.UTC)
	spot := gpucost.Offer{Provider: "aws", InstanceType: "g5.xlarge", Region: "us-east-1", Zone: "us-east-1a", HasSpot: true, SpotPrice: gpucost.USD(400_000_000), AsOf: at}
	st := storetest.Settings{spotrisk.SettingPriceHistory: "{damaged"}
	if n, err := KeepSpotPrices(ctx, st, []gpucost.Offer{{Provider: "aws", InstanceType: "g5.xlarge", Region: "us-east-1", AsOf: at}}); n != 0 || err != nil || st[spotrisk.SettingPriceHistory] != "{damaged" {
		t.Errorf("KeepSpotPrices(no spot price) = %d, %v; want nothing stored", n, err)
	}
	if n, err := KeepSpotPrices(ctx, st, []gpucost.Offer{spot}); n != 1 || err != nil {
		t.Fatalf("KeepSpotPrices(one spot price) = %d, %v; want 1", n, err)
	}
	h, err := spotrisk.DecodePriceHistory(st[spotrisk.SettingPriceHistory])
	if err != nil || len(h.Series) != 1 {
		t.Errorf("stored history = %+v, %v; want the one pool's series", h, err)
	}
}
