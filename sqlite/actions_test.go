package sqlite_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/enforce"
	"github.com/gpucost/gpucost/sqlite"
)

var actionTime = time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)

// TestActionLogSurvivesReopen checks that the action log outlives the connection.
func TestActionLogSurvivesReopen(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "gpucost.db")
	db, err := sqlite.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	a := enforce.Action{Policy: "p", Action: enforce.ActTag, Result: enforce.ResultPlanned, DryRun: true,
		Resource: &enforce.Ref{Kind: enforce.KindEC2, ID: "i-1"}, Tags: map[string]string{"gpucost-policy": "p"}}
	if _, err := (enforce.Log{Store: db}).RecordAction(ctx, actionTime, a); err != nil {
		t.Fatal(err)
	}
	db.Close()
	db, err = sqlite.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	got, err := enforce.Log{Store: db}.Actions(ctx, gpucost.ActionFilter{})
	if err != nil || len(got) != 1 || got[0].Action.Tags["gpucost-policy"] != "p" || !got[0].Action.DryRun {
		t.Fatalf("after reopen: %+v, %v", got, err)
	}
}
