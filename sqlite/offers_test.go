package sqlite

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
)

func testOffer(region, zone, instance string, od, spot int64) gpucost.Offer {
	o := gpucost.Offer{Provider: "aws", Region: region, Zone: zone, InstanceType: instance,
		GPUModel: "H100-SXM", GPUCount: 8, GPUMemoryGB: 80, VCPUs: 192, MemoryGiB: 2048,
		Source: "test.csv", AsOf: time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC)}
	if od > 0 {
		o.OnDemand, o.HasOnDemand = gpucost.USD(od), true
	}
	if spot > 0 {
		o.SpotPrice, o.HasSpot = gpucost.USD(spot), true
	}
	return o
}

func openTemp(t *testing.T) *DB {
	t.Helper()
	db, err := Open(context.Background(), filepath.Join(t.TempDir(), "gpucost.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func TestOffersRoundTripAndReplace(t *testing.T) {
	ctx := context.Background()
	db := openTemp(t)
	first := []gpucost.Offer{
		testOffer("us-east-1", "use1-az1", "p5.48xlarge", 55_040_000_000, 14_582_000_000),
		testOffer("us-east-1", "use1-az2", "p5.48xlarge", 55_040_000_000, 0), // no spot price
		testOffer("us-west-2", "", "p5.48xlarge", 0, 0),                      // no price at all
	}
	added, replaced, err := db.PutOffers(ctx, first)
	if err != nil || added != 3 || replaced != 0 {
		t.Fatalf("PutOffers(first) = %d, %d, %v; want 3, 0, nil", added, replaced, err)
	}
	got, err := db.Offers(ctx, gpucost.OfferFilter{})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 {
		t.Fatalf("Offers() returned %d offers, want 3", len(got))
	}
	for i, want := range first {
		g := got[i]
		if !g.AsOf.Equal(want.AsOf) {
			t.Errorf("offer %d AsOf = %v, want %v", i, g.AsOf, want.AsOf)
		}
		g.AsOf = want.AsOf
		if g != want {
			t.Errorf("offer %d round trip:\n got %+v\nwant %+v", i, g, want)
		}
	}

	// A second import replaces the same key and adds a new one; the batch's duplicate counts once.
	second := []gpucost.Offer{
		testOffer("us-east-1", "use1-az1", "p5.48xlarge", 50_000_000_000, 0),
		testOffer("eu-west-1", "euw1-az1", "p5.48xlarge", 60_000_000_000, 0),
		testOffer("eu-west-1", "euw1-az1", "p5.48xlarge", 61_000_000_000, 0),
	}
	added, replaced, err = db.PutOffers(ctx, second)
	if err != nil || added != 1 || replaced != 1 {
		t.Fatalf("PutOffers(second) = %d, %d, %v; want 1, 1, nil", added, replaced, err)
	}
	got, err = db.Offers(ctx, gpucost.OfferFilter{Regions: []string{"us-east-1", "eu-west-1"}, Providers: []string{"AWS"}})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int64{"eu-west-1/euw1-az1": 61_000_000_000, "us-east-1/use1-az1": 50_000_000_000, "us-east-1/use1-az2": 55_040_000_000}
	if len(got) != len(want) {
		t.Fatalf("Offers(us-east-1, eu-west-1) returned %d offers, want %d", len(got), len(want))
	}
	for _, o := range got {
		if w := want[o.Region+"/"+o.Zone]; o.OnDemand.Nanos != w {
			t.Errorf("offer %s/%s on-demand = %d nanos, want %d", o.Region, o.Zone, o.OnDemand.Nanos, w)
		}
		if o.Region+"/"+o.Zone == "us-east-1/use1-az1" && o.HasSpot {
			t.Errorf("replaced offer kept its old spot price %v", o.SpotPrice)
		}
	}
}

func TestPutOffersIsAllOrNothing(t *testing.T) {
	ctx := context.Background()
	db := openTemp(t)
	bad := []gpucost.Offer{
		testOffer("us-east-1", "use1-az1", "p5.48xlarge", 1, 0),
		{Provider: "aws", Region: "us-east-1", GPUModel: "H100-SXM"}, // no instance type
	}
	if _, _, err := db.PutOffers(ctx, bad); gpucost.ErrorCode(err) != gpucost.EInvalid {
		t.Fatalf("PutOffers(offer without instance type) error = %v, want code %s", err, gpucost.EInvalid)
	}
	got, err := db.Offers(ctx, gpucost.OfferFilter{})
	if err != nil || len(got) != 0 {
		t.Errorf("after a failed PutOffers, Offers() = %d offers, %v; want none", len(got), err)
	}

	// A cancelled context fails inside the transaction: still nothing is stored.
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, _, err := db.PutOffers(cctx, bad[:1]); err == nil {
		t.Fatal("PutOffers(cancelled context) succeeded")
	}
	if got, _ := db.Offers(ctx, gpucost.OfferFilter{}); len(got) != 0 {
		t.Errorf("after a cancelled PutOffers, %d offers are stored", len(got))
	}
}

func TestOffersFilterByModel(t *testing.T) {
	ctx := context.Background()
	db := openTemp(t)
	a := testOffer("us-east-1", "", "p5.48xlarge", 1, 0)
	b := testOffer("us-east-1", "", "g6.xlarge", 1, 0)
	b.GPUModel, b.GPUCount = "L4", 1
	if _, _, err := db.PutOffers(ctx, []gpucost.Offer{a, b}); err != nil {
		t.Fatal(err)
	}
	got, err := db.Offers(ctx, gpucost.OfferFilter{GPUModels: []string{"L4"}})
	if err != nil || len(got) != 1 || got[0].InstanceType != "g6.xlarge" {
		t.Errorf("Offers(GPUModels=L4) = %+v, %v; want the g6.xlarge offer", got, err)
	}
}
