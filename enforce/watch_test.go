package enforce

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/gpucost/gpucost/budget"
)

// TestWatcher runs the test policies twice as a dry run against the over-budget snapshot: the
// first run logs its planned actions, the second none again; an inventory that fails is logged
// with its secret redacted and the other inventory's resources are still acted on.
func TestWatcher(t *testing.T) {
	data, err := os.ReadFile("testdata/policies.yaml")
	if err != nil {
		t.Fatal(err)
	}
	snap := testSnapshot(t)
	var logs bytes.Buffer
	log := &memLog{}
	w := &Watcher{File: "policies.yaml", Data: data,
		Budgets: func(context.Context) ([]budget.Budget, string, error) { return snap.Budgets, "budgets.yaml", nil },
		Snapshot: func(context.Context, []budget.Budget) (Snapshot, error) {
			return Snapshot{Now: snap.Now, Budgets: snap.Budgets, Statuses: snap.Statuses}, nil
		},
		Inventories: []Inventory{inventory{rs: snap.Resources}, inventory{err: errors.New("token k8s-secret-token refused")}},
		Runner:      &Runner{Log: log, Now: func() time.Time { return now }, Secrets: []string{"k8s-secret-token"}},
		Log:         slog.New(slog.NewTextHandler(&logs, nil)),
	}
	w.Run(context.Background())
	first := len(log.entries)
	if first == 0 || strings.Count(logs.String(), "policy triggered") != 2 || !strings.Contains(logs.String(), "token [redacted] refused") ||
		strings.Contains(logs.String(), "k8s-secret-token") {
		t.Fatalf("first run: %d actions logged; log:\n%s", first, logs.String())
	}
	for _, e := range log.entries {
		if !e.Action.DryRun || e.Action.Result != ResultPlanned {
			t.Errorf("dry run logged %+v", e.Action)
		}
	}
	w.Run(context.Background())
	if len(log.entries) != first {
		t.Errorf("second run logged %d more actions, want none: the same dry run", len(log.entries)-first)
	}

	logs.Reset()
	w.Budgets = func(context.Context) ([]budget.Budget, string, error) { return nil, "", nil }
	w.Run(context.Background())
	if !strings.Contains(logs.String(), "the policies do not match the budgets of none yet; nothing enforced") {
		t.Errorf("run without budgets: log:\n%s", logs.String())
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	logs.Reset()
	w.Run(ctx)
	if logs.Len() != 0 {
		t.Errorf("run with a done context logged:\n%s", logs.String())
	}
}
