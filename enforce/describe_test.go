package enforce

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/budget"
	"github.com/gpucost/gpucost/notify"
)

func TestActionSummary(t *testing.T) {
	spotCap := 2
	for _, tc := range []struct {
		name string
		a    Action
		want string
	}{
		{"budget", Action{Tags: map[string]string{"gpucost-policy": "over"}, Evidence: Evidence{Budget: "research-gpus", Period: "2026-11",
			Measure: budget.KindActual, Percent: 104.96, ForecastPercent: 130, Over: 100, ScopeTags: map[string]string{"team": "research", "env": "x"}}},
			"research-gpus 2026-11 actual 105.0% ≥ 100%; matched env=x,team=research; sets gpucost-policy=over"},
		{"forecast", Action{Evidence: Evidence{Budget: "serving", Period: "2026-11", Measure: budget.KindForecast, Percent: 50, ForecastPercent: 121.04, Over: 120}},
			"serving 2026-11 forecast 121.0% ≥ 120%"},
		{"spot cap", Action{Evidence: Evidence{SpotCap: &spotCap, SpotCount: 4, Rank: 1}}, "spot 4 > cap 2, newest #1"},
		{"nothing", Action{}, ""},
	} {
		if got := tc.a.Summary(); got != tc.want {
			t.Errorf("Summary(%s) = %q, want %q", tc.name, got, tc.want)
		}
	}
}

func TestCheckTargets(t *testing.T) {
	policies := []Policy{
		{Name: "quiet", File: "p.yaml", Line: 2, DryRun: true, Notify: []string{"ops"}},
		{Name: "loud", File: "p.yaml", Line: 9, Notify: []string{"ops", "cto"}},
	}
	ops := map[string]notify.Target{"ops": nil}
	for _, tc := range []struct {
		name    string
		targets map[string]notify.Target
		apply   bool
		want    string
	}{
		{"all there", map[string]notify.Target{"ops": nil, "cto": nil}, true, ""},
		{"no targets, dry run", nil, false, ""},
		{"no targets, apply", nil, true, "--targets is required: policy loud (p.yaml:9) notifies ops, cto"},
		{"one missing", ops, false, `p.yaml:9: policy loud notifies target "cto", which is not in t.yaml; define it there or fix the name`},
	} {
		err := CheckTargets(policies, tc.targets, "t.yaml", tc.apply)
		if got := ""; err != nil {
			got = err.Error()
			if gpucost.ErrorCode(err) != gpucost.EInvalid {
				t.Errorf("CheckTargets(%s) code %s, want %s", tc.name, gpucost.ErrorCode(err), gpucost.EInvalid)
			}
			if got != tc.want {
				t.Errorf("CheckTargets(%s) = %q, want %q", tc.name, got, tc.want)
			}
		} else if tc.want != "" {
			t.Errorf("CheckTargets(%s) = nil, want %q", tc.name, tc.want)
		}
	}
}

func TestRepeats(t *testing.T) {
	stop := Action{Policy: "p", Action: ActStop, Resource: &Ref{Kind: KindEC2, ID: "i-1"}, DryRun: true, Evidence: Evidence{Period: "2026-11"}}
	notifyOps := Action{Policy: "p", Action: ActNotify, Targets: []string{"ops"}, DryRun: true, Evidence: Evidence{Period: "2026-11"}}
	applied := Action{Policy: "p", Action: ActTag, Resource: &Ref{Kind: KindEC2, ID: "i-1"}}
	nextMonth := stop
	nextMonth.Evidence.Period = "2026-12"
	ids := func(as []Action) []string {
		var out []string
		for _, a := range as {
			out = append(out, a.Action+" "+a.Evidence.Period)
		}
		return out
	}
	var r Repeats
	for i, tc := range []struct {
		in, want []Action
	}{
		{[]Action{stop, notifyOps, applied}, []Action{stop, notifyOps, applied}},
		{[]Action{stop, notifyOps, applied}, []Action{applied}},
		{[]Action{nextMonth, notifyOps}, []Action{nextMonth}},
		{[]Action{stop}, []Action{stop}}, // not planned by the last run
	} {
		if got := r.Drop(tc.in); !reflect.DeepEqual(ids(got), ids(tc.want)) {
			t.Errorf("Drop, run %d = %v, want %v", i+1, ids(got), ids(tc.want))
		}
	}
}

func TestCheckEstimate(t *testing.T) {
	s := testSnapshot(t)
	ps := testPolicies(t)
	est := budget.Estimate{Job: budget.Job{Kind: budget.KindJob, Provider: "aws", InstanceType: "g5.xlarge", Pricing: budget.PricingOnDemand,
		Start: time.Date(2026, 12, 3, 0, 0, 0, 0, time.UTC), Span: time.Hour, Scope: budget.Scope{Team: "research"}},
		Instances: 1, Cost: gpucost.USD(500e9)}
	// Now's period is over budget: the job would be stopped.
	blocks := CheckEstimate(ps, s, est, nil)
	if len(blocks) != 1 || blocks[0].Policy != "research-over-budget" || blocks[0].Action != ActStop {
		t.Fatalf("CheckEstimate(research job, November over budget) = %+v", blocks)
	}
	// The job starts in December, where nothing is spent yet: it fits.
	dec := []budget.JobCheck{{Budget: "research-gpus", Period: "2026-12", Spent: gpucost.USD(0), Forecast: gpucost.USD(0), JobCost: gpucost.USD(500e9)}}
	if b := CheckEstimate(ps, s, est, dec); len(b) != 0 {
		t.Errorf("CheckEstimate(research job in December) = %+v, want none", b)
	}
	if s.Statuses[0].Period != "2026-11" {
		t.Errorf("CheckEstimate changed the snapshot's statuses: period %s", s.Statuses[0].Period)
	}
	// An endpoint is scaled to zero; a spot job counts toward the spot cap.
	est.Job.Kind = budget.KindSageMaker
	if b := CheckEstimate(ps, s, est, nil); len(b) != 1 || b[0].Action != ActScaleToZero {
		t.Errorf("CheckEstimate(research endpoint) = %+v, want scale-to-zero", b)
	}
	est.Job.Kind, est.Job.Pricing, est.Job.Scope = budget.KindJob, budget.PricingSpot, budget.Scope{Team: "infra"}
	if b := CheckEstimate(ps, s, est, nil); len(b) != 1 || b[0].Policy != "spot-cap" {
		t.Errorf("CheckEstimate(infra spot job) = %+v, want the spot cap", b)
	}
}

type inventory struct {
	rs  []Resource
	err error
}

func (i inventory) Resources(context.Context) ([]Resource, error) { return i.rs, i.err }

func TestListResources(t *testing.T) {
	a, b := Resource{ID: "a"}, Resource{ID: "b"}
	invs := []Inventory{inventory{rs: []Resource{a}}, inventory{err: errors.New("403 forbidden")}, inventory{rs: []Resource{b}}}
	if _, err := ListResources(context.Background(), invs, nil); err == nil || err.Error() != "list resources: 403 forbidden" {
		t.Errorf("ListResources(no skip) = %v, want the inventory's error", err)
	}
	var skipped []error
	got, err := ListResources(context.Background(), invs, func(err error) { skipped = append(skipped, err) })
	if err != nil || len(got) != 2 || got[1].ID != "b" || len(skipped) != 1 {
		t.Errorf("ListResources(skip) = %v, %v, skipped %v; want a and b, one skipped", got, err, skipped)
	}
}

func TestPlanTriggered(t *testing.T) {
	p := Evaluate(testPolicies(t), testSnapshot(t), false)
	if !p.Triggered() {
		t.Error("Triggered() = false for the over-budget snapshot")
	}
	if (Plan{Policies: []PolicyResult{{Policy: "x"}}}).Triggered() {
		t.Error("Triggered() = true with no policy triggered")
	}
}

func TestRunnerRedact(t *testing.T) {
	r := &Runner{Secrets: []string{"AKIASECRETKEY", "abc", ""}}
	if got := r.Redact("denied for AKIASECRETKEY (abc)"); got != "denied for [redacted] (abc)" {
		t.Errorf("Redact = %q", got)
	}
	if !strings.Contains(r.Redact("x"), "x") {
		t.Error("Redact dropped text without secrets")
	}
}
