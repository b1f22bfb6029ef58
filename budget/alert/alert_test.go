package alert

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/budget"
	"github.com/gpucost/gpucost/notify"
)

var now = time.Date(2026, 11, 16, 9, 0, 0, 0, time.UTC)

// research is a $10,000 monthly budget that spent $8,500 of it by 16 November: its actual 50%
// and 80% thresholds are crossed, 50% alerting leads and 80% nobody.
func research(t *testing.T) ([]budget.Budget, []budget.Status) {
	t.Helper()
	b := budget.Budget{Name: "research", Period: budget.Monthly, Amount: gpucost.USD(10_000e9), File: "budgets.yaml", Line: 3,
		Thresholds: []budget.Threshold{
			{Kind: budget.KindActual, Percent: 50, Notify: []string{"leads", "cto"}},
			{Kind: budget.KindActual, Percent: 80},
			{Kind: budget.KindActual, Percent: 100, Notify: []string{"cto"}},
		}}
	daily := []budget.DayCost{{Day: time.Date(2026, 11, 2, 0, 0, 0, 0, time.UTC), Cost: gpucost.USD(8_500e9)}}
	return []budget.Budget{b}, []budget.Status{budget.Evaluate(b, daily, now)}
}

func TestPlan(t *testing.T) {
	budgets, statuses := research(t)
	alerts := Plan(budgets, statuses, now)
	var got []string
	for _, a := range alerts {
		got = append(got, a.Key+" "+a.Target+" "+a.Result)
	}
	want := []string{"budget:research:2026-11:actual:50 leads ", "budget:research:2026-11:actual:50 cto ",
		"budget:research:2026-11:actual:80  " + NoTarget}
	if strings.Join(got, "; ") != strings.Join(want, "; ") {
		t.Fatalf("Plan = %q, want %q", got, want)
	}
	if a := alerts[0]; a.Threshold != "actual 50%" || a.Percent != 85 || a.Subject != "Budget research reached 85% (threshold 50%) in 2026-11: $8,500.00 spent of $10,000.00" {
		t.Errorf("Plan()[0] = %+v", a)
	}
	if Count(alerts, "") != 2 || Count(alerts, NoTarget) != 1 {
		t.Errorf("Count(pending) = %d, Count(no targets) = %d, want 2 and 1", Count(alerts, ""), Count(alerts, NoTarget))
	}
	MarkPending(alerts, WouldSend)
	if Count(alerts, WouldSend) != 2 || alerts[2].Result != NoTarget {
		t.Errorf("MarkPending left %+v", alerts)
	}
}

func TestMessage(t *testing.T) {
	budgets, statuses := research(t)
	s := statuses[0]
	for _, tc := range []struct {
		threshold budget.Threshold
		severity  notify.Severity
		kind      string
		subject   string
	}{
		{budget.Threshold{Kind: budget.KindActual, Percent: 50}, notify.SeverityInfo, "budget.threshold", "Budget research reached 85% (threshold 50%) in 2026-11"},
		{budget.Threshold{Kind: budget.KindActual, Percent: 80}, notify.SeverityWarning, "budget.threshold", "Budget research reached 85% (threshold 80%)"},
		{budget.Threshold{Kind: budget.KindActual, Percent: 100}, notify.SeverityCritical, "budget.threshold", "Budget research reached"},
		{budget.Threshold{Kind: budget.KindForecast, Percent: 12.5}, notify.SeverityWarning, "budget.forecast", "Budget research projected to exceed 12.5% in 2026-11: forecast"},
	} {
		m := Message(budgets[0], s, budget.Crossing{Threshold: tc.threshold, Key: "k"}, nil, now)
		if m.Severity != tc.severity || m.Kind != tc.kind || !strings.HasPrefix(m.Subject, tc.subject) || m.Key != "k" || !m.At.Equal(now) {
			t.Errorf("Message(%s) = %s %s %q, want %s %s %q…", tc.threshold, m.Kind, m.Severity, m.Subject, tc.kind, tc.severity, tc.subject)
		}
		if !strings.Contains(m.Text, "$1,500.00 is left for 15 days") || !strings.HasSuffix(m.Text, "Alert key: k") || len(m.Fields) != 12 ||
			strings.Contains(m.Text, "Also crossed") {
			t.Errorf("Message(%s) text %q, %d fields", tc.threshold, m.Text, len(m.Fields))
		}
	}
	over := s
	over.Remaining = gpucost.USD(-200e9)
	if m := Message(budgets[0], over, s.Crossed[0], nil, now); !strings.Contains(m.Text, "The budget is over by $200.00 with 15 days left") {
		t.Errorf("Message(over budget) text %q", m.Text)
	}
}

func TestCheckTargets(t *testing.T) {
	budgets, _ := research(t)
	targets := map[string]notify.Target{"leads": nil, "ops": nil}
	err := CheckTargets(budgets, targets, "targets.yaml")
	want := `budgets.yaml:3: budget research notifies target "cto" (thresholds actual 50%, actual 100%), which is not in targets.yaml; define them in targets.yaml (it has leads, ops) or fix the names`
	if err == nil || err.Error() != want || gpucost.ErrorCode(err) != gpucost.EInvalid {
		t.Errorf("CheckTargets(no cto) = %v, want %q", err, want)
	}
	targets["cto"] = nil
	if err := CheckTargets(budgets, targets, "targets.yaml"); err != nil {
		t.Errorf("CheckTargets(all there) = %v", err)
	}
}

// target records the messages it is sent, or fails each with err.
type target struct {
	mu   sync.Mutex
	got  []string
	fail error
}

func (tg *target) Send(_ context.Context, m notify.Message) error {
	tg.mu.Lock()
	defer tg.mu.Unlock()
	tg.got = append(tg.got, m.Key)
	return tg.fail
}

func TestSender(t *testing.T) {
	ctx := context.Background()
	budgets, statuses := research(t)
	leads, cto := &target{}, &target{fail: errors.New("connection refused")}
	log := &notify.MemoryLog{}
	s := &Sender{Log: log, Targets: map[string]notify.Target{"leads": leads, "cto": cto}, MaxAttempts: 2, Backoff: time.Millisecond}

	dry := Plan(budgets, statuses, now)
	s.DryRun = true
	if err := s.Deliver(ctx, dry); err != nil || Count(dry, WouldSend) != 2 || len(leads.got)+len(cto.got) != 0 || len(log.Deliveries()) != 0 {
		t.Fatalf("Deliver(dry run) = %v, %d would send, %d sent, %d logged", err, Count(dry, WouldSend), len(leads.got)+len(cto.got), len(log.Deliveries()))
	}

	s.DryRun = false
	first := Plan(budgets, statuses, now)
	if err := s.Deliver(ctx, first); err != nil {
		t.Fatal(err)
	}
	if a := first[0]; a.Result != Sent || a.Attempts != 1 || a.Target != "leads" {
		t.Errorf("Deliver to leads = %+v, want sent at the first attempt", a)
	}
	if a := first[1]; a.Result != Failed || a.Attempts != 2 || !strings.Contains(a.Error, "connection refused") {
		t.Errorf("Deliver to cto = %+v, want failed after 2 attempts", a)
	}

	cto.fail = nil
	second := Plan(budgets, statuses, now)
	if err := s.Deliver(ctx, second); err != nil {
		t.Fatal(err)
	}
	if second[0].Result != Delivered || second[1].Result != Sent || len(leads.got) != 1 {
		t.Errorf("Deliver again = %s, %s (leads sent %d times), want already delivered to leads, sent to cto", second[0].Result, second[1].Result, len(leads.got))
	}
}

// TestChecker runs a server's budget check: the first check sends the alerts due and logs them,
// a check whose budgets name a target the server lacks sends none, and one without targets
// reads nothing.
func TestChecker(t *testing.T) {
	budgets, statuses := research(t)
	var logs strings.Builder
	leads, cto := &target{}, &target{fail: notify.Permanent(errors.New("550 mailbox unavailable"))}
	sender := &Sender{Log: &notify.MemoryLog{}, Targets: map[string]notify.Target{"leads": leads, "cto": cto}, MaxAttempts: 1}
	daily := statuses[0].Daily
	c := &Checker{Targets: sender.Targets, Now: func() time.Time { return now }, Log: slog.New(slog.NewTextHandler(&logs, nil)),
		Budgets: func(context.Context) ([]budget.Budget, string, error) { return budgets, "budgets.yaml", nil },
		Spend: func(context.Context, []budget.Budget) (*budget.Spend, error) {
			sp := budget.NewSpend(budgets, nil)
			sp.Daily[0] = daily
			return sp, nil
		},
		Deliver: sender.Deliver}
	c.Check(context.Background())
	if len(leads.got) != 1 || strings.Count(logs.String(), "budget alert sent") != 1 || strings.Count(logs.String(), "budget alert failed") != 1 {
		t.Fatalf("first check: leads got %v; log:\n%s", leads.got, logs.String())
	}
	logs.Reset()
	c.Targets = map[string]notify.Target{"leads": leads}
	c.Check(context.Background())
	if len(leads.got) != 1 || !strings.Contains(logs.String(), "the budgets of budgets.yaml name targets this server lacks; no alert sent") {
		t.Errorf("check with cto missing: leads got %v; log:\n%s", leads.got, logs.String())
	}
	c.Targets = nil
	c.Budgets = func(context.Context) ([]budget.Budget, string, error) {
		t.Error("a check without targets read the budgets")
		return nil, "", nil
	}
	c.Check(context.Background())
}

// messages records the messages it is sent.
type messages struct {
	mu  sync.Mutex
	got []notify.Message
}

func (r *messages) Send(_ context.Context, m notify.Message) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.got = append(r.got, m)
	return nil
}

// TestOneAlertPerCheck: a check that finds a budget past several thresholds sends one alert
// per target, named by the highest; a second check sends nothing, and a higher threshold
// crossed later sends one more.
func TestOneAlertPerCheck(t *testing.T) {
	ctx := context.Background()
	hook := &messages{}
	b := budget.Budget{Name: "research-gpus", Period: budget.Monthly, Amount: gpucost.USD(40_000e9),
		Thresholds: []budget.Threshold{
			{Kind: budget.KindActual, Percent: 50, Notify: []string{"hook"}},
			{Kind: budget.KindActual, Percent: 80, Notify: []string{"hook"}},
			{Kind: budget.KindActual, Percent: 100, Notify: []string{"hook"}},
			{Kind: budget.KindActual, Percent: 150, Notify: []string{"hook"}},
		}}
	s := &Sender{Log: &notify.MemoryLog{}, Targets: map[string]notify.Target{"hook": hook}, MaxAttempts: 1}
	check := func(spent int64) []*Outcome {
		t.Helper()
		daily := []budget.DayCost{{Day: time.Date(2026, 11, 2, 0, 0, 0, 0, time.UTC), Cost: gpucost.USD(spent)}}
		alerts := Plan([]budget.Budget{b}, []budget.Status{budget.Evaluate(b, daily, now)}, now)
		if err := s.Deliver(ctx, alerts); err != nil {
			t.Fatal(err)
		}
		return alerts
	}

	first := check(48_400e9) // 121%
	if len(first) != 1 || first[0].Result != Sent || len(hook.got) != 1 {
		t.Fatalf("first check = %d alerts, %d sent; want 1", len(first), len(hook.got))
	}
	m := hook.got[0]
	if m.Severity != notify.SeverityCritical || !strings.Contains(m.Subject, "reached 121% (threshold 100%)") ||
		m.Key != "budget:research-gpus:2026-11:actual:100" || !strings.Contains(m.Text, "Also crossed: actual 80%, actual 50%.") {
		t.Errorf("first alert = %s %q key %s\n%s", m.Severity, m.Subject, m.Key, m.Text)
	}
	if a := first[0]; a.Threshold != "actual 100%" || strings.Join(a.Also, ",") != "actual 80%,actual 50%" || a.Severity != "critical" {
		t.Errorf("first outcome = %+v", a)
	}

	second := check(48_400e9)
	if len(second) != 1 || second[0].Result != Delivered || len(hook.got) != 1 {
		t.Errorf("second check = %s, %d sent in all; want already delivered, 1", second[0].Result, len(hook.got))
	}

	later := check(60_000e9) // 150%
	if len(later) != 1 || later[0].Result != Sent || len(hook.got) != 2 {
		t.Fatalf("check at 150%% = %d alerts, %d sent in all; want 1 more", len(later), len(hook.got))
	}
	if m := hook.got[1]; !strings.Contains(m.Subject, "reached 150% (threshold 150%)") || strings.Contains(m.Text, "Also crossed") {
		t.Errorf("alert at 150%% = %q\n%s", m.Subject, m.Text)
	}
	if again := check(60_000e9); again[0].Result != Delivered || len(hook.got) != 2 {
		t.Errorf("check at 150%% again = %s, %d sent in all; want already delivered, 2", again[0].Result, len(hook.got))
	}
}

// TestOneAlertBothKinds: an alert that reports an actual and a forecast threshold is logged
// under both keys, so neither is sent again.
func TestOneAlertBothKinds(t *testing.T) {
	ctx := context.Background()
	hook := &messages{}
	b := budget.Budget{Name: "tight", Period: budget.Monthly, Amount: gpucost.USD(10_000e9),
		Thresholds: []budget.Threshold{
			{Kind: budget.KindActual, Percent: 50, Notify: []string{"hook"}},
			{Kind: budget.KindForecast, Percent: 100, Notify: []string{"hook"}},
		}}
	log := &notify.MemoryLog{}
	s := &Sender{Log: log, Targets: map[string]notify.Target{"hook": hook}, MaxAttempts: 1}
	var daily []budget.DayCost
	for d := 1; d < 16; d++ {
		daily = append(daily, budget.DayCost{Day: time.Date(2026, 11, d, 0, 0, 0, 0, time.UTC), Cost: gpucost.USD(400e9)})
	}
	st := budget.Evaluate(b, daily, now)
	for range 2 {
		if err := s.Deliver(ctx, Plan([]budget.Budget{b}, []budget.Status{st}, now)); err != nil {
			t.Fatal(err)
		}
	}
	if len(hook.got) != 1 {
		t.Fatalf("two checks sent %d alerts, want 1", len(hook.got))
	}
	if m := hook.got[0]; m.Kind != "budget.forecast" || m.Severity != notify.SeverityWarning || !strings.Contains(m.Text, "Also crossed: actual 50%.") {
		t.Errorf("alert = %s %s %q\n%s", m.Kind, m.Severity, m.Subject, m.Text)
	}
	var keys []string
	for _, d := range log.Deliveries() {
		keys = append(keys, d.Key)
	}
	if want := "budget:tight:2026-11:forecast:100 budget:tight:2026-11:actual:50"; strings.Join(keys, " ") != want {
		t.Errorf("delivery log keys = %v, want %s", keys, want)
	}
}
