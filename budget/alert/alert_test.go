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
	if a := alerts[0]; a.Threshold != "actual 50%" || a.Percent != 85 || a.Subject != "Budget research reached 85% in 2026-11: $8,500.00 spent of $10,000.00" {
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
		{budget.Threshold{Kind: budget.KindActual, Percent: 50}, notify.SeverityInfo, "budget.threshold", "Budget research reached 85% in 2026-11"},
		{budget.Threshold{Kind: budget.KindActual, Percent: 80}, notify.SeverityWarning, "budget.threshold", "Budget research reached 85%"},
		{budget.Threshold{Kind: budget.KindActual, Percent: 100}, notify.SeverityCritical, "budget.threshold", "Budget research reached"},
		{budget.Threshold{Kind: budget.KindForecast, Percent: 12.5}, notify.SeverityWarning, "budget.forecast", "Budget research projected to exceed 12.5% in 2026-11: forecast"},
	} {
		m := Message(budgets[0], s, budget.Crossing{Threshold: tc.threshold, Key: "k"}, now)
		if m.Severity != tc.severity || m.Kind != tc.kind || !strings.HasPrefix(m.Subject, tc.subject) || m.Key != "k" || !m.At.Equal(now) {
			t.Errorf("Message(%s) = %s %s %q, want %s %s %q…", tc.threshold, m.Kind, m.Severity, m.Subject, tc.kind, tc.severity, tc.subject)
		}
		if !strings.Contains(m.Text, "$1,500.00 is left for 15 days") || !strings.HasSuffix(m.Text, "Alert key: k") || len(m.Fields) != 11 {
			t.Errorf("Message(%s) text %q, %d fields", tc.threshold, m.Text, len(m.Fields))
		}
	}
	over := s
	over.Remaining = gpucost.USD(-200e9)
	if m := Message(budgets[0], over, s.Crossed[0], now); !strings.Contains(m.Text, "The budget is over by $200.00 with 15 days left") {
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
