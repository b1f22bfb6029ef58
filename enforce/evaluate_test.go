package enforce

import (
	"encoding/json"
	"flag"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/budget"
	"github.com/gpucost/gpucost/internal/goldenfile"
)

var update = flag.Bool("update", false, "rewrite the golden files")

var (
	now = time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	t0  = time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC)
)

// testSnapshot is a research team over its GPU budget (20 days of $1,050 against $20,000) and a
// serving budget well within its own, with instances, endpoints and Deployments running.
func testSnapshot(t testing.TB) Snapshot {
	bs := testBudgets(t)
	daily := func(perDay string) []budget.DayCost {
		var out []budget.DayCost
		for d := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC); d.Before(time.Date(2026, 11, 21, 0, 0, 0, 0, time.UTC)); d = d.AddDate(0, 0, 1) {
			m, _ := gpucost.ParseMoney(perDay, "USD")
			out = append(out, budget.DayCost{Day: d, Cost: m})
		}
		return out
	}
	st := []budget.Status{budget.Evaluate(bs[0], daily("1050"), now), budget.Evaluate(bs[1], daily("10"), now), budget.Evaluate(bs[2], daily("1000"), now)}
	research := map[string]string{"team": "research"}
	return Snapshot{Now: now, Budgets: bs, Statuses: st, Resources: []Resource{
		{Kind: KindEC2, ID: "i-train1", Provider: "aws", Region: "us-east-1", InstanceType: "p4d.24xlarge", Count: 1, State: "running", Running: true, Launched: t0, Tags: research},
		{Kind: KindEC2, ID: "i-spot1", Provider: "aws", Region: "us-east-1", InstanceType: "g5.xlarge", Count: 1, Spot: true, State: "running", Running: true, Launched: t0.Add(time.Hour), Tags: research},
		{Kind: KindEC2, ID: "i-spot2", Provider: "aws", Region: "us-east-1", InstanceType: "g5.xlarge", Count: 1, Spot: true, State: "pending", Running: true, Launched: t0.Add(2 * time.Hour),
			Tags: map[string]string{"team": "research", "approved": "true"}},
		{Kind: KindEC2, ID: "i-spot3", Provider: "aws", Region: "us-west-2", InstanceType: "g5.xlarge", Count: 1, Spot: true, State: "running", Running: true, Launched: t0.Add(3 * time.Hour), Tags: map[string]string{"team": "infra"}},
		{Kind: KindEC2, ID: "i-old", Provider: "aws", Region: "us-east-1", InstanceType: "p3.8xlarge", Count: 1, State: "stopped", Tags: research},
		{Kind: KindSageMaker, ID: "llm-serve", ARN: "arn:aws:sagemaker:us-east-1:123456789012:endpoint/llm-serve", Provider: "aws", Region: "us-east-1", InstanceType: "ml.g5.2xlarge",
			Count: 2, State: "InService", Running: true, Launched: t0, Tags: research, Components: []string{"llm-a", "llm-b"}},
		{Kind: KindSageMaker, ID: "old-serve", Provider: "aws", Region: "us-east-1", InstanceType: "ml.g5.xlarge", Count: 1, State: "InService", Running: true, Launched: t0, Tags: research},
		{Kind: KindDeployment, ID: "research/vllm", Namespace: "research", Count: 3, GPUs: 3, State: "3 replicas", Running: true, Launched: t0, Tags: research},
	}}
}

func actionKeys(p Plan) []string {
	var out []string
	for _, a := range p.Actions {
		id := ""
		if a.Resource != nil {
			id = " " + a.Resource.ID
		}
		out = append(out, fmt.Sprintf("%s %s%s dry=%v", a.Policy, a.Action, id, a.DryRun))
	}
	return out
}

func TestEvaluate(t *testing.T) {
	p := Evaluate(testPolicies(t), testSnapshot(t), true)
	want := []string{
		"research-over-budget notify dry=false",
		"research-over-budget tag i-train1 dry=false",
		"research-over-budget tag i-spot1 dry=false",
		"research-over-budget tag llm-serve dry=false",
		"research-over-budget tag old-serve dry=false",
		"research-over-budget tag research/vllm dry=false",
		"research-over-budget stop i-train1 dry=false",
		"research-over-budget stop i-spot1 dry=false",
		"research-over-budget scale-to-zero llm-serve dry=false",
		"research-over-budget scale-to-zero research/vllm dry=false",
		"spot-cap stop i-spot3 dry=false",
	}
	if got := actionKeys(p); !reflect.DeepEqual(got, want) {
		t.Fatalf("Evaluate(apply) actions:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	r := p.Policies[0]
	if !r.Triggered || r.InScope != 6 || !reflect.DeepEqual(r.Exempt, []string{"i-spot2"}) || r.DryRun || len(r.Skipped) != 1 || !strings.Contains(r.Skipped[0], "old-serve (it hosts no inference components") {
		t.Errorf("research-over-budget result = %+v", r)
	}
	if !strings.Contains(r.Reason, "$21,000.00 spent is 105.0% of $20,000.00 and reached 100%") {
		t.Errorf("reason = %q", r.Reason)
	}
	if s := p.Policies[1]; s.Triggered || !s.DryRun || !strings.Contains(s.Reason, "has not reached 120%") {
		t.Errorf("serving-forecast = %+v", s)
	}
	notify := p.Actions[0]
	if !reflect.DeepEqual(notify.Evidence.Resources, []string{"i-train1", "i-spot1", "llm-serve", "old-serve", "research/vllm"}) ||
		!reflect.DeepEqual(notify.Targets, []string{"ops-slack"}) || notify.Evidence.Percent != 105 {
		t.Errorf("notify = %+v", notify)
	}
	stop := p.Actions[6]
	if stop.Evidence.ScopeTags["team"] != "research" || stop.Evidence.Budget != "research-gpus" || stop.Evidence.Period != "2026-11" ||
		stop.Evidence.Spent.Dollars() != "$21,000.00" || stop.Evidence.InstanceType != "p4d.24xlarge" {
		t.Errorf("stop i-train1 evidence = %+v", stop.Evidence)
	}
	spot := p.Actions[10]
	if spot.Evidence.SpotCount != 3 || *spot.Evidence.SpotCap != 2 || spot.Evidence.Rank != 1 {
		t.Errorf("spot-cap evidence = %+v", spot.Evidence)
	}
	if sc := p.Actions[8]; !reflect.DeepEqual(sc.Components, []string{"llm-a", "llm-b"}) {
		t.Errorf("scale llm-serve components = %v", sc.Components)
	}
	out, err := json.MarshalIndent(p, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	goldenfile.Check(t, "testdata/plan.golden.json", append(out, '\n'), *update)
}

func TestEvaluateSkipsTagged(t *testing.T) {
	s := testSnapshot(t)
	s.Resources[0].Tags = map[string]string{"team": "research", DefaultTagKey: "research-over-budget"}
	p := Evaluate(testPolicies(t), s, true)
	for _, a := range p.Actions {
		if a.Action == ActTag && a.Resource.ID == "i-train1" {
			t.Errorf("i-train1 already carries the policy's tag and is tagged again")
		}
	}
	if got := len(p.Actions); got != 10 {
		t.Errorf("%d actions, want 10 (one tag fewer)", got)
	}
}

func TestEvaluateDryRun(t *testing.T) {
	ps := testPolicies(t)
	p := Evaluate(ps, testSnapshot(t), false)
	for _, a := range p.Actions {
		if !a.DryRun {
			t.Errorf("Evaluate(apply=false): %s %s is not a dry run", a.Policy, a.Action)
		}
	}
	ps[0].DryRun = true
	p = Evaluate(ps, testSnapshot(t), true)
	for _, a := range p.Actions {
		if a.DryRun != (a.Policy == "research-over-budget") {
			t.Errorf("Evaluate(apply, research dry_run): %s %s dry=%v", a.Policy, a.Action, a.DryRun)
		}
	}
}

func TestEvaluateSpotCap(t *testing.T) {
	s := testSnapshot(t)
	for _, tc := range []struct {
		name  string
		cap   int
		scope budget.Scope
		want  []string
	}{
		{"within", 3, budget.Scope{}, nil},
		{"one over", 2, budget.Scope{}, []string{"i-spot3"}},
		{"two over: the approved one is skipped", 1, budget.Scope{}, []string{"i-spot3", "i-spot1"}},
		{"zero", 0, budget.Scope{}, []string{"i-spot3", "i-spot1"}},
		{"scoped to research", 1, budget.Scope{Tags: map[string]string{"team": "research"}}, []string{"i-spot1"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pol := Policy{Name: "cap", MaxSpot: tc.cap, Scope: tc.scope, Unless: map[string]string{"approved": "true"}, Actions: []string{ActStop}}
			p := Evaluate([]Policy{pol}, s, false)
			var got []string
			for _, a := range p.Actions {
				got = append(got, a.Resource.ID)
			}
			if !reflect.DeepEqual(got, tc.want) || p.Policies[0].Triggered != (tc.want != nil) {
				t.Errorf("cap %d: stops %v (triggered %v), want %v; %s", tc.cap, got, p.Policies[0].Triggered, tc.want, p.Policies[0].Reason)
			}
		})
	}
}

func TestEvaluateForecastAndDefaultScope(t *testing.T) {
	s := testSnapshot(t)
	// Budget all-aws has spent $200 of $1.5M: far below; its forecast is too.
	pol := Policy{Name: "aws", Budget: "all-aws", Over: 50, Forecast: true, Actions: []string{ActTag}}
	if p := Evaluate([]Policy{pol}, s, true); p.Policies[0].Triggered || len(p.Actions) != 0 {
		t.Errorf("all-aws 50%% forecast triggered: %+v", p.Policies[0])
	}
	// research-gpus's forecast for November is well over 100%; the budget's own scope (team
	// research, GPU lines only) applies without a policy scope: the GPU Deployment counts, and
	// every GPU instance type.
	pol = Policy{Name: "rf", Budget: "research-gpus", Over: 130, Forecast: true, Actions: []string{ActTag}}
	p := Evaluate([]Policy{pol}, s, true)
	if !p.Policies[0].Triggered || p.Actions[0].Evidence.Measure != budget.KindForecast {
		t.Fatalf("research-gpus forecast 130%%: %+v", p.Policies[0])
	}
	if got := len(p.Actions); got != 6 {
		t.Errorf("research-gpus forecast: %d tag actions, want 6, i-spot2 included (%v)", got, actionKeys(p))
	}
}

func TestCheckJob(t *testing.T) {
	s := testSnapshot(t)
	ps := testPolicies(t)
	job := func(tags map[string]string, spot bool, n int) Job {
		return Job{Kind: KindEC2, Spot: spot, Instances: n, Line: &gpucost.CostLine{Provider: "aws", ServiceName: serviceEC2, InstanceType: "g5.xlarge", Tags: tags},
			Added: map[string]gpucost.Money{"research-gpus": gpucost.USD(500e9)}}
	}
	blocks := CheckJob(ps, s, job(map[string]string{"team": "research"}, false, 1))
	if len(blocks) != 1 || blocks[0].Policy != "research-over-budget" || !strings.Contains(blocks[0].Reason, "$21,500.00, 107.5% of $20,000.00") {
		t.Errorf("research job: %+v", blocks)
	}
	if b := CheckJob(ps, s, job(map[string]string{"team": "research", "approved": "true"}, false, 1)); len(b) != 0 {
		t.Errorf("approved research job blocked: %+v", b)
	}
	b := CheckJob(ps, s, job(map[string]string{"team": "infra"}, true, 1))
	if len(b) != 1 || b[0].Policy != "spot-cap" || !strings.Contains(b[0].Reason, "3 spot instances running in scope plus the job's 1 make 4, over the cap of 2") {
		t.Errorf("infra spot job: %+v", b)
	}
	if b := CheckJob(ps, s, job(map[string]string{"team": "infra"}, false, 5)); len(b) != 0 {
		t.Errorf("infra on-demand job blocked: %+v", b)
	}
	// Under budget: $10 a day for 20 days is 1% of research-gpus; a $1,000 job fits under 100%.
	s.Statuses[0] = budget.Evaluate(s.Budgets[0], []budget.DayCost{{Day: time.Date(2026, 11, 2, 0, 0, 0, 0, time.UTC), Cost: gpucost.USD(200e9)}}, now)
	if b := CheckJob(ps, s, job(map[string]string{"team": "research"}, false, 1)); len(b) != 0 {
		t.Errorf("research job under budget blocked: %+v", b)
	}
	j := job(map[string]string{"team": "research"}, false, 1)
	j.Added["research-gpus"] = gpucost.USD(19_900e9)
	if b := CheckJob(ps, s, j); len(b) != 1 {
		t.Errorf("research job that takes the budget over 100%%: %+v", b)
	}
	// An endpoint is scaled to zero, not stopped: a policy that only stops lets it through.
	j.Kind, j.Line.ServiceName = KindSageMaker, serviceSageMaker
	if b := CheckJob(ps, s, j); len(b) != 1 || b[0].Action != ActScaleToZero {
		t.Errorf("research endpoint over budget: %+v", b)
	}
	ps[0].Actions = []string{ActNotify, ActStop}
	if b := CheckJob(ps, s, j); len(b) != 0 {
		t.Errorf("research endpoint, policy that only stops instances: %+v", b)
	}
}
