package main

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/billing/focus"
	"github.com/gpucost/gpucost/catalog"
	"github.com/gpucost/gpucost/demo"
	"github.com/gpucost/gpucost/sqlite"
	"github.com/gpucost/gpucost/telemetry"
)

// committedBill writes the fleet's demo bill as demo.Load.WriteBill does, except that from
// from on a savings plan covers the training machine's hours: its lines are Committed, bill
// nothing and cost 60% of on-demand, amortised. It returns the machine's on-demand hourly price.
func committedBill(t *testing.T, ctx context.Context, db gpucost.OfferStore, load demo.Load, path string, fleet []demo.Instance, from time.Time) gpucost.Money {
	t.Helper()
	cat, err := catalog.Load(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	price := func(instanceType string) (gpucost.Money, bool) {
		for _, o := range cat.Offers() {
			if o.Provider == "aws" && o.Region == "us-east-1" && o.InstanceType == instanceType && o.HasOnDemand {
				return o.OnDemand, true
			}
		}
		return gpucost.Money{}, false
	}
	var train demo.Instance
	for _, in := range fleet {
		if in.Namespace == "training" {
			train = in
		}
	}
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w, err := focus.NewWriter(f, focus.WriterOptions{Format: focus.CSV})
	if err != nil {
		t.Fatal(err)
	}
	err = demo.Bill(fleet, load.From(), load.End, price, func(l *gpucost.CostLine) error {
		if l.ResourceID == train.InstanceID() && !l.ChargePeriodStart.Before(from) {
			l.PricingCategory, l.CommitmentDiscountID, l.CommitmentDiscountStatus = "Committed", "arn:aws:savingsplans::111122223333:savingsplan/sp-demo", "Used"
			l.CommitmentDiscountType, l.CommitmentDiscountCategory = "Compute Savings Plan", "Spend"
			l.BilledCost, l.EffectiveCost = gpucost.USD(0), l.EffectiveCost.MulFloat(0.6)
		}
		return w.Write(l)
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	p, ok := price(train.InstanceType)
	if !ok {
		t.Fatalf("no on-demand price of %s in us-east-1", train.InstanceType)
	}
	return p
}

// The demo fleet's evaluation machine released when its job ends (demo.Load.Applied) and a
// savings plan that starts covering the training machine (the two alone, for speed): recommend applied --detect finds
// both on the bill, names the plan's release and commitment steps, --record records them, and
// report savings --realized measures them.
func TestDetectFewerGPUsAndCommitment(t *testing.T) {
	if testing.Short() {
		t.Skip("imports four weeks of telemetry")
	}
	ctx := context.Background()
	// From a Monday noon: the evaluation job bills that afternoon, the whole next Monday, and
	// from the following one on only its 8 working hours (demo.Load.AppliedAt).
	load := demo.Load{End: time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC), Days: 29}
	now := load.End
	if at, ok := load.AppliedAt(); !ok || !at.Equal(time.Date(2026, 11, 3, 0, 0, 0, 0, time.UTC)) {
		t.Fatalf("AppliedAt() = %v, %v; want 2026-11-03, true", at, ok)
	}
	committed := time.Date(2026, 11, 10, 0, 0, 0, 0, time.UTC)
	dir := t.TempDir()
	path, bill := filepath.Join(dir, "gpucost.db"), filepath.Join(dir, "bill.focus.csv")
	var fleet []demo.Instance
	for _, in := range load.Applied(demo.Fleet()) {
		if in.Namespace == "eval" || in.Namespace == "training" {
			fleet = append(fleet, in)
		}
	}
	db, err := sqlite.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	w := &telemetry.Writer{Store: db, IdleBelow: 5, Now: func() time.Time { return now }}
	if _, err := load.ImportTelemetry(ctx, w, fleet, func() {}); err != nil {
		t.Fatal(err)
	}
	hourly := committedBill(t, ctx, db, load, bill, fleet, committed)
	if _, _, err := db.PutInventory(ctx, demo.Inventory(fleet)); err != nil {
		t.Fatal(err)
	}
	db.Close()
	if code, _, errOut := runAt(t, path, now, "import", "billing", bill); code != exitOK {
		t.Fatalf("import billing: exit %d\n%s", code, errOut)
	}

	code, out, errOut := runAt(t, path, now, "recommend", "applied", "--detect", "--record", "--since", "29d", "--output", "json")
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
	// The evaluation machine billed 8 GPUs for 12 hours on the first Monday and 24 on the
	// second, 144 GPU-hours a Monday; the 15 days from the third Monday hold 3 Mondays: 432
	// GPU-hours at that level, 1.2 GPUs a day, and 3 × 8 GPUs × 8 hours as billed, 0.533.
	want := []struct{ ns, kind, how, step string }{
		{"eval", "fewer-gpus", "detected: fewer GPUs billed, 1.2→0.533 a day on average", "eval-p4d.24xlarge/right-sizing/release-on-exit"},
		{"training", "commitment", "detected: a commitment appeared on p5.48xlarge (sp-demo)", "training-p5.48xlarge/commitments/"},
	}
	wantAt := []time.Time{time.Date(2026, 11, 9, 0, 0, 0, 0, time.UTC), committed}
	if len(changes) != len(want) {
		t.Fatalf("--detect = %+v; want %d changes", changes, len(want))
	}
	for i, w := range want {
		c := changes[i]
		if c.Namespace != w.ns || c.Kind != w.kind || c.How != w.how || !c.At.Equal(wantAt[i]) || !strings.HasPrefix(c.Step, w.step) || !c.Recorded {
			t.Errorf("--detect[%d] = %+v; want %s %s %q at %v, step %s…, recorded", i, c, w.ns, w.kind, w.how, wantAt[i], w.step)
		}
	}
	code, out, _ = runAt(t, path, now, "recommend", "applied", "--detect", "--since", "29d")
	if code != exitOK || !strings.Contains(out, "fewer GPUs billed, 1.2→0.533") || !strings.Contains(out, "a commitment appeared on p5.48xlarge") {
		t.Errorf("recommend applied --detect = exit %d\n%s\nwant both changes", code, out)
	}

	code, out, errOut = runAt(t, path, now, "report", "savings", "--realized", "--output", "json")
	if code != exitOK {
		t.Fatalf("report savings --realized: exit %d\n%s", code, errOut)
	}
	var rep struct{ Steps []realizedJSON }
	if err := json.Unmarshal([]byte(out), &rep); err != nil || len(rep.Steps) != 2 {
		t.Fatalf("report savings --realized = %s, %v; want two steps", out, err)
	}
	for _, s := range rep.Steps {
		if s.Status != "measured" {
			t.Errorf("step %s: %s (%s), want measured", s.ID, s.Status, s.Note)
		}
		realized := mustMoney(t, s.Realized)
		if !strings.Contains(s.ID, "/commitments/") {
			if realized.Nanos <= 0 {
				t.Errorf("step %s: realized %s, want a saving", s.ID, s.Realized)
			}
			continue
		}
		// The same work at 60% of the price: 40% of a 730-hour month on demand, near it
		// since the work of a day varies a little.
		wantSaving := float64(hourly.Nanos) / 1e9 * 0.4 * 730
		if got := float64(realized.Nanos) / 1e9; math.Abs(got-wantSaving) > 0.03*wantSaving {
			t.Errorf("step %s: realized %.2f, want about %.2f (40%% of %s/h × 730 h)", s.ID, got, wantSaving, hourly.Dollars())
		}
	}
}
