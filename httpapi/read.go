package httpapi

import (
	"context"
	"net/http"
	"slices"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/analyze"
	"github.com/gpucost/gpucost/budget"
	"github.com/gpucost/gpucost/queue"
	"github.com/gpucost/gpucost/spot"
)

// AllocationDimensions are the owner dimensions /api/v1/allocations groups by; /api/v1/costs
// takes any grouping of gpucost report cost.
var AllocationDimensions = []string{"team", "project", "namespace", "job"}

// Responses of the read endpoints: each is the view with its main list replaced by one page of
// it, and the page's place in the whole list.

// OverviewResponse is GET /api/v1/overview: the overview and the currency of its amounts,
// which JSON money (a plain decimal) does not carry.
type OverviewResponse struct {
	Overview
	Currency string `json:"currency"`
}

// GPUsResponse is GET /api/v1/gpus: the utilisation report, one page of its groups.
type GPUsResponse struct {
	analyze.Report
	Groups []analyze.GroupStats `json:"groups"`
	Page   Page                 `json:"page"`
}

// HeatmapResponse is GET /api/v1/utilization: one page of the heatmap's rows.
type HeatmapResponse struct {
	Heatmap
	Rows []HeatmapRow `json:"rows"`
	Page Page         `json:"page"`
}

// CostsResponse is GET /api/v1/costs and /api/v1/allocations: one page of the cost groups,
// and per currency the groups' total beside the stored bill's (total and bill carry no currency
// in JSON).
type CostsResponse struct {
	CostReport
	Groups     []CostGroup     `json:"groups"`
	Currencies []CurrencyTotal `json:"currencies"`
	Page       Page            `json:"page"`
}

// CurrencyTotal is the groups' total and the stored bill's in one currency.
type CurrencyTotal struct {
	Currency string        `json:"currency"`
	Total    gpucost.Money `json:"total"` // the groups' effective + idle cost
	Bill     gpucost.Money `json:"bill"`  // the stored bill's effective cost
}

// currencyTotals pairs a cost report's totals and bill by currency, in currency order.
func currencyTotals(rep CostReport) []CurrencyTotal {
	by := map[string]*CurrencyTotal{}
	var order []string
	at := func(cur string) *CurrencyTotal {
		if by[cur] == nil {
			by[cur] = &CurrencyTotal{Currency: cur, Total: gpucost.Money{Currency: cur}, Bill: gpucost.Money{Currency: cur}}
			order = append(order, cur)
		}
		return by[cur]
	}
	for _, m := range rep.Total {
		at(m.Currency).Total = m
	}
	for _, m := range rep.Bill {
		at(m.Currency).Bill = m
	}
	slices.Sort(order)
	out := make([]CurrencyTotal, 0, len(order))
	for _, cur := range order {
		out = append(out, *by[cur])
	}
	return out
}

// IdleResponse is GET /api/v1/idle: one page of the idle periods, longest first, and the
// weekly idle patterns of the series in that page.
type IdleResponse struct {
	analyze.IdleReport
	Periods  []analyze.IdlePeriod  `json:"periods"`
	Patterns []analyze.IdlePattern `json:"patterns"`
	Page     Page                  `json:"page"`
}

// AlertsResponse is GET /api/v1/alerts: one page of the alert episodes, firing first.
type AlertsResponse struct {
	analyze.AlertReport
	Alerts []analyze.Alert `json:"alerts"`
	Page   Page            `json:"page"`
}

// RecommendationsResponse is GET /api/v1/recommendations: the plan with one page of its groups
// (plan.groups); the totals and the levers' shares are of the whole plan.
type RecommendationsResponse struct {
	RecommendationReport
	Page Page `json:"page"`
}

// BudgetsResponse is GET and PUT /api/v1/budgets: one page of the budgets' statuses.
type BudgetsResponse struct {
	Budgets []budget.Status `json:"budgets"`
	Page    Page            `json:"page"`
}

// JobsResponse is GET /api/v1/jobs: one page of the spot jobs.
type JobsResponse struct {
	Jobs []spot.JobReport `json:"jobs"`
	Page Page             `json:"page"`
}

// QueuesResponse is GET /api/v1/queues: one page of the work queues.
type QueuesResponse struct {
	Queues []queue.Status `json:"queues"`
	Page   Page           `json:"page"`
}

// readRoutes are the viewers' endpoints over Views.
func (s *Server) readRoutes() []route {
	viewer := []gpucost.Role{gpucost.RoleViewer}
	return []route{
		{"GET", "/api/v1/overview", viewer, s.getOverview},
		{"GET", "/api/v1/gpus", viewer, s.getGPUs},
		{"GET", "/api/v1/utilization", viewer, s.getHeatmap},
		{"GET", "/api/v1/costs", viewer, s.getCosts},
		{"GET", "/api/v1/allocations", viewer, s.getAllocations},
		{"GET", "/api/v1/idle", viewer, s.getIdle},
		{"GET", "/api/v1/alerts", viewer, s.getAlerts},
		{"GET", "/api/v1/recommendations", viewer, s.getRecommendations},
		{"GET", "/api/v1/budgets", viewer, s.getBudgets},
		{"GET", "/api/v1/jobs", viewer, s.getJobs},
		{"GET", "/api/v1/queues", viewer, s.getQueues},
	}
}

// The parameters each kind of endpoint takes.
var (
	telemetryParams = readParams{period: true, by: true, filter: true, paged: true}
	listParams      = readParams{paged: true}
)

// read answers a read request: it parses p's parameters, calls view and writes what it returns;
// an error is written with the status its code maps to, doing saying what failed.
func (s *Server) read(w http.ResponseWriter, r *http.Request, p readParams, doing string,
	view func(ctx context.Context, q Query, pg paging) (any, error)) {
	if s.Views == nil {
		writeError(w, http.StatusServiceUnavailable, gpucost.EUnavailable, "this server computes no reports (it was started without views)")
		return
	}
	params := r.URL.Query()
	q, err := parseQuery(params, s.Now(), p)
	if err != nil {
		s.badParam(w, err)
		return
	}
	var pg paging
	if p.paged {
		if pg, err = parsePaging(params); err != nil {
			s.badParam(w, err)
			return
		}
	}
	out, err := view(r.Context(), q, pg)
	if err != nil {
		s.writeErr(w, err, doing)
		return
	}
	writeJSON(w, http.StatusOK, out)
}

func (s *Server) getOverview(w http.ResponseWriter, r *http.Request) {
	s.read(w, r, readParams{}, "compute the overview", func(ctx context.Context, _ Query, _ paging) (any, error) {
		ov, err := s.Views.Overview(ctx, s.Now())
		return OverviewResponse{Overview: ov, Currency: ov.MonthToDate.Currency}, err
	})
}

func (s *Server) getGPUs(w http.ResponseWriter, r *http.Request) {
	s.read(w, r, telemetryParams, "compute GPU utilisation", func(ctx context.Context, q Query, p paging) (any, error) {
		rep, err := s.Views.GPUs(ctx, q)
		if err != nil {
			return nil, err
		}
		groups, page := pageOf(rep.Groups, p, r.URL)
		return GPUsResponse{Report: rep, Groups: groups, Page: page}, nil
	})
}

func (s *Server) getHeatmap(w http.ResponseWriter, r *http.Request) {
	s.read(w, r, telemetryParams, "compute the utilisation heatmap", func(ctx context.Context, q Query, p paging) (any, error) {
		if q.By != "" && q.By != "gpu" && q.By != "host" {
			return nil, paramError("by", q.By, "the heatmap has a row per gpu (the default) or host")
		}
		h, err := s.Views.Heatmap(ctx, q)
		if err != nil {
			return nil, err
		}
		rows, page := pageOf(h.Rows, p, r.URL)
		return HeatmapResponse{Heatmap: h, Rows: rows, Page: page}, nil
	})
}

func (s *Server) getCosts(w http.ResponseWriter, r *http.Request) {
	s.read(w, r, telemetryParams, "compute the costs", func(ctx context.Context, q Query, p paging) (any, error) {
		return s.costs(ctx, q, p, r)
	})
}

func (s *Server) getAllocations(w http.ResponseWriter, r *http.Request) {
	s.read(w, r, telemetryParams, "compute the allocations", func(ctx context.Context, q Query, p paging) (any, error) {
		if q.By == "" {
			q.By = "team"
		}
		if !slices.Contains(AllocationDimensions, q.By) {
			return nil, paramError("by", q.By, "allocations group by an owner: team, project, namespace or job; /api/v1/costs takes any grouping")
		}
		return s.costs(ctx, q, p, r)
	})
}

func (s *Server) costs(ctx context.Context, q Query, p paging, r *http.Request) (any, error) {
	rep, err := s.Views.Costs(ctx, q)
	if err != nil {
		return nil, err
	}
	groups, page := pageOf(rep.Groups, p, r.URL)
	return CostsResponse{CostReport: rep, Groups: groups, Currencies: currencyTotals(rep), Page: page}, nil
}

func (s *Server) getIdle(w http.ResponseWriter, r *http.Request) {
	p := telemetryParams
	p.by = false
	s.read(w, r, p, "compute the idle periods", func(ctx context.Context, q Query, p paging) (any, error) {
		rep, err := s.Views.Idle(ctx, q)
		if err != nil {
			return nil, err
		}
		periods, page := pageOf(rep.Periods, p, r.URL)
		return IdleResponse{IdleReport: rep, Periods: periods, Patterns: patternsOf(rep.Patterns, periods), Page: page}, nil
	})
}

func (s *Server) getAlerts(w http.ResponseWriter, r *http.Request) {
	p := telemetryParams
	p.by = false
	s.read(w, r, p, "evaluate the alerts", func(ctx context.Context, q Query, p paging) (any, error) {
		rep, err := s.Views.Alerts(ctx, q)
		if err != nil {
			return nil, err
		}
		alerts, page := pageOf(rep.Alerts, p, r.URL)
		return AlertsResponse{AlertReport: rep, Alerts: alerts, Page: page}, nil
	})
}

func (s *Server) getRecommendations(w http.ResponseWriter, r *http.Request) {
	p := telemetryParams
	p.by = false
	s.read(w, r, p, "compute the recommendations", func(ctx context.Context, q Query, p paging) (any, error) {
		rep, err := s.Views.Recommendations(ctx, q)
		if err != nil {
			return nil, err
		}
		groups, page := pageOf(rep.Plan.Groups, p, r.URL)
		rep.Plan.Groups = groups
		return RecommendationsResponse{RecommendationReport: rep, Page: page}, nil
	})
}

func (s *Server) getBudgets(w http.ResponseWriter, r *http.Request) {
	s.read(w, r, listParams, "evaluate the budgets", func(ctx context.Context, _ Query, p paging) (any, error) {
		return s.budgetStatuses(ctx, p, r)
	})
}

func (s *Server) budgetStatuses(ctx context.Context, p paging, r *http.Request) (BudgetsResponse, error) {
	st, err := s.Views.Budgets(ctx, s.Now())
	if err != nil {
		return BudgetsResponse{}, err
	}
	list, page := pageOf(st, p, r.URL)
	return BudgetsResponse{Budgets: list, Page: page}, nil
}

func (s *Server) getJobs(w http.ResponseWriter, r *http.Request) {
	s.read(w, r, listParams, "read the spot jobs", func(ctx context.Context, _ Query, p paging) (any, error) {
		jobs, err := s.Views.Jobs(ctx)
		if err != nil {
			return nil, err
		}
		list, page := pageOf(jobs, p, r.URL)
		return JobsResponse{Jobs: list, Page: page}, nil
	})
}

func (s *Server) getQueues(w http.ResponseWriter, r *http.Request) {
	s.read(w, r, listParams, "read the queues", func(ctx context.Context, _ Query, p paging) (any, error) {
		qs, err := s.Views.Queues(ctx, s.Now())
		if err != nil {
			return nil, err
		}
		list, page := pageOf(qs, p, r.URL)
		return QueuesResponse{Queues: list, Page: page}, nil
	})
}

// patternsOf returns the patterns of the series that periods are of.
func patternsOf(patterns []analyze.IdlePattern, periods []analyze.IdlePeriod) []analyze.IdlePattern {
	keys := map[string]bool{}
	for _, p := range periods {
		if p.Series != nil {
			keys[p.Series.Key()] = true
		}
	}
	out := []analyze.IdlePattern{}
	for _, p := range patterns {
		if p.Series != nil && keys[p.Series.Key()] {
			out = append(out, p)
		}
	}
	return out
}
