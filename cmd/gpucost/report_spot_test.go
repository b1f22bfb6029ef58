package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gpucost/gpucost/demo"
	"github.com/gpucost/gpucost/file"
	"github.com/gpucost/gpucost/spot"
)

// writeSpotEvents stores two jobs' runs: job a ran 4 h on g5.xlarge in us-east-1a and was
// interrupted (notice 3 minutes before the end), then 6 h there to the end; job b ran 10 h on g6e.2xlarge in us-west-2b with one
// interruption at 5 h, then 5 h more. Prices $0.40 (g5) and $0.90 (g6e) an hour, on demand
// $1.006 and $2.242.
func writeSpotEvents(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	store, err := file.New(dir)
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC)
	put := func(job, run, typ, region, zone, price, od string, from, hours, notice float64) {
		at := func(h float64) time.Time { return t0.Add(time.Duration(h * float64(time.Hour))) }
		base := spot.Event{Job: job, Run: run, Host: run, Cloud: "aws", InstanceType: typ, Region: region, Zone: zone, Spot: true, Price: price, OnDemand: od}
		start := base
		start.Kind, start.Time = spot.EventStart, at(from)
		evs := []spot.Event{start}
		code := spot.ExitDone
		if notice > 0 {
			n := base
			n.Kind, n.Time, n.NoticeKind = spot.EventNotice, at(from+notice), "terminate"
			evs = append(evs, n)
			code = spot.ExitInterrupted
		}
		exit := base
		exit.Kind, exit.Time, exit.ExitCode = spot.EventExit, at(from+hours), &code
		evs = append(evs, exit)
		for _, ev := range evs {
			if err := spot.PutEvent(context.Background(), store, ev); err != nil {
				t.Fatal(err)
			}
		}
	}
	put("a", "a1", "g5.xlarge", "us-east-1", "us-east-1a", "0.40", "1.006", 0, 4, 3.95)
	put("a", "a2", "g5.xlarge", "us-east-1", "us-east-1a", "0.40", "1.006", 4, 6, 0)
	put("b", "b1", "g6e.2xlarge", "us-west-2", "us-west-2b", "0.90", "2.242", 0, 5, 4.95)
	put("b", "b2", "g6e.2xlarge", "us-west-2", "us-west-2b", "0.90", "2.242", 5, 5, 0)
	return dir
}

func TestReportSpot(t *testing.T) {
	events := writeSpotEvents(t)
	dir := t.TempDir()
	code, out, errOut := runCLI(t, dir, "catalog", "import", "--format", "aws-spot-advisor", filepath.Join("..", "..", "catalog", "testdata", "spot-advisor-data.json"))
	if code != exitOK {
		t.Fatalf("catalog import --format aws-spot-advisor: exit %d, %s", code, errOut)
	}
	for _, want := range []string{"<5%", "5-10%", ">20%", "6 Linux pools in 2 regions"} {
		if !strings.Contains(out+errOut, want) {
			t.Errorf("catalog import --format aws-spot-advisor output lacks %q:\n%s", want, out)
		}
	}
	code, out, errOut = runCLI(t, dir, "report", "spot", "--store", events, "--output", "json")
	if code != exitOK {
		t.Fatalf("report spot: exit %d, %s", code, errOut)
	}
	var pools []struct {
		InstanceType  string  `json:"instance_type"`
		Runs          int     `json:"runs"`
		InstanceHours float64 `json:"instance_hours"`
		Interruptions int     `json:"interruptions"`
		PerHour       float64 `json:"per_hour"`
		High          float64 `json:"high_per_hour"`
		Advisor       string  `json:"advisor_bucket"`
		Cost          string  `json:"cost"`
		OnDemand      string  `json:"on_demand"`
		Saving        string  `json:"saving"`
	}
	if err := json.Unmarshal([]byte(out), &pools); err != nil {
		t.Fatalf("report spot --output json: %v\n%s", err, out)
	}
	if len(pools) != 2 {
		t.Fatalf("report spot: %d pools, want 2:\n%s", len(pools), out)
	}
	// g5.xlarge: 10 instance-hours, 1 interruption, 0.1/h; the interrupted 4 h stored no
	// checkpoint, so 6 h are kept: cost 10 × 0.40 = 4.00, on demand 6 × 1.006 = 6.036.
	// Garwood's upper bound for 1 in 10 h: χ²(0.975; 4) / 20 = 11.1433 / 20.
	g5 := pools[0]
	if g5.InstanceType != "g5.xlarge" || g5.Runs != 2 || g5.InstanceHours != 10 || g5.Interruptions != 1 || g5.PerHour != 0.1 ||
		g5.Advisor != "5-10%" || g5.Cost != "4" || g5.OnDemand != "6.036" || g5.Saving != "2.036" {
		t.Errorf("report spot g5.xlarge = %+v", g5)
	}
	if g5.High < 0.5571 || g5.High > 0.5572 {
		t.Errorf("report spot g5.xlarge upper bound = %v, want 11.1433/20 = 0.55716", g5.High)
	}
	// g6e.2xlarge in us-west-2: bucket 10-15%; cost 10 × 0.90 = 9, on demand 5 × 2.242 = 11.21.
	if g6 := pools[1]; g6.Advisor != "10-15%" || g6.Cost != "9" || g6.OnDemand != "11.21" || g6.Saving != "2.21" {
		t.Errorf("report spot g6e.2xlarge = %+v", g6)
	}
}

func TestPlanCheckpointRateAuto(t *testing.T) {
	events := writeSpotEvents(t)
	dir := t.TempDir()
	if code, _, errOut := runCLI(t, dir, "catalog", "import", "--format", "aws-spot-advisor", filepath.Join("..", "..", "catalog", "testdata", "spot-advisor-data.json")); code != exitOK {
		t.Fatalf("catalog import: exit %d, %s", code, errOut)
	}
	cases := []struct {
		name string
		args []string
		want []string
		mtbi string
	}{
		// measured: 1 interruption in 10 h, M = 10 h
		{"measured", []string{"--instance-type", "g5.xlarge", "--region", "us-east-1", "--events", events}, []string{"measured on g5.xlarge us-east-1: 1 interruptions in 10.0 instance-hours"}, "10h0m0s"},
		// advisor: g5.12xlarge in us-east-1 is 15-20% (16–22% a month, middle 19%):
		// M = 730 h / −ln(0.81) = 3464.4 h
		{"advisor", []string{"--interruption-rate", "auto", "--instance-type", "g5.12xlarge", "--region", "us-east-1"}, []string{"Spot Instance Advisor bucket 15-20%"}, "3464h"},
	}
	for _, c := range cases {
		args := append([]string{"plan", "checkpoint", "--checkpoint-time", "1m", "--restart", "5m"}, c.args...)
		code, out, errOut := runCLI(t, dir, args...)
		if code != exitOK {
			t.Fatalf("%s: %v: exit %d, %s", c.name, args, code, errOut)
		}
		for _, w := range append(c.want, c.mtbi) {
			if !strings.Contains(out, w) {
				t.Errorf("%s: %v output lacks %q:\n%s", c.name, args, w, out)
			}
		}
	}
	code, _, errOut := runCLI(t, dir, "plan", "checkpoint", "--checkpoint-time", "1m", "--interruption-rate", "auto", "--instance-type", "p5.48xlarge", "--region", "us-east-1")
	if code == exitOK || !strings.Contains(errOut, "catalog import --format aws-spot-advisor") {
		t.Errorf("plan checkpoint --interruption-rate auto on an unknown pool: exit %d, %s; want an error saying how to add data", code, errOut)
	}
}

func TestRefreshSpotAdvisor(t *testing.T) {
	fixture, err := os.ReadFile(filepath.Join("..", "..", "catalog", "testdata", "spot-advisor-data.json"))
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/spot-advisor-data.json" {
			http.NotFound(w, r)
			return
		}
		w.Write(fixture)
	}))
	defer srv.Close()
	dir := t.TempDir()
	e := &env{stdout: io.Discard, stderr: io.Discard, getenv: func(string) string { return "" }, dbPath: filepath.Join(dir, "gpucost.db"),
		now: func() time.Time { return time.Date(2026, 12, 2, 0, 0, 0, 0, time.UTC) }}
	ctx := context.Background()
	if note := e.refreshSpotAdvisor(ctx, srv.URL); !strings.Contains(note, "6 Linux pools in 2 regions") {
		t.Errorf("refreshSpotAdvisor(%s) = %q, want the pools kept", srv.URL, note)
	}
	adv, err := spotAdvisor(ctx, e)
	if err != nil {
		t.Fatal(err)
	}
	if b, _, ok := adv.Lookup("us-west-2", "g6e.2xlarge"); !ok || b.Label != "10-15%" {
		t.Errorf("after refresh, Lookup(us-west-2, g6e.2xlarge) = %+v, %v; want 10-15%%", b, ok)
	}
	if note := e.refreshSpotAdvisor(ctx, srv.URL+"/missing"); !strings.Contains(note, "not refreshed") || !strings.Contains(note, "404") {
		t.Errorf("refreshSpotAdvisor(404) = %q, want a note that keeps the earlier data", note)
	}
}

// TestPlanFleetRisk checks that plan fleet names the advisor's rate of each g5.xlarge pool
// (5-10% a month, middle 8%: −ln 0.92 / 730 = 0.0114%/h) once the advisor data is imported.
func TestPlanFleetRisk(t *testing.T) {
	dir := t.TempDir()
	if code, _, errOut := runCLI(t, dir, "catalog", "import", "--format", "aws-spot-advisor", filepath.Join("..", "..", "catalog", "testdata", "spot-advisor-data.json")); code != exitOK {
		t.Fatalf("catalog import: exit %d, %s", code, errOut)
	}
	code, out, errOut := runCLI(t, dir, "plan", "fleet", "--gpu", "A10G", "--count", "8", "--region", "us-east-1", "--diversify", "4")
	if code != exitOK {
		t.Fatalf("plan fleet: exit %d, %s", code, errOut)
	}
	for _, want := range []string{"g5.xlarge: 0.0114%/h (Spot Instance Advisor bucket 5-10%", "Expected interruptions"} {
		if !strings.Contains(out, want) {
			t.Errorf("plan fleet output lacks %q:\n%s", want, out)
		}
	}
	if code, _, errOut := runCLI(t, dir, "plan", "fleet", "--gpu", "A10G", "--count", "8", "--interruption-rate", "5%/h"); code == exitOK || !strings.Contains(errOut, "auto") {
		t.Errorf("plan fleet --interruption-rate 5%%/h: exit %d, %s; want an error naming auto and none", code, errOut)
	}
}

// TestPlanAutoscaleRateAuto checks that naming the spot pool takes its rate from data: the
// advisor's 5-10% bucket for g5.xlarge in us-east-1 (0.0114%/h), and the measured 0.1/h (1
// interruption in 10 instance-hours) once the job events are given.
func TestPlanAutoscaleRateAuto(t *testing.T) {
	dir := t.TempDir()
	if code, _, errOut := runCLI(t, dir, "catalog", "import", "--format", "aws-spot-advisor", filepath.Join("..", "..", "catalog", "testdata", "spot-advisor-data.json")); code != exitOK {
		t.Fatalf("catalog import: exit %d, %s", code, errOut)
	}
	args := []string{"plan", "autoscale", "--trace", azureHead, "--service-time", "1s", "--slo", "p99=5s", "--policy", "static", "--replicas", "12",
		"--spot-share", "50%", "--spot-price", "1.00", "--price", "2.50", "--instance-type", "g5.xlarge", "--region", "us-east-1"}
	for _, c := range []struct {
		extra []string
		want  string
	}{
		{nil, "Spot interruptions 0.0114%/h per replica: Spot Instance Advisor bucket 5-10%"},
		{[]string{"--events", writeSpotEvents(t)}, "Spot interruptions 10%/h per replica: measured on g5.xlarge us-east-1: 1 interruptions in 10.0 instance-hours"},
	} {
		code, out, errOut := runCLI(t, dir, append(args, c.extra...)...)
		if code != exitOK {
			t.Fatalf("plan autoscale %v: exit %d, %s", c.extra, code, errOut)
		}
		if !strings.Contains(out, c.want) {
			t.Errorf("plan autoscale %v output lacks %q:\n%s", c.extra, c.want, out)
		}
	}
}

// TestReportSpotAlert runs report spot over the demo's spot jobs ending at runCLI's clock: in
// the 6 hours before it llm-finetune's pool took 3 notices in 5.2 instance-hours (0.577/h), so
// the alert names it, is sent to a webhook, and is not sent again on a second run.
func TestReportSpotAlert(t *testing.T) {
	events := t.TempDir()
	store, err := file.New(events)
	if err != nil {
		t.Fatal(err)
	}
	load := demo.Load{End: time.Date(2026, 12, 2, 0, 0, 0, 0, time.UTC), Days: 30}
	if _, err := load.WriteSpotJobs(context.Background(), store); err != nil {
		t.Fatal(err)
	}
	var got []string
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		got = append(got, string(b))
	}))
	defer hook.Close()
	dir := t.TempDir()
	targets := filepath.Join(dir, "targets.yaml")
	if err := os.WriteFile(targets, []byte("targets:\n  ops:\n    webhook:\n      url: "+hook.URL+"\n      secret: s3cr3t-for-the-test\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	want := "Spot interruptions: aws g5.12xlarge us-east-1/us-east-1a had 3 in 5.2 instance-hours"
	for run := 1; run <= 2; run++ {
		code, out, errOut := runCLI(t, dir, "report", "spot", "--store", events, "--targets", targets)
		if code != exitOK {
			t.Fatalf("report spot --targets (run %d): exit %d, %s", run, code, errOut)
		}
		for _, w := range []string{want, "57.7%/h", "llm-finetune", "Move to aws g5.12xlarge us-east-1/us-east-1c"} {
			if !strings.Contains(out, w) {
				t.Errorf("report spot (run %d) lacks %q:\n%s", run, w, out)
			}
		}
	}
	if len(got) != 1 || !strings.Contains(got[0], "us-east-1a") {
		t.Errorf("webhook got %d alerts %q, want the one alert once", len(got), got)
	}
}
