package server

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/budget"
	"github.com/gpucost/gpucost/httpapi"
	"github.com/gpucost/gpucost/queue"
	"github.com/gpucost/gpucost/spot"
)

// Overview is the dashboard's front page at now: the month's allocated spend by team with its
// idle cost and idle share, its daily spend and forecast, the GPUs reporting over the last 7
// days, the savings the recommendations offer and the budgets. Its parts are the cached views, computed side by side.
func (v *Views) Overview(ctx context.Context, now time.Time) (httpapi.Overview, error) {
	return cachedView(ctx, v, "overview", func(ctx context.Context) (httpapi.Overview, error) {
		return v.overview(ctx, now)
	})
}

func (v *Views) overview(ctx context.Context, now time.Time) (httpapi.Overview, error) {
	now = now.UTC().Truncate(time.Minute)
	p, err := v.overviewParts(ctx, now)
	if err != nil {
		return httpapi.NewOverview(now, httpapi.OverviewParts{}), err
	}
	return httpapi.NewOverview(now, p), nil
}

// overviewParts computes the overview's parts at now side by side, each through the cache.
func (v *Views) overviewParts(ctx context.Context, now time.Time) (httpapi.OverviewParts, error) {
	monthStart := time.Date(now.Year(), now.Month(), 1, 0, 0, 0, 0, time.UTC)
	var (
		p    httpapi.OverviewParts
		wg   sync.WaitGroup
		errs [5]error // in the order of doing below; the daily spend's last
	)
	wg.Go(func() { p.Fleet, errs[0] = v.GPUs(ctx, httpapi.Query{By: "model"}) })
	wg.Go(func() { p.Recommendations, errs[1] = v.Recommendations(ctx, httpapi.Query{}) })
	wg.Go(func() { p.Budgets, errs[2] = v.Budgets(ctx, now) })
	wg.Go(func() {
		if now.Sub(monthStart) >= time.Minute {
			p.Costs, errs[3] = v.Costs(ctx, httpapi.Query{From: monthStart, To: now, By: "team"})
		}
	})
	wg.Go(func() { p.Spend, errs[4] = v.monthSpend(ctx, now, "USD") })
	wg.Wait()
	var failed error
	for i, doing := range []string{"fleet utilisation", "recommendations", "budgets", "month-to-date costs"} {
		if errs[i] != nil {
			failed = errors.Join(failed, fmt.Errorf("%s: %w", doing, errs[i]))
		}
	}
	if failed != nil {
		return p, failed
	}
	p.Currency = httpapi.MainCurrency(p.Costs)
	if p.Currency != "USD" && errs[4] == nil {
		p.Spend, errs[4] = v.monthSpend(ctx, now, p.Currency)
	}
	if errs[4] != nil {
		return p, fmt.Errorf("daily spend: %w", errs[4])
	}
	return p, nil
}

// monthSpend is the whole bill's daily spend in currency over the month holding now, with its
// forecast: budget status's code on a budget that counts every line.
func (v *Views) monthSpend(ctx context.Context, now time.Time, currency string) (budget.Status, error) {
	all := budget.Budget{Name: "all spend", Period: budget.Monthly, Amount: gpucost.Money{Currency: currency}, Cost: budget.Effective}
	sp, _, err := budget.ReadSpend(ctx, v.store, []budget.Budget{all}, now.UTC())
	if err != nil {
		return budget.Status{}, err
	}
	return sp.Statuses(now)[0], nil
}

// Jobs are gpucost report jobs over Options.JobsStore; none without one.
func (v *Views) Jobs(ctx context.Context) ([]spot.JobReport, error) {
	if v.jobsStore == "" {
		return []spot.JobReport{}, nil
	}
	return cachedView(ctx, v, "jobs", func(ctx context.Context) ([]spot.JobReport, error) {
		reps, err := v.jobs(ctx)
		switch gpucost.ErrorCode(err) {
		case "":
			return reps, nil
		case gpucost.ENotFound:
			return []spot.JobReport{}, nil
		}
		return nil, err
	})
}

// jobs reads the events of every job in the jobs store and sums each job up.
func (v *Views) jobs(ctx context.Context) ([]spot.JobReport, error) {
	if v.openObjectStore == nil {
		return nil, gpucost.Errorf(gpucost.EInternal, "the server was given a jobs store %s but no way to open it (Options.OpenObjectStore)", v.jobsStore)
	}
	store, err := v.openObjectStore(ctx, v.jobsStore)
	if err != nil {
		return nil, err
	}
	reps, _, err := spot.Reports(ctx, store, v.jobsStore, "", v.log)
	return reps, err
}

// Queues are gpucost queue status of every queue on the NATS server of Options.NATSURL; none
// without one. The URL may hold a password, so errors do not repeat it.
func (v *Views) Queues(ctx context.Context, now time.Time) ([]queue.Status, error) {
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

// queueStatuses reads the status of every queue on the NATS server at url.
func queueStatuses(ctx context.Context, url string, now time.Time) ([]queue.Status, error) {
	c, err := queue.Dial(ctx, url)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	names, err := c.Queues(ctx)
	if err != nil {
		return nil, err
	}
	out := []queue.Status{}
	for _, q := range names {
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
