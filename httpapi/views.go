package httpapi

import (
	"context"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/analyze"
	"github.com/gpucost/gpucost/budget"
	"github.com/gpucost/gpucost/fleet"
	"github.com/gpucost/gpucost/queue"
	"github.com/gpucost/gpucost/recommend"
	"github.com/gpucost/gpucost/spot"
)

// Views are what the read API and the dashboard show: the reports over the store, computed
// with the same code as `gpucost report`, `gpucost recommend` and `gpucost budget status`, each
// figure from the fleet snapshot of its period (package fleet). cmd/gpucost implements them over
// the server's store; tests use fixed data.
type Views interface {
	UsageViews
	CostViews
	PlanViews
	StatusViews
}

// UsageViews are the views over telemetry.
type UsageViews interface {
	// GPUs is the utilisation report grouped by q.By (gpu by default; host, model,
	// namespace, pod, job or label:KEY), with the fleet snapshot's GPU-hours, idle and cost.
	GPUs(ctx context.Context, q Query) (analyze.Report, error)
	// Heatmap is the hourly utilisation of each GPU (q.By "gpu", the default) or host.
	Heatmap(ctx context.Context, q Query) (Heatmap, error)
	// Idle is the idle report: the zero-util periods, priced as the snapshot prices their GPUs.
	Idle(ctx context.Context, q Query) (analyze.IdleReport, error)
	// Alerts is the utilisation alert rules evaluated over the period.
	Alerts(ctx context.Context, q Query) (analyze.AlertReport, error)
}

// CostViews are the views over the bill and what it paid for.
type CostViews interface {
	// Overview is the dashboard's front page as of now.
	Overview(ctx context.Context, now time.Time) (Overview, error)
	// Costs is the spend grouped by q.By (team by default; any `gpucost report cost --by`
	// value), with the daily series and the bill it reconciles to.
	Costs(ctx context.Context, q Query) (CostReport, error)
}

// PlanViews are the views of what to change and the budgets.
type PlanViews interface {
	// Recommendations are gpucost recommend's, ranked by monthly saving.
	Recommendations(ctx context.Context, q Query) (RecommendationReport, error)
	// Budgets is where each configured budget stands in the period holding now.
	Budgets(ctx context.Context, now time.Time) ([]budget.Status, error)
}

// StatusViews are the views of the machinery: spot jobs and work queues.
type StatusViews interface {
	// Jobs are the spot jobs of the job store (gpucost report jobs); none without one.
	Jobs(ctx context.Context) ([]spot.JobReport, error)
	// Queues are the work queues' counts (gpucost queue status); none without a queue server.
	Queues(ctx context.Context, now time.Time) ([]queue.Status, error)
}

// PeriodEnd is where a view's period ends when the query gives no end: now rounded up to the
// hour, so that the API, the dashboard and the overview asked at any minute of one hour show
// the same period, and the same figures.
func PeriodEnd(now time.Time) time.Time {
	end := now.Truncate(time.Hour)
	if end.Before(now) {
		end = end.Add(time.Hour)
	}
	return end
}

// Query selects what a read endpoint shows.
type Query struct {
	From, To time.Time         // the period; each view's default where zero (the last 7 days for telemetry, 30 for costs)
	By       string            // the grouping; each view says which it takes
	Filter   map[string]string // equality filters on labels and tags, such as team=ml or namespace=serving
}

// Period is the query's period [From, To): where To is zero it ends at PeriodEnd(now), where From
// is zero it is def long. It returns an EInvalid error for a period shorter than a minute.
func (q Query) Period(now time.Time, def time.Duration) (fleet.Period, error) {
	to := q.To
	if to.IsZero() {
		to = PeriodEnd(now)
	}
	from := q.From
	if from.IsZero() {
		from = to.Add(-def)
	}
	return fleet.NewPeriod(from, to)
}

// Overview is the dashboard's front page: the month's spend and where it is heading, idle
// capacity, the savings on offer and the budgets.
type Overview struct {
	Now         time.Time         `json:"now"`
	MonthStart  time.Time         `json:"month_start"`
	MonthToDate gpucost.Money     `json:"month_to_date"` // allocated spend from the month's start to now
	Forecast    budget.Projection `json:"forecast"`      // the month's projected total
	Daily       []budget.DayCost  `json:"daily"`         // the month's spend per day so far
	GPUs        int               `json:"gpus"`          // GPUs reporting over the last 7 days
	IdlePercent float64           `json:"idle_pct"`      // month to date: idle cost ÷ GPU cost, in percent
	IdleCost    gpucost.Money     `json:"idle_cost"`     // month to date
	PriceSource string            `json:"price_source"`  // of the month's GPU-hours: bill, catalog or mixed
	Savings     gpucost.Money     `json:"savings"`       // monthly, all recommendations together
	Recommended int               `json:"recommendations"`
	Budgets     []budget.Status   `json:"budgets"`
	TopTeams    []CostGroup       `json:"top_teams"` // the month's largest, at most 5
	Notes       []string          `json:"notes,omitempty"`
}

// CostGroup is one group's spend in one currency over a period.
type CostGroup struct {
	Group        string          `json:"group"`
	Currency     string          `json:"currency"`
	CostLessIdle gpucost.Money   `json:"cost_less_idle"` // TotalCost less IdleCost
	IdleCost     gpucost.Money   `json:"idle_cost"`      // idle time of the GPUs the group held, at its price
	TotalCost    gpucost.Money   `json:"total_cost"`     // the group's cost, idle included, at the GPU-hours' prices
	BilledCost   gpucost.Money   `json:"billed_cost"`    // the group's share of the bill's BilledCost, idle included
	GPUCost      gpucost.Money   `json:"gpu_cost"`       // the group's GPU-hours at their price, idle included
	GPUHours     float64         `json:"gpu_hours"`
	UsedGPUHours float64         `json:"used_gpu_hours"`
	IdleGPUHours float64         `json:"idle_gpu_hours"`
	IdlePercent  float64         `json:"idle_pct"`     // idle cost ÷ GPU cost
	PriceSource  string          `json:"price_source"` // bill, catalog or mixed
	Daily        []gpucost.Money `json:"daily"`        // effective + idle cost per day of CostReport.Days

	// Cents is what a table of the report's groups prints (FillCents); the JSON carries the
	// exact amounts above.
	Cents GroupCents `json:"-"`
}

// GroupCents is a group's cost figures rounded to the cent so that a table of all the report's
// groups adds up: each row's cost less idle + idle cost is its total, and each column adds up
// to its exact sum rounded (gpucost.ApportionSplit, gpucost.Apportion).
type GroupCents struct {
	CostLessIdle, IdleCost, TotalCost, BilledCost gpucost.Money
}

// FillCents sets each group's Cents from the figures of all of groups, so that a group's cents
// are the same on every page that prints it, a table of every group or the first few.
func FillCents(groups []CostGroup) {
	totals, idles, billed := make([]gpucost.Money, len(groups)), make([]gpucost.Money, len(groups)), make([]gpucost.Money, len(groups))
	for i, g := range groups {
		totals[i], idles[i], billed[i] = g.TotalCost, g.IdleCost, g.BilledCost
		totals[i].Currency, idles[i].Currency, billed[i].Currency = g.Currency, g.Currency, g.Currency
	}
	total, idle, lessIdle := gpucost.ApportionSplit(totals, idles, 2)
	billed = gpucost.Apportion(billed, 2)
	for i := range groups {
		groups[i].Cents = GroupCents{CostLessIdle: lessIdle[i], IdleCost: idle[i], TotalCost: total[i], BilledCost: billed[i]}
	}
}

// CostReport is the bill allocated to groups, and the check that the groups add up to the
// stored bill to the cent.
type CostReport struct {
	By         string          `json:"by"`
	From       time.Time       `json:"from"`
	To         time.Time       `json:"to"`
	Days       []time.Time     `json:"days"`
	Groups     []CostGroup     `json:"groups"` // largest first
	Total      []gpucost.Money `json:"total"`  // the groups' effective + idle cost, per currency
	Bill       []gpucost.Money `json:"bill"`   // the stored bill lines' effective cost over the period, per currency
	Reconciled bool            `json:"reconciled"`
	Notes      []string        `json:"notes,omitempty"`
}

// Heatmap is hourly utilisation per GPU or host (analyze.Heatmap).
type Heatmap = analyze.Heatmap

// HeatmapRow is one GPU's or host's hours.
type HeatmapRow = analyze.HeatmapRow

// RecommendationReport is gpucost recommend's plan: per group of machines, the steps in the
// order they apply with the alternatives they were chosen over; MonthlySaving is the plan's
// saving, the total of gpucost report savings.
type RecommendationReport struct {
	Plan          recommend.Plan `json:"plan"`
	MonthlySaving gpucost.Money  `json:"monthly_saving"`
	OneTimeCost   gpucost.Money  `json:"one_time_cost,omitzero"`
	Notes         []string       `json:"notes,omitempty"`
}
