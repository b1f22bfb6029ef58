package main

import (
	"context"
	"encoding/json"
	"math"
	"math/rand/v2"
	"path/filepath"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/demo"
	"github.com/gpucost/gpucost/sqlite"
	"github.com/gpucost/gpucost/telemetry"
)

// retypedFleet is two of the demo's research machines, p3.8xlarge (4 × V100) that use one
// GPU, relaunched as p3.2xlarge (1 × V100) at at: new instances, new hosts, the same work.
func retypedFleet(at time.Time) []demo.Instance {
	var out []demo.Instance
	for _, in := range demo.Fleet() {
		if in.Namespace != "research" || len(out) == 4 {
			continue
		}
		old, work := in, in.Workload
		old.Workload = func(gpu int, t time.Time, r *rand.Rand) (float64, float64, bool) {
			u, m, ok := work(gpu, t, r)
			return u, m, ok && t.Before(at)
		}
		small := in
		small.Host, small.InstanceType, small.GPUs = in.Host+"-small", "p3.2xlarge", 1
		small.Workload = func(gpu int, t time.Time, r *rand.Rand) (float64, float64, bool) {
			u, m, ok := work(gpu, t, r)
			return u, m, ok && !t.Before(at)
		}
		out = append(out, old, small)
	}
	return out
}

// A namespace's machines relaunched on a smaller instance type: recommend applied --detect
// finds the change on the bill and names the plan's step that made it, --record records it,
// and report savings --realized measures it against the plan's prediction.
func TestDetectInstanceTypeChange(t *testing.T) {
	if testing.Short() {
		t.Skip("imports two weeks of telemetry")
	}
	ctx := context.Background()
	now := time.Date(2026, 11, 21, 0, 0, 0, 0, time.UTC)
	at := now.AddDate(0, 0, -6)
	dir := t.TempDir()
	path, bill := filepath.Join(dir, "gpucost.db"), filepath.Join(dir, "bill.focus.csv")
	fleet := retypedFleet(at)
	load := demo.Load{End: now, Days: 14}
	db, err := sqlite.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
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
	db.Close()
	if code, _, errOut := runAt(t, path, now, "import", "billing", bill); code != exitOK {
		t.Fatalf("import billing: exit %d\n%s", code, errOut)
	}

	code, out, errOut := runAt(t, path, now, "recommend", "applied", "--detect", "--record", "--since", "14d", "--output", "json")
	if code != exitOK {
		t.Fatalf("recommend applied --detect --record: exit %d\n%s", code, errOut)
	}
	var changes []struct {
		Namespace, Kind, From, To, How, Step string
		At                                   time.Time
		Recorded                             bool
	}
	if err := json.Unmarshal([]byte(out), &changes); err != nil {
		t.Fatalf("--detect --output json: %v\n%s", err, out)
	}
	const step = "research-p3.8xlarge/right-sizing/p3.2xlarge"
	if len(changes) != 1 || changes[0].Namespace != "research" || changes[0].How != "detected: instance type changed p3.8xlarge→p3.2xlarge" ||
		!changes[0].At.Equal(at) || changes[0].Step != step || !changes[0].Recorded {
		t.Fatalf("--detect = %+v; want research's change to p3.2xlarge on %v, step %s, recorded", changes, at, step)
	}
	if code, out, _ := runAt(t, path, now, "recommend", "applied", "--detect", "--since", "14d", "--output", "json"); code != exitOK || json.Unmarshal([]byte(out), &changes) != nil ||
		len(changes) != 1 || !changes[0].Recorded {
		t.Errorf("--detect again = %s; want the change, recorded already", out)
	}

	code, out, errOut = runAt(t, path, now, "report", "savings", "--realized", "--output", "json")
	if code != exitOK {
		t.Fatalf("report savings --realized: exit %d\n%s", code, errOut)
	}
	var rep struct{ Steps []realizedJSON }
	if err := json.Unmarshal([]byte(out), &rep); err != nil || len(rep.Steps) != 1 {
		t.Fatalf("report savings --realized = %s, %v; want one step", out, err)
	}
	s := rep.Steps[0]
	if s.ID != step || s.Status != "measured" || s.Days != 6 || s.AfterDays != 6 {
		t.Fatalf("step = %+v; want %s measured over 6 days", s, step)
	}
	// Two machines, each $12.24 − $3.06 an hour cheaper for the same work, a 730-hour month:
	// $13,402.80; the work of a day varies a little, so the measure is near it.
	predicted, realized := mustMoney(t, s.Predicted), mustMoney(t, s.Realized)
	for name, m := range map[string]gpucost.Money{"predicted": predicted, "realized": realized} {
		if got := float64(m.Nanos) / 1e9; math.Abs(got-13402.80) > 0.03*13402.80 {
			t.Errorf("%s = %.2f, want about 13,402.80 (2 × $9.18/h × 730 h)", name, got)
		}
	}
}
