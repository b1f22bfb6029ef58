package query_test

import (
	"context"
	"slices"
	"testing"

	"github.com/gpucost/gpucost/internal/storetest"
	"github.com/gpucost/gpucost/query"
)

func TestMonthsAndLabelKeys(t *testing.T) {
	ctx := context.Background()
	db := openStore(t)
	months, err := query.Months(ctx, db)
	want := []string{storetest.RollT0.UTC().Format("2006-01")}
	if err != nil || !slices.Equal(months, want) {
		t.Errorf("Months(an hour of telemetry, no bill) = %v, %v; want %v", months, err, want)
	}
	keys, err := query.LabelKeys(ctx, db)
	if err != nil || !slices.Equal(keys, []string{"namespace"}) {
		t.Errorf("LabelKeys = %v, %v; want [namespace]", keys, err)
	}
	if months, err := query.Months(ctx, struct{}{}); months != nil || err != nil {
		t.Errorf("Months(a store that cannot say) = %v, %v; want none", months, err)
	}
}
