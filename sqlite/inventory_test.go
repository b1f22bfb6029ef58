package sqlite

import (
	"context"
	"reflect"
	"testing"

	"github.com/gpucost/gpucost"
)

func TestPutInventory(t *testing.T) {
	ctx := context.Background()
	db := openCostDB(t)
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
		{ResourceID: "/subscriptions/s/vm-4", Host: "vm-4", Provider: "Microsoft", GPUs: 1},
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

func TestPutInventoryRejectsBadEntries(t *testing.T) {
	ctx := context.Background()
	db := openCostDB(t)
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
