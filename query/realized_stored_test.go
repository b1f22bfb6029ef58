package query_test

import (
	"context"
	"errors"
	"testing"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/internal/storetest"
	"github.com/gpucost/gpucost/query"
	"github.com/gpucost/gpucost/sqlite"
)

// stepsFail is a store whose applied steps cannot be read.
type stepsFail struct{ *sqlite.DB }

func (stepsFail) AppliedSteps(context.Context) ([]gpucost.AppliedStep, error) {
	return nil, errors.New("steps unreadable")
}

func TestStoredRealized(t *testing.T) {
	ctx := context.Background()
	db := openStore(t)
	rep, err := query.StoredRealized(ctx, db, storetest.RollT0, "aws")
	if err != nil || len(rep.Steps) != 0 {
		t.Errorf("StoredRealized(no step recorded) = %d steps, %v; want none", len(rep.Steps), err)
	}
	if _, err := query.StoredRealized(ctx, stepsFail{db}, storetest.RollT0, "aws"); err == nil || err.Error() != "steps unreadable" {
		t.Errorf("StoredRealized(steps unreadable) = %v; want the store's error", err)
	}
}
