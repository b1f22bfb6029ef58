package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"path/filepath"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/demo"
	"github.com/gpucost/gpucost/sqlite"
	"github.com/gpucost/gpucost/telemetry"
)

// retypedStore is a store of two weeks to now of the demo's research machines relaunched on a
// smaller instance type at at (retypedFleet), its bill imported.
func retypedStore(t *testing.T, now, at time.Time) string {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	path, bill := filepath.Join(dir, "gpucost.db"), filepath.Join(dir, "bill.focus.csv")
	fleet := retypedFleet(at)
	load := demo.Load{End: now, Days: 14}
	db, err := sqlite.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	w := &telemetry.Writer{Store: db, IdleBelow: 5, Now: func() time.Time { return now }}
	if _, err := load.ImportTelemetry(ctx, w, fleet, func() {}); err != nil {
		t.Fatal(err)
	}
	if err := load.WriteBill(ctx, db, bill, fleet); err != nil {
		t.Fatal(err)
	}
	if _, _, err := db.PutInventory(ctx, demo.Inventory(fleet)); err != nil {
		t.Fatal(err)
	}
	if code, _, errOut := runAt(t, path, now, "import", "billing", bill); code != exitOK {
		t.Fatalf("import billing: exit %d\n%s", code, errOut)
	}
	return path
}

// GET /api/v1/recommendations/detected is recommend applied --detect --output json on the same
// store, before and after --record records the change it finds (query.DetectedSteps computes
// both); its JSON is the API golden the schema validates.
func TestDetectedAPIMatchesCLI(t *testing.T) {
	if testing.Short() {
		t.Skip("imports two weeks of telemetry")
	}
	at := demoNow.AddDate(0, 0, -6)
	path := retypedStore(t, demoNow, at)
	s := startViewServer(t, path, serveOptions{flush: time.Second, viewsEvery: time.Minute, maxBill: 1 << 20})
	const apiPath = "/api/v1/recommendations/detected?since=14d"
	compare := func(when string, recorded bool) []byte {
		t.Helper()
		code, cli, errOut := runAt(t, path, demoNow, "recommend", "applied", "--detect", "--since", "14d", "--output", "json")
		if code != exitOK {
			t.Fatalf("%s: recommend applied --detect: exit %d\n%s", when, code, errOut)
		}
		status, api := s.do(t, "GET", apiPath, gpucost.RoleViewer, nil)
		if status != http.StatusOK {
			t.Fatalf("%s: GET %s = %d %s", when, apiPath, status, api)
		}
		var a, b bytes.Buffer
		if err := json.Compact(&a, []byte(cli)); err != nil {
			t.Fatalf("%s: --detect --output json: %v\n%s", when, err, cli)
		}
		if err := json.Compact(&b, api); err != nil {
			t.Fatalf("%s: GET %s: %v\n%s", when, apiPath, err, api)
		}
		if !bytes.Equal(a.Bytes(), b.Bytes()) {
			t.Errorf("%s: GET %s =\n%s\nwant what recommend applied --detect prints:\n%s", when, apiPath, b.Bytes(), a.Bytes())
		}
		var changes []struct {
			Step     string
			At       time.Time
			Recorded bool
		}
		if err := json.Unmarshal(api, &changes); err != nil || len(changes) != 1 || changes[0].Step != "research-p3.8xlarge/right-sizing/p3.2xlarge" ||
			!changes[0].At.Equal(at) || changes[0].Recorded != recorded {
			t.Fatalf("%s: GET %s = %s; want research's change on %v naming its right-sizing step, recorded %v", when, apiPath, api, at, recorded)
		}
		return api
	}
	checkGolden(t, "api-recommendations-detected", compare("before --record", false))
	if code, _, errOut := runAt(t, path, demoNow, "recommend", "applied", "--detect", "--record", "--since", "14d"); code != exitOK {
		t.Fatalf("recommend applied --detect --record: exit %d\n%s", code, errOut)
	}
	compare("after --record", true)
}
