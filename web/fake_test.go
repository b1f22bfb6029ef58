package web

import (
	"bytes"
	"context"
	"crypto/subtle"
	"fmt"
	"math"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/analyze"
	"github.com/gpucost/gpucost/budget"
	"github.com/gpucost/gpucost/enforce"
	"github.com/gpucost/gpucost/httpapi"
	"github.com/gpucost/gpucost/queue"
	"github.com/gpucost/gpucost/recommend"
	"github.com/gpucost/gpucost/spot"
)

// testNow is the fake fleet's present: mid-month, mid-quarter.
var testNow = time.Date(2026, 11, 20, 14, 30, 0, 0, time.UTC)

// fakeViews serves a fixed fleet: 6 GPUs on 2 hosts, a month and a half of bills, budgets,
// recommendations, jobs and a queue. With empty set it has nothing, as a new server has.
type fakeViews struct {
	empty bool
	err   error

	mu      sync.Mutex
	queries []httpapi.Query

	budgets []budget.Budget
}

var _ httpapi.Views = (*fakeViews)(nil)

func newFakeViews(t testing.TB) *fakeViews {
	data, err := os.ReadFile("testdata/budgets.yaml")
	if err != nil {
		t.Fatal(err)
	}
	bs, err := budget.Load("testdata/budgets.yaml", data)
	if err != nil {
		t.Fatal(err)
	}
	return &fakeViews{budgets: bs}
}

func (f *fakeViews) seen(q httpapi.Query) error {
	f.mu.Lock()
	f.queries = append(f.queries, q)
	f.mu.Unlock()
	return f.err
}

func (f *fakeViews) lastQuery() httpapi.Query {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.queries) == 0 {
		return httpapi.Query{}
	}
	return f.queries[len(f.queries)-1]
}

// fakeGPUs are the fleet: host-a with 4 A100s, host-b with 2 H100s.
var fakeGPUs = func() []*gpucost.Series {
	var s []*gpucost.Series
	for i := range 6 {
		host, model := "host-a", "NVIDIA A100-SXM4-80GB"
		if i >= 4 {
			host, model = "host-b", "NVIDIA H100 80GB HBM3"
		}
		s = append(s, &gpucost.Series{
			GPU:    gpucost.GPU{UUID: fmt.Sprintf("GPU-%08x-1111-2222-3333-%012d", i+1, i), Host: host, Model: model, Index: i % 4},
			Labels: gpucost.Labels{"team": []string{"research", "inference", "training"}[i%3], "namespace": "ml"},
		})
	}
	return s
}()

// dailyCost is the fleet's bill on day d: weekdays dearer than weekends.
func dailyCost(d time.Time) gpucost.Money {
	n := int64(1200e9) + int64(d.Day())*int64(17.5e9) + 123_456_789
	if wd := d.Weekday(); wd == time.Saturday || wd == time.Sunday {
		n /= 2
	}
	return gpucost.USD(n)
}

// spend returns the daily bill from start up to (not including) today.
func spend(start, now time.Time) []budget.DayCost {
	var out []budget.DayCost
	for d := start; d.Before(now.Truncate(day)); d = d.AddDate(0, 0, 1) {
		out = append(out, budget.DayCost{Day: d, Cost: dailyCost(d)})
	}
	return out
}

func (f *fakeViews) Overview(ctx context.Context, now time.Time) (httpapi.Overview, error) {
	monthStart := time.Date(now.Year(), now.Month(), 1, 0, 0, 0, 0, time.UTC)
	o := httpapi.Overview{Now: now, MonthStart: monthStart, MonthToDate: gpucost.USD(0)}
	if err := f.seen(httpapi.Query{}); err != nil || f.empty {
		return o, err
	}
	o.Daily = spend(monthStart, now)
	for _, d := range o.Daily {
		o.MonthToDate = o.MonthToDate.Add(d.Cost)
	}
	o.Forecast = budget.Forecast(spend(monthStart.AddDate(0, -2, 0), now), monthStart, monthStart.AddDate(0, 1, 0), now)
	o.GPUs, o.IdlePercent, o.IdleCost = len(fakeGPUs), 37.26, gpucost.USD(4_321_987_654_321)
	rec, _ := f.Recommendations(ctx, httpapi.Query{})
	o.Savings, o.Recommended = rec.MonthlySaving, len(rec.Plan.Steps())
	o.Budgets, _ = f.Budgets(ctx, now)
	costs, _ := f.Costs(ctx, httpapi.Query{From: monthStart, To: now})
	o.TopTeams = costs.Groups
	return o, nil
}

func (f *fakeViews) GPUs(ctx context.Context, q httpapi.Query) (analyze.Report, error) {
	by, err := analyze.ParseGroupBy(q.By)
	if err != nil {
		return analyze.Report{}, err
	}
	rep := analyze.Report{By: by, From: q.From, To: q.To, Currency: "USD", IdleThreshold: 5, MinIdle: gpucost.Duration(30 * time.Minute)}
	if err := f.seen(q); err != nil || f.empty {
		return rep, err
	}
	for i, s := range fakeGPUs {
		mean := 10 + 15*float64(i)
		g := analyze.GroupStats{Key: by.Key(s, nil), Host: s.GPU.Host, Model: s.GPU.Model, GPUs: 1, Series: 1,
			GPUHours: 168, UtilMean: analyze.Stat(mean), UtilP50: analyze.Stat(mean), UtilP95: analyze.Stat(math.Min(mean*1.6, 100)),
			UtilMax: 100, MemPeakMiB: analyze.Stat(20000 + 9000*i), MemTotalMiB: 81559, PowerMeanW: analyze.Stat(math.NaN()),
			IdleGPUHours: 168 * (1 - mean/100) / 2, IdlePct: analyze.Stat(50 - mean/2),
			Cost: gpucost.USD(168 * 3_210_000_000), IdleCost: gpucost.USD(int64(168*(1-mean/100)/2) * 3_210_000_000),
			Verdict: analyze.VerdictFor(mean)}
		if at := slices.IndexFunc(rep.Groups, func(o analyze.GroupStats) bool { return o.Key == g.Key }); at >= 0 {
			o := &rep.Groups[at]
			o.GPUs++
			o.GPUHours += g.GPUHours
			o.IdleGPUHours += g.IdleGPUHours
			o.Cost, o.IdleCost = o.Cost.Add(g.Cost), o.IdleCost.Add(g.IdleCost)
		} else {
			rep.Groups = append(rep.Groups, g)
		}
		rep.Fleet.GPUs++
		rep.Fleet.GPUHours += g.GPUHours
		rep.Fleet.Cost = rep.Fleet.Cost.Add(g.Cost)
	}
	rep.Fleet.Key = "fleet"
	rep.Fleet.UtilMean, rep.Fleet.UtilP95, rep.Fleet.MemPeakMiB, rep.Fleet.IdlePct = 47.5, 96, 65000, 26.25
	return rep, nil
}

func (f *fakeViews) Heatmap(ctx context.Context, q httpapi.Query) (httpapi.Heatmap, error) {
	h := httpapi.Heatmap{By: q.By}
	if err := f.seen(q); err != nil || f.empty {
		return h, err
	}
	for t := q.From; t.Before(q.To); t = t.Add(time.Hour) {
		h.Hours = append(h.Hours, t)
	}
	for i, s := range fakeGPUs {
		row := httpapi.HeatmapRow{Key: s.GPU.UUID, Host: s.GPU.Host, Model: s.GPU.Model, Util: make([]float64, len(h.Hours))}
		for j := range row.Util {
			row.Util[j] = math.Round(50 + 45*math.Sin(float64(j+7*i)/5))
			if (i+j)%37 == 0 {
				row.Util[j] = -1 // an hour without samples
			}
		}
		h.Rows = append(h.Rows, row)
	}
	return h, nil
}

// heatmapCells is how many cells the fake heatmap has with samples, for q's hours.
func heatmapCells(hours int) int {
	n := 0
	for i := range fakeGPUs {
		for j := range hours {
			if (i+j)%37 != 0 {
				n++
			}
		}
	}
	return n
}

func (f *fakeViews) Costs(ctx context.Context, q httpapi.Query) (httpapi.CostReport, error) {
	rep := httpapi.CostReport{By: q.By, From: q.From, To: q.To}
	if rep.By == "" {
		rep.By = "team"
	}
	if err := f.seen(q); err != nil || f.empty {
		return rep, err
	}
	teams := []string{"training", "inference", "research", "(none)"}
	total := gpucost.USD(0)
	for d := q.From.Truncate(day); d.Before(q.To); d = d.AddDate(0, 0, 1) {
		rep.Days = append(rep.Days, d)
	}
	for i, team := range teams {
		g := httpapi.CostGroup{Group: team, Currency: "USD", CostLessIdle: gpucost.USD(0), TotalCost: gpucost.USD(0), BilledCost: gpucost.USD(0), IdleCost: gpucost.USD(0)}
		for _, d := range rep.Days {
			share := dailyCost(d).DivInt(int64(2 << i))
			g.CostLessIdle = g.CostLessIdle.Add(share)
			g.Daily = append(g.Daily, share)
		}
		g.TotalCost, g.BilledCost, g.UsedGPUHours, g.IdleGPUHours = g.CostLessIdle, g.CostLessIdle, 100/float64(i+1), 10*float64(i)
		total = total.Add(g.CostLessIdle)
		rep.Groups = append(rep.Groups, g)
	}
	rep.Total, rep.Bill, rep.Reconciled = []gpucost.Money{total}, []gpucost.Money{total}, true
	httpapi.FillCents(rep.Groups)
	return rep, nil
}

func (f *fakeViews) Idle(ctx context.Context, q httpapi.Query) (analyze.IdleReport, error) {
	rep := analyze.IdleReport{MinIdle: gpucost.Duration(30 * time.Minute), Currency: "USD"}
	if err := f.seen(q); err != nil || f.empty {
		return rep, err
	}
	for i, s := range fakeGPUs[:3] {
		start := testNow.Truncate(day).Add(-day + 19*time.Hour)
		p := analyze.IdlePeriod{Series: s, Start: start, End: start.Add(13 * time.Hour), Duration: gpucost.Duration(13 * time.Hour), GPUHours: 13,
			Cost: gpucost.USD(13 * 3_210_000_000), Priced: true, Open: i == 2}
		rep.Periods = append(rep.Periods, p)
		rep.GPUHours += p.GPUHours
		rep.Cost = rep.Cost.Add(p.Cost)
		pat := analyze.IdlePattern{Series: s}
		for d := range 7 {
			for h := range 24 {
				pat.Covered[d][h] = 60
				if h >= 19 || h < 8 {
					pat.Idle[d][h] = 55
				}
			}
		}
		rep.Patterns = append(rep.Patterns, pat)
	}
	return rep, nil
}

func (f *fakeViews) Alerts(ctx context.Context, q httpapi.Query) (analyze.AlertReport, error) {
	rep := analyze.AlertReport{Now: q.To, Rules: analyze.DefaultRules()}
	if err := f.seen(q); err != nil || f.empty {
		return rep, err
	}
	r := rep.Rules[0]
	rep.Alerts = []analyze.Alert{{Rule: r, Series: *fakeGPUs[0], State: analyze.Firing, Start: testNow.Add(-3 * time.Hour),
		FiredAt: testNow.Add(-2 * time.Hour), End: testNow, Duration: gpucost.Duration(3 * time.Hour), Worst: 2, Mean: 3,
		Evidence: "mean utilisation 3% for 3h (threshold 40%)"}}
	rep.Series, rep.Minutes = len(fakeGPUs), 6*7*24*60
	return rep, nil
}

func (f *fakeViews) Recommendations(ctx context.Context, q httpapi.Query) (httpapi.RecommendationReport, error) {
	var rep httpapi.RecommendationReport
	if err := f.seen(q); err != nil || f.empty {
		return rep, err
	}
	idle := gpucost.Recommendation{Kind: gpucost.RecIdleSchedule, Resources: []string{fakeGPUs[0].GPU.UUID}, Action: "Stop host-a every day 19:00–08:00 UTC",
		MonthlySaving: gpucost.USD(1_234_567_890_123), Evidence: []string{"idle 55 of 60 minutes 19:00–08:00 on 7 of 7 days", "price $3.21/GPU-hour (catalog)"},
		Confidence: gpucost.ConfidenceHigh, ConfidenceWhy: "4 weeks of samples", Risk: "Night jobs would wait for the morning."}
	spot := gpucost.Recommendation{Kind: gpucost.RecSpot, Resources: []string{"job/eval"}, Action: "Run the weekly evaluation on spot capacity with checkpoints",
		MonthlySaving: gpucost.USD(456_780_000_000), Evidence: []string{"restartable: checkpoints every 10 min"},
		Confidence: gpucost.ConfidenceMedium, ConfidenceWhy: "interruption rate estimated", Risk: "Interruptions lengthen the job."}
	before := gpucost.USD(3_000_000_000_000)
	afterIdle := before.Sub(idle.MonthlySaving)
	after := afterIdle.Sub(spot.MonthlySaving)
	rep.Plan = recommend.Plan{Before: before, After: after, Saving: before.Sub(after), SavingPercent: 56.4,
		Levers: []recommend.LeverShare{{Lever: "idle", MonthlySaving: idle.MonthlySaving, Percent: 41.2}, {Lever: "spot", MonthlySaving: spot.MonthlySaving, Percent: 15.2}},
		Groups: []recommend.PlanGroup{{ID: "research-p4d.24xlarge", Name: "research: 2 × aws us-east-1 p4d.24xlarge", Before: before, After: after,
			Steps: []recommend.PlanStep{
				{ID: "research-p4d.24xlarge/idle/schedule", Lever: "idle", Recommendation: idle, Before: before, After: afterIdle,
					Needs: []string{"the users agree to the schedule"}},
				{ID: "research-p4d.24xlarge/spot/spot-p4d.24xlarge", Lever: "spot", Recommendation: spot, Before: afterIdle, After: after,
					Needs: []string{"the jobs checkpoint every 10 min"},
					Alternatives: []recommend.Alternative{{Lever: "commitments", Kind: gpucost.RecCommit, Action: "Commit to 1 × p4d.24xlarge for 1 year",
						MonthlySaving: gpucost.USD(300_000_000_000), Confidence: gpucost.ConfidenceHigh,
						Why: "saves less ($300.00 against $456.78); conflicts with spot: a machine on spot is not covered by a commitment"}}},
			}}}}
	rep.MonthlySaving = rep.Plan.Saving
	return rep, nil
}

func (f *fakeViews) Budgets(ctx context.Context, now time.Time) ([]budget.Status, error) {
	if err := f.seen(httpapi.Query{}); err != nil || f.empty {
		return nil, err
	}
	var out []budget.Status
	for _, b := range f.budgets {
		start, _, _ := budget.PeriodOf(b.Period, now)
		out = append(out, budget.Evaluate(b, spend(start, now), now))
	}
	return out, nil
}

func (f *fakeViews) Jobs(ctx context.Context) ([]spot.JobReport, error) {
	if err := f.seen(httpapi.Query{}); err != nil || f.empty {
		return nil, err
	}
	return []spot.JobReport{
		{Job: "llama-ft", Status: "done", Runs: 3, Wall: 30 * time.Hour, Billable: 29 * time.Hour, Running: 28 * time.Hour,
			Productive: 27 * time.Hour, LostWork: time.Hour, Restarts: 2, Interruptions: 2, Cost: gpucost.USD(42_000_000_000), Priced: true,
			OnDemand: gpucost.USD(230_000_000_000), HasOnDemand: true, Savings: gpucost.USD(188_000_000_000), SavingsPct: 81.7},
		{Job: "eval-weekly", Status: "interrupted", Runs: 1, Wall: 2 * time.Hour, Billable: 2 * time.Hour, Cost: gpucost.USD(6_120_000_000)},
	}, nil
}

func (f *fakeViews) Queues(ctx context.Context, now time.Time) ([]queue.Status, error) {
	if err := f.seen(httpapi.Query{}); err != nil || f.empty {
		return nil, err
	}
	return []queue.Status{{Queue: "records", Pending: 1_250_000, InFlight: 200, Done: 48_750_000, Dead: 12, Rate: 2314.5, ETA: gpucost.Duration(9 * time.Minute)}}, nil
}

var _ httpapi.ActivityLog = (*fakeViews)(nil)

// fakeDeliveries are the fleet's alert attempts, oldest first: research-gpus' 80% alert
// delivered on the second try, a forecast alert that failed for good, and a policy's alert.
func fakeDeliveries() []gpucost.Delivery {
	at := func(h int) time.Time { return testNow.Add(time.Duration(-h) * time.Hour) }
	return []gpucost.Delivery{
		{Key: "budget:research-gpus:2026-11:actual:50", Kind: "budget.threshold", Target: "finops-slack", Attempt: 1, At: at(200), OK: true, Final: true, Status: 200},
		{Key: "budget:research-gpus:2026-11:actual:80", Kind: "budget.threshold", Target: "finops-slack", Attempt: 1, At: at(30), Status: 503, Error: "503 Service Unavailable"},
		{Key: "budget:research-gpus:2026-11:actual:80", Kind: "budget.threshold", Target: "finops-slack", Attempt: 2, At: at(29), OK: true, Final: true, Status: 200},
		{Key: "budget:all-aws:2026-Q4:forecast:100", Kind: "budget.threshold", Target: "finops-webhook", Attempt: 5, At: at(6), Final: true, Error: "connection refused"},
		{Key: "policy:research-stop:2026-11", Kind: "policy.triggered", Target: "finops-slack", Attempt: 1, At: at(2), OK: true, Final: true, Status: 200},
	}
}

// fakeActions are the fleet's enforcement actions, oldest first.
func fakeActions() []enforce.LogEntry {
	amount, spent := gpucost.USD(20_000_000_000_000), gpucost.USD(16_420_000_000_000)
	ev := enforce.Evidence{Rule: "research-gpus actual ≥ 80%", Reason: "research-gpus has spent $16,420.00 of $20,000.00 (82.1%) in 2026-11",
		Budget: "research-gpus", Period: "2026-11", Measure: "actual", Currency: "USD", Amount: &amount, Spent: &spent, Percent: 82.1, Over: 80,
		ScopeTags: map[string]string{"team": "research"}}
	spotCap := 1
	at := func(h int) time.Time { return testNow.Add(time.Duration(-h) * time.Hour) }
	return []enforce.LogEntry{
		{ID: 1, At: at(400), Action: enforce.Action{Policy: "spot-cap", Action: enforce.ActStop, DryRun: true, Result: enforce.ResultPlanned,
			Resource: &enforce.Ref{Kind: enforce.KindEC2, ID: "i-0ancient"}, Evidence: enforce.Evidence{Rule: "spot instances > 1", SpotCount: 2, SpotCap: &spotCap, Rank: 1}}},
		{ID: 2, At: at(2), Action: enforce.Action{Policy: "research-stop", Action: enforce.ActNotify, Targets: []string{"finops-slack"}, Result: enforce.ResultDone, Evidence: ev}},
		{ID: 3, At: at(2), Action: enforce.Action{Policy: "research-stop", Action: enforce.ActStop, Result: enforce.ResultDone,
			Resource: &enforce.Ref{Kind: enforce.KindEC2, ID: "i-0exp1", Region: "us-east-1"}, Evidence: ev}},
		{ID: 4, At: at(1), Action: enforce.Action{Policy: "spot-cap", Action: enforce.ActStop, Result: enforce.ResultFailed, Error: "IncorrectSpotRequestState: a one-time spot instance cannot be stopped",
			Resource: &enforce.Ref{Kind: enforce.KindEC2, ID: "i-0spotB", Region: "us-east-1"}, Evidence: enforce.Evidence{Rule: "spot instances > 1", SpotCount: 2, SpotCap: &spotCap, Rank: 1}}},
	}
}

// Deliveries returns the fake attempts f selects, as a stored log does.
func (f *fakeViews) Deliveries(ctx context.Context, df gpucost.DeliveryFilter) ([]gpucost.Delivery, error) {
	if err := f.seen(httpapi.Query{From: df.Since}); err != nil || f.empty {
		return nil, err
	}
	var out []gpucost.Delivery
	for _, d := range fakeDeliveries() {
		if d.At.Before(df.Since) || df.Target != "" && d.Target != df.Target || !strings.HasPrefix(d.Key, df.KeyPrefix) {
			continue
		}
		out = append(out, d)
	}
	if df.Limit > 0 && len(out) > df.Limit {
		out = out[len(out)-df.Limit:]
	}
	return out, nil
}

// Actions returns the fake actions lf selects, as a stored log does.
func (f *fakeViews) Actions(ctx context.Context, lf gpucost.ActionFilter) ([]enforce.LogEntry, error) {
	if err := f.seen(httpapi.Query{From: lf.Since}); err != nil || f.empty {
		return nil, err
	}
	var out []enforce.LogEntry
	for _, e := range fakeActions() {
		if e.At.Before(lf.Since) || lf.Policy != "" && e.Action.Policy != lf.Policy {
			continue
		}
		out = append(out, e)
	}
	if lf.Limit > 0 && len(out) > lf.Limit {
		out = out[len(out)-lf.Limit:]
	}
	return out, nil
}

// memTokens is an in-memory gpucost.TokenStore.
type memTokens struct {
	mu     sync.Mutex
	tokens []gpucost.Token
	hashes [][]byte
	down   bool // every call fails as an unreachable store would
}

var _ gpucost.TokenStore = (*memTokens)(nil)

func (m *memTokens) CreateToken(ctx context.Context, t gpucost.Token, hash []byte) (gpucost.Token, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	t.ID, t.Created = int64(len(m.tokens)+1), testNow
	m.tokens, m.hashes = append(m.tokens, t), append(m.hashes, bytes.Clone(hash))
	return t, nil
}

func (m *memTokens) TokenByHash(ctx context.Context, hash []byte) (gpucost.Token, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.down {
		return gpucost.Token{}, gpucost.Errorf(gpucost.EUnavailable, "token store: connection refused")
	}
	for i, h := range m.hashes {
		if subtle.ConstantTimeCompare(h, hash) == 1 && m.tokens[i].Revoked.IsZero() {
			return m.tokens[i], nil
		}
	}
	return gpucost.Token{}, gpucost.Errorf(gpucost.ENotFound, "no such token")
}

func (m *memTokens) Tokens(ctx context.Context) ([]gpucost.Token, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]gpucost.Token(nil), m.tokens...), nil
}

func (m *memTokens) RevokeToken(ctx context.Context, id int64, at time.Time) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	for i := range m.tokens {
		if m.tokens[i].ID == id {
			if m.tokens[i].Revoked.IsZero() {
				m.tokens[i].Revoked = at
			}
			return nil
		}
	}
	return gpucost.Errorf(gpucost.ENotFound, "token %d: no such token", id)
}

// newToken creates a token with role and returns its secret.
func (m *memTokens) newToken(t testing.TB, name string, role gpucost.Role) (string, gpucost.Token) {
	t.Helper()
	secret, err := gpucost.NewTokenSecret()
	if err != nil {
		t.Fatal(err)
	}
	tok, err := m.CreateToken(context.Background(), gpucost.Token{Name: name, Role: role}, gpucost.HashTokenSecret(secret))
	if err != nil {
		t.Fatal(err)
	}
	return secret, tok
}
