package main

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/analyze"
	"github.com/gpucost/gpucost/budget"
	"github.com/gpucost/gpucost/httpapi"
	"github.com/gpucost/gpucost/queue"
	"github.com/gpucost/gpucost/spot"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// Overview is the dashboard's front page at now: the month's allocated spend by team, its daily
// spend and forecast, the fleet's GPUs and idle share over the last 7 days, the savings the
// recommendations offer and the budgets. Its parts are the cached views, computed side by side.
func (v *storeViews) Overview(ctx context.Context, now time.Time) (httpapi.Overview, error) {
	return cachedView(ctx, v, "overview", func(ctx context.Context) (httpapi.Overview, error) {
		return v.overview(ctx, now)
	})
}

func (v *storeViews) overview(ctx context.Context, now time.Time) (httpapi.Overview, error) {
	now = now.UTC().Truncate(time.Minute)
	monthStart := time.Date(now.Year(), now.Month(), 1, 0, 0, 0, 0, time.UTC)
	p, err := v.overviewParts(ctx, now, monthStart)
	if err != nil {
		return httpapi.NewOverview(now, httpapi.OverviewParts{}), err
	}
	return httpapi.NewOverview(now, httpapi.OverviewParts{Costs: p.costs, Currency: p.currency, Spend: p.spend,
		Fleet: p.fleet, Recommendations: p.recs, Budgets: p.budgets}), nil
}

// overviewParts are the views the overview is made of.
type overviewParts struct {
	costs    httpapi.CostReport // by team, month to date
	currency string             // of the month's largest spend
	spend    budget.Status      // the whole bill's month, as a budget of no amount
	fleet    analyze.Report     // utilisation over the last 7 days
	recs     httpapi.RecommendationReport
	budgets  []budget.Status
}

// overviewParts computes the overview's parts side by side, each through the cache.
func (v *storeViews) overviewParts(ctx context.Context, now, monthStart time.Time) (overviewParts, error) {
	var (
		p                          overviewParts
		wg                         sync.WaitGroup
		costsErr, spendErr, others error
		mu                         sync.Mutex
	)
	fail := func(doing string, err error) {
		mu.Lock()
		others = errors.Join(others, fmt.Errorf("%s: %w", doing, err))
		mu.Unlock()
	}
	wg.Go(func() {
		if now.Sub(monthStart) >= time.Minute {
			p.costs, costsErr = v.Costs(ctx, httpapi.Query{From: monthStart, To: now, By: "team"})
		}
	})
	wg.Go(func() { p.spend, spendErr = v.monthSpend(ctx, now, "USD") })
	wg.Go(func() {
		var err error
		if p.fleet, err = v.GPUs(ctx, httpapi.Query{By: "model"}); err != nil {
			fail("fleet utilisation", err)
		}
	})
	wg.Go(func() {
		var err error
		if p.recs, err = v.Recommendations(ctx, httpapi.Query{}); err != nil {
			fail("recommendations", err)
		}
	})
	wg.Go(func() {
		var err error
		if p.budgets, err = v.Budgets(ctx, now); err != nil {
			fail("budgets", err)
		}
	})
	wg.Wait()
	if costsErr != nil {
		others = errors.Join(others, fmt.Errorf("month-to-date costs: %w", costsErr))
	}
	if others != nil {
		return p, others
	}
	p.currency = httpapi.MainCurrency(p.costs)
	if p.currency != "USD" && spendErr == nil {
		p.spend, spendErr = v.monthSpend(ctx, now, p.currency)
	}
	if spendErr != nil {
		return p, fmt.Errorf("daily spend: %w", spendErr)
	}
	return p, nil
}

// monthSpend is the whole bill's daily spend in currency over the month holding now, with its
// forecast: budget status's code on a budget that counts every line.
func (v *storeViews) monthSpend(ctx context.Context, now time.Time, currency string) (budget.Status, error) {
	all := budget.Budget{Name: "all spend", Period: budget.Monthly, Amount: gpucost.Money{Currency: currency}, Cost: budget.Effective}
	e := v.env()
	e.now = func() time.Time { return now }
	sp, err := e.budgetSpend(ctx, []budget.Budget{all})
	if err != nil {
		return budget.Status{}, err
	}
	return sp.statuses(now)[0], nil
}

// Jobs are gpucost report jobs over serve --jobs-store; none without one.
func (v *storeViews) Jobs(ctx context.Context) ([]spot.JobReport, error) {
	if v.jobsStore == "" {
		return []spot.JobReport{}, nil
	}
	return cachedView(ctx, v, "jobs", func(ctx context.Context) ([]spot.JobReport, error) {
		reps, _, err := jobReports(ctx, v.env(), v.jobsStore, "")
		switch gpucost.ErrorCode(err) {
		case "":
			return reps, nil
		case gpucost.ENotFound:
			return []spot.JobReport{}, nil
		}
		return nil, err
	})
}

// Queues are gpucost queue status of every queue on the NATS server of serve --nats; none
// without one. The URL may hold a password, so errors do not repeat it.
func (v *storeViews) Queues(ctx context.Context, now time.Time) ([]queue.Status, error) {
	if v.natsURL == "" {
		return []queue.Status{}, nil
	}
	return cachedView(ctx, v, "queues", func(ctx context.Context) ([]queue.Status, error) {
		out, err := queueStatuses(ctx, v.natsURL, now)
		if err != nil {
			v.log.Warn("read the work queues", "err", redactURL(err.Error(), v.natsURL))
			return nil, gpucost.Errorf(gpucost.EUnavailable, "read the work queues: the NATS server of serve --nats does not answer; see the server log")
		}
		return out, nil
	})
}

// queueStatuses lists the queues (streams GPUCOST_Q_<name>, as package queue names them) and
// reads each one's status.
func queueStatuses(ctx context.Context, url string, now time.Time) ([]queue.Status, error) {
	nc, err := nats.Connect(url, nats.Name("gpucost serve"), nats.Timeout(5*time.Second))
	if err != nil {
		return nil, err
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		return nil, err
	}
	lister := js.StreamNames(ctx, jetstream.WithStreamListSubject("gpucost.q.*.items"))
	var names []string
	for name := range lister.Name() {
		if q, ok := strings.CutPrefix(name, "GPUCOST_Q_"); ok {
			names = append(names, q)
		}
	}
	if err := lister.Err(); err != nil && !errors.Is(err, jetstream.ErrEndOfData) {
		return nil, err
	}
	c, err := queue.Dial(ctx, url)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	out := []queue.Status{}
	slices.Sort(names)
	for _, q := range slices.Compact(names) {
		st, err := c.Status(ctx, q, now)
		if err != nil {
			return nil, err
		}
		out = append(out, st)
	}
	return out, nil
}

// redactURL replaces a URL's password in s.
func redactURL(s, url string) string {
	if _, rest, ok := strings.Cut(url, "://"); ok {
		if userinfo, _, ok := strings.Cut(rest, "@"); ok {
			if _, pw, ok := strings.Cut(userinfo, ":"); ok && pw != "" {
				s = strings.ReplaceAll(s, pw, "REDACTED")
			}
			if !strings.Contains(userinfo, ":") && userinfo != "" {
				s = strings.ReplaceAll(s, userinfo, "REDACTED") // a token as the user
			}
		}
	}
	return s
}
