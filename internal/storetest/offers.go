package storetest

import (
	"context"
	"reflect"
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

func testOffersRoundTripAndReplace(t *testing.T, open Open) {
	ctx := context.Background()
	db := open(t)
	first := []gpucost.Offer{
		testOffer("us-east-1", "use1-az1", "p5.48xlarge", 55_040_000_000, 14_582_000_000),
		testOffer("us-east-1", "use1-az2", "p5.48xlarge", 55_040_000_000, 0), // no spot price
		testOffer("us-west-2", "", "p5.48xlarge", 0, 0),                      // no price at all
	}
	first[1].AsOf = first[1].AsOf.Add(123456789 * time.Nanosecond) // kept to the nanosecond
	first[2].AsOf = time.Time{}                                    // unknown
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
	second[0].Provider = "AWS" // stored lower-case: the same key
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
	var order []string
	for _, o := range got {
		order = append(order, o.Region+"/"+o.Zone)
		if w := want[o.Region+"/"+o.Zone]; o.OnDemand.Nanos != w || o.Provider != "aws" {
			t.Errorf("offer %s %s/%s on-demand = %d nanos, want aws at %d", o.Provider, o.Region, o.Zone, o.OnDemand.Nanos, w)
		}
		if o.Region+"/"+o.Zone == "us-east-1/use1-az1" && o.HasSpot {
			t.Errorf("replaced offer kept its old spot price %v", o.SpotPrice)
		}
	}
	if w := []string{"eu-west-1/euw1-az1", "us-east-1/use1-az1", "us-east-1/use1-az2"}; !reflect.DeepEqual(order, w) {
		t.Errorf("Offers order = %v, want %v", order, w)
	}
}

func testPutOffersIsAllOrNothing(t *testing.T, open Open) {
	ctx := context.Background()
	db := open(t)
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

func testOffersFilterByModel(t *testing.T, open Open) {
	ctx := context.Background()
	db := open(t)
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

func testPutInventory(t *testing.T, open Open) {
	ctx := context.Background()
	db := open(t)
	first := []gpucost.InventoryEntry{
		{ResourceID: "i-2", Host: "gpu-node-2", Provider: "AWS", InstanceType: "p4d.24xlarge", GPUModel: "A100-40GB", GPUs: 8,
			Tags: gpucost.Labels{"team": "ml", "cost-center": "a,b=c"}},
		{ResourceID: "i-1", Host: "gpu-node-1"},
		{ResourceID: "i-3", Host: "old", Tags: gpucost.Labels{}},
		{ResourceID: "i-3", Host: "gpu-node-3"}, // a later entry for the same resource wins
	}
	added, replaced, err := db.PutInventory(ctx, first)
	if err != nil || added != 3 || replaced != 0 {
		t.Fatalf("PutInventory(first) = %d added, %d replaced, %v; want 3, 0", added, replaced, err)
	}
	second := []gpucost.InventoryEntry{
		{ResourceID: "i-1", Host: "renamed", Tags: gpucost.Labels{"team": "infra"}},
		{ResourceID: "/subscriptions/s/vm-4", Host: "vm-4", Provider: "Microsoft", GPUs: 1, Tags: gpucost.Labels{}},
	}
	added, replaced, err = db.PutInventory(ctx, second)
	if err != nil || added != 1 || replaced != 1 {
		t.Fatalf("PutInventory(second) = %d added, %d replaced, %v; want 1, 1", added, replaced, err)
	}
	got, err := db.Inventory(ctx)
	want := []gpucost.InventoryEntry{second[1], second[0], first[0], first[3]}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("Inventory() = %+v, %v\nwant %+v", got, err, want)
	}
}

func testPutInventoryRejectsBadEntries(t *testing.T, open Open) {
	ctx := context.Background()
	db := open(t)
	for _, bad := range [][]gpucost.InventoryEntry{
		{{ResourceID: "i-1", Host: "a"}, {Host: "no-id"}},
		{{ResourceID: "i-1", Host: "a"}, {ResourceID: "i-2", GPUs: -1}},
	} {
		if _, _, err := db.PutInventory(ctx, bad); gpucost.ErrorCode(err) != gpucost.EInvalid {
			t.Errorf("PutInventory(%+v) = %v, want invalid", bad, err)
		}
	}
	if got, err := db.Inventory(ctx); err != nil || len(got) != 0 {
		t.Errorf("Inventory() after rejected puts = %+v, %v; want none", got, err)
	}
}
