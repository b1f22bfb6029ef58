package httpapi

import (
	"fmt"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/analyze"
	"github.com/gpucost/gpucost/budget"
	"github.com/gpucost/gpucost/fleet"
)

// TopTeams is how many teams the overview lists.
const TopTeams = 5

// OverviewParts are the views the overview is made of.
type OverviewParts struct {
	Costs           CostReport     // by team, month to date
	Currency        string         // of the month's largest spend (MainCurrency)
	Spend           budget.Status  // the whole bill's month, as a budget of no amount
	Fleet           analyze.Report // utilisation over the last 7 days: the GPUs reporting
	Recommendations RecommendationReport
	Budgets         []budget.Status
}

// NewOverview is the dashboard's front page at now from its parts: the month's spend by team
// with its idle cost and idle share (idle cost ÷ GPU cost: CostReport's figures), the GPUs
// reporting over the last 7 days, the savings and the budgets. Zero parts give an empty page.
func NewOverview(now time.Time, p OverviewParts) Overview {
	monthStart := time.Date(now.Year(), now.Month(), 1, 0, 0, 0, 0, time.UTC)
	ov := Overview{Now: now, MonthStart: monthStart, Daily: []budget.DayCost{}, Budgets: []budget.Status{}, TopTeams: []CostGroup{}}
	if p.Currency == "" {
		return ov
	}
	ov.GPUs = p.Fleet.Fleet.GPUs
	if p.Budgets != nil {
		ov.Budgets = p.Budgets
	}
	ov.Forecast, ov.Daily = p.Spend.Forecast, p.Spend.Daily
	ov.Savings, ov.Recommended = p.Recommendations.MonthlySaving, len(p.Recommendations.Plan.Steps())
	ov.MonthToDate, ov.IdleCost = gpucost.Money{Currency: p.Currency}, gpucost.Money{Currency: p.Currency}
	gpuCost := gpucost.Money{Currency: p.Currency}
	for _, g := range p.Costs.Groups {
		if g.Currency != p.Currency {
			continue
		}
		ov.MonthToDate.Nanos += g.TotalCost.Nanos
		ov.IdleCost.Nanos += g.IdleCost.Nanos
		gpuCost.Nanos += g.GPUCost.Nanos
		switch {
		case g.PriceSource == "" || g.PriceSource == ov.PriceSource:
		case ov.PriceSource == "":
			ov.PriceSource = g.PriceSource
		default:
			ov.PriceSource = "mixed"
		}
		if len(ov.TopTeams) < TopTeams {
			ov.TopTeams = append(ov.TopTeams, g)
		}
	}
	ov.IdlePercent = fleet.IdleShare(ov.IdleCost, gpuCost)
	ov.Notes = overviewNotes(p.Costs, p.Currency, ov)
	return ov
}

// MainCurrency is the currency of the largest spend: USD unless the bill is in another.
func MainCurrency(c CostReport) string {
	best, cur := int64(-1), "USD"
	for _, t := range c.Total {
		if t.Nanos > best {
			best, cur = t.Nanos, t.Currency
		}
	}
	return cur
}

func overviewNotes(c CostReport, cur string, ov Overview) []string {
	var notes []string
	for _, t := range c.Total {
		if t.Currency != cur {
			notes = append(notes, fmt.Sprintf("Spend in %s (%s this month) is left out of the %s figures; currencies are never converted.", t.Currency, t.Fixed(2), cur))
		}
	}
	switch {
	case len(c.Groups) == 0:
		notes = append(notes, "No bill lines this month yet: import bills with gpucost import billing or POST /api/v1/bills.")
	case c.Reconciled:
		notes = append(notes, "Month-to-date spend prices each GPU-hour at what the bill paid for it, the idle time of a team's GPUs on its row; it reconciles with the stored bill to the cent.")
	default:
		notes = append(notes, "Month-to-date spend prices each GPU-hour at what the bill paid for it, at catalog on-demand prices where no bill line covers it.")
	}
	if ov.GPUs == 0 {
		notes = append(notes, "No GPU telemetry over the last 7 days: run gpucost agent --server against this server.")
	}
	return notes
}
