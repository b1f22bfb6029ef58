package main

import (
	"context"
	"encoding/json"
	"io"
	"iter"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/file"
	"github.com/gpucost/gpucost/internal/storeopen"
	"github.com/gpucost/gpucost/spot"
)

// putSpotBill stores a daily bill in dir's store whose spot lines are g5.xlarge instances in
// us-east-1a of one workload (tag team=ml), days from 2026-11-10:
//
//	i-1    day 1 24 h, day 2 10 h: ended day 2 10:00
//	i-2    day 2 14 h, day 3 6 h: started day 2 10:00 (i-1's replacement), ended day 3 06:00
//	i-run  day 3 4 h: the run of writeRunEvents, which counts it
//
// and an on-demand line on day 5, so the bill goes on past them.
func putSpotBill(t *testing.T, dir string) {
	t.Helper()
	ctx := context.Background()
	db, err := storeopen.Open(ctx, filepath.Join(dir, "gpucost.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	t0 := time.Date(2026, 11, 10, 0, 0, 0, 0, time.UTC)
	line := func(id string, d int, hours float64, pricing string) gpucost.CostLine {
		start := t0.Add(time.Duration(d-1) * 24 * time.Hour)
		cost, _ := gpucost.ParseMoney("0.40", "USD")
		return gpucost.CostLine{Provider: "AWS", BillingAccountID: "1234", BillingPeriodStart: time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC),
			ChargePeriodStart: start, ChargePeriodEnd: start.Add(24 * time.Hour), ChargeCategory: "Usage", PricingCategory: pricing,
			BilledCost: cost.MulFloat(hours), EffectiveCost: cost.MulFloat(hours), ResourceID: id, InstanceType: "g5.xlarge",
			RegionID: "us-east-1", AvailabilityZone: "us-east-1a", ConsumedQuantity: hours, ConsumedUnit: "Hours",
			Tags: gpucost.Labels{"team": "ml"}}
	}
	lines := []gpucost.CostLine{line("i-1", 1, 24, "Dynamic"), line("i-1", 2, 10, "Dynamic"), line("i-2", 2, 14, "Dynamic"),
		line("i-2", 3, 6, "Dynamic"), line("i-run", 3, 4, "Dynamic"), line("i-od", 5, 24, "Standard")}
	seq := iter.Seq[*gpucost.CostLine](func(yield func(*gpucost.CostLine) bool) {
		for i := range lines {
			if !yield(&lines[i]) {
				return
			}
		}
	})
	imp := gpucost.CostImport{Name: "spot.csv", Checksum: strings.Repeat("ab", 32), Format: "focus", Grain: 24 * time.Hour,
		Providers: []string{"aws"}, ImportedAt: t0}
	if _, err := db.PutCosts(ctx, imp, seq, nil); err != nil {
		t.Fatal(err)
	}
}

// writeRunEvents stores one run of job c on spot instance i-run (g5.xlarge, us-east-1a,
// zone ID use1-az4) from 2026-11-12 00:00 for 4 h, with a terminate notice at 3.9 h.
func writeRunEvents(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	store, err := file.New(dir)
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2026, 11, 12, 0, 0, 0, 0, time.UTC)
	base := spot.Event{Job: "c", Run: "c1", Cloud: "aws", InstanceType: "g5.xlarge", Region: "us-east-1", Zone: "us-east-1a", ZoneID: "use1-az4",
		InstanceID: "i-run", Spot: true, Price: "0.40", OnDemand: "1.006"}
	start, notice, exit := base, base, base
	start.Kind, start.Time = spot.EventStart, t0
	notice.Kind, notice.Time, notice.NoticeKind = spot.EventNotice, t0.Add(234*time.Minute), "terminate"
	code := spot.ExitInterrupted
	exit.Kind, exit.Time, exit.ExitCode = spot.EventExit, t0.Add(4*time.Hour), &code
	for _, ev := range []spot.Event{start, notice, exit} {
		if err := spot.PutEvent(context.Background(), store, ev); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestReportSpotBill checks report spot over the bill of putSpotBill and the run of
// writeRunEvents, against hand counts: the bill's i-1 and i-2 ran 34 + 20 = 54 h and ended
// twice, i-1's end replaced by i-2 within the hour (1 interruption), i-2's by nothing; i-run is
// the run's 4 h and 1 interruption, not the bill's. So 2 interruptions in 58 h, 2/58 = 3.45%/h,
// at most 1 + 2 = 3; Garwood's upper bound χ²(0.975; 6) / 116 = 14.4494 / 116.
func TestReportSpotBill(t *testing.T) {
	dir := t.TempDir()
	putSpotBill(t, dir)
	events := writeRunEvents(t)
	code, out, errOut := runCLI(t, dir, "report", "spot", "--store", events, "--output", "json")
	if code != exitOK {
		t.Fatalf("report spot: exit %d, %s", code, errOut)
	}
	var pools []struct {
		Zone              string   `json:"zone"`
		From              string   `json:"from"`
		Runs              int      `json:"runs"`
		Hours             float64  `json:"instance_hours"`
		Interruptions     int      `json:"interruptions"`
		AtMost            int      `json:"interruptions_at_most"`
		BillHours         float64  `json:"bill_instance_hours"`
		BillInterruptions int      `json:"bill_interruptions"`
		BillEnds          int      `json:"bill_ends"`
		PerHour           float64  `json:"per_hour"`
		High              float64  `json:"high_per_hour"`
		Trend             *float64 `json:"price_trend"`
	}
	if err := json.Unmarshal([]byte(out), &pools); err != nil {
		t.Fatalf("report spot --output json: %v\n%s", err, out)
	}
	if len(pools) != 1 {
		t.Fatalf("report spot: %d pools, want 1:\n%s", len(pools), out)
	}
	p := pools[0]
	if p.From != "runs + bill" || p.Runs != 1 || p.Hours != 58 || p.Interruptions != 2 || p.AtMost != 3 || p.BillHours != 54 ||
		p.BillInterruptions != 1 || p.BillEnds != 2 || !near(p.PerHour, 2.0/58, 1e-9) || !near(p.High, 14.4494/116, 1e-5) || p.Trend != nil {
		t.Errorf("report spot = %+v; want runs + bill, 1 run, 58 h, 2 interruptions (at most 3), bill 54 h 1 of 2 ends, no trend", p)
	}
	code, out, errOut = runCLI(t, dir, "report", "spot", "--store", events)
	if code != exitOK {
		t.Fatalf("report spot: exit %d, %s", code, errOut)
	}
	for _, want := range []string{"us-east-1a (use1-az4)", "runs + bill", "2 (≤ 3)", "3.45%/h", "no history", "counted by their runs' events, not twice",
		"started within the hour after it"} {
		if !strings.Contains(out, want) {
			t.Errorf("report spot lacks %q:\n%s", want, out)
		}
	}
	// Without the bill: the run alone, 1 in 4 h.
	code, out, errOut = runCLI(t, dir, "report", "spot", "--store", events, "--bill-since", "none", "--output", "json")
	if code != exitOK || json.Unmarshal([]byte(out), &pools) != nil || len(pools) != 1 || pools[0].From != "runs" || pools[0].Hours != 4 || pools[0].Interruptions != 1 {
		t.Errorf("report spot --bill-since none: exit %d, %s %s; want the run alone, 1 in 4 h", code, out, errOut)
	}
	// The bill alone: i-run is the bill's then, a day-3 line of 4 h that may have started
	// between 00:00 and 20:00, so it may have replaced i-2 (ended 06:00): 2 interruptions in
	// 58 h, at most the 3 ends (i-1, i-2, i-run).
	code, out, errOut = runCLI(t, dir, "report", "spot", "--output", "json")
	if code != exitOK || json.Unmarshal([]byte(out), &pools) != nil || len(pools) != 1 || pools[0].From != "bill" || pools[0].Hours != 58 || pools[0].Interruptions != 2 || pools[0].AtMost != 3 {
		t.Errorf("report spot from the bill alone: exit %d, %s %s; want 2 in 58 h, at most 3", code, out, errOut)
	}
	code, _, errOut = runCLI(t, t.TempDir(), "report", "spot")
	if code == exitOK || !strings.Contains(errOut, "no --store given") {
		t.Errorf("report spot with nothing to read: exit %d, %s; want an error saying where it looked", code, errOut)
	}
}

func near(a, b, rel float64) bool { return a-b <= rel*b && b-a <= rel*b }

// TestReportSpotPriceTrend keeps spot prices as catalog refresh does and checks report spot's
// trend for the pool against hand computation: in the 30 days to 2026-12-02 the price was
// $0.40 for 3.5 days and $0.44 for 3.5 in the first week (mean $0.42), $0.48 and $0.44 for 3.5
// days each in the last (mean $0.46): +9.5%, up.
func TestReportSpotPriceTrend(t *testing.T) {
	dir := t.TempDir()
	now := time.Date(2026, 12, 2, 0, 0, 0, 0, time.UTC)
	e := &env{stdout: io.Discard, stderr: io.Discard, getenv: func(string) string { return "" }, dbPath: filepath.Join(dir, "gpucost.db"),
		now: func() time.Time { return now }}
	ctx := context.Background()
	for _, r := range []struct {
		daysAgo float64
		price   string
	}{{30, "0.40"}, {26.5, "0.44"}, {7, "0.48"}, {3.5, "0.44"}, {0, "0.44"}} {
		p, _ := gpucost.ParseMoney(r.price, "USD")
		at := now.Add(-time.Duration(r.daysAgo * 24 * float64(time.Hour)))
		note, err := e.keepSpotPrices(ctx, []gpucost.Offer{{Provider: "aws", Region: "us-east-1", Zone: "use1-az4", InstanceType: "g5.xlarge", SpotPrice: p, HasSpot: true, AsOf: at}})
		if err != nil || !strings.Contains(note, "1 zones' spot prices added") {
			t.Fatalf("keepSpotPrices(%v) = %q, %v", at, note, err)
		}
	}
	// The run records us-east-1a as use1-az4, which is how the history names the zone.
	code, out, errOut := runCLI(t, dir, "report", "spot", "--store", writeRunEvents(t), "--bill-since", "none")
	if code != exitOK || !strings.Contains(out, "$0.42 → $0.46 (+9.5%, up)") {
		t.Errorf("report spot: exit %d, %s\n%s; want the trend $0.42 → $0.46 (+9.5%%, up)", code, errOut, out)
	}
}

// TestPlanFleetZones checks that plan fleet matches the measured rate of g5.xlarge in
// us-east-1a (1 interruption in 10 h, writeSpotEvents) with the catalog's zone IDs: through a
// describe-availability-zones file it is use1-az4's alone; without one every zone of the
// region is unmatched and says so.
func TestPlanFleetZones(t *testing.T) {
	dir := t.TempDir()
	events := writeSpotEvents(t)
	zones := filepath.Join(dir, "zones.json")
	if err := os.WriteFile(zones, []byte(`{"AvailabilityZones": [{"ZoneName": "us-east-1a", "ZoneId": "use1-az4"}, {"ZoneName": "us-east-1b", "ZoneId": "use1-az2"}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{"plan", "fleet", "--gpu", "A10G", "--count", "8", "--region", "us-east-1", "--diversify", "4", "--events", events}
	risks := func(args []string) map[string]string {
		code, out, errOut := runCLI(t, dir, append(args, "--output", "json")...)
		if code != exitOK {
			t.Fatalf("%v: exit %d, %s", args, code, errOut)
		}
		var r struct {
			Options struct {
				PoolRisk []struct {
					Zone         string `json:"zone"`
					InstanceType string `json:"instance_type"`
					Source       string `json:"source"`
				} `json:"pool_risk"`
				ZoneNames map[string]string `json:"zone_names"`
			} `json:"options"`
		}
		if err := json.Unmarshal([]byte(out), &r); err != nil {
			t.Fatalf("%v: %v\n%s", args, err, out)
		}
		got := map[string]string{}
		for _, p := range r.Options.PoolRisk {
			if p.InstanceType == "g5.xlarge" {
				got[p.Zone] = p.Source
			}
		}
		if len(r.Options.ZoneNames) > 0 {
			got["names"] = r.Options.ZoneNames["use1-az4"]
		}
		return got
	}
	got := risks(append(args, "--zones", zones))
	if want := "measured on g5.xlarge us-east-1/use1-az4: 1 interruptions in 10.0 instance-hours"; !strings.HasPrefix(got["use1-az4"], want) {
		t.Errorf("plan fleet --zones: use1-az4 %q, want %q…", got["use1-az4"], want)
	}
	if _, ok := got["use1-az2"]; ok || got["names"] != "us-east-1a" {
		t.Errorf("plan fleet --zones: use1-az2 given %q, zone names %q; want no rate (us-east-1b is not measured), use1-az4 named us-east-1a", got["use1-az2"], got["names"])
	}
	got = risks(args)
	if !strings.Contains(got["use1-az2"], "zone unmatched: use1-az2 and the measured us-east-1a") {
		t.Errorf("plan fleet without --zones: use1-az2 %q, want zone unmatched said", got["use1-az2"])
	}
	code, out, errOut := runCLI(t, dir, args...)
	if code != exitOK || !strings.Contains(out, "could not be matched") {
		t.Errorf("plan fleet without --zones: exit %d, %s; want a note on the unmatched zones:\n%s", code, errOut, out)
	}
}
