package web

import (
	"net/http"
	"strings"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/analyze"
)

// alertsPage is the period's alerts grouped by rule, then by GPU: a summary row per rule and
// one page of rule-and-GPU rows, so a fleet whose rules hold on thousands of GPUs stays a page.
type alertsPage struct {
	Rules  []ruleAlerts // every rule that held, firing first, then most severe
	Rows   []gpuAlerts  // this page's rows
	List   listParams
	Span   pageOf
	Counts alertCounts
	Report analyze.AlertReport // Alerts cleared: the rows carry them
}

// stateCounts counts episodes by state. Pending conditions, not yet held for the rule's
// duration, are not alerts (analyze.AlertEvaluator), so a page never counts them.
type stateCounts struct {
	Firing, NoData, Resolved int
}

func (c *stateCounts) add(s analyze.AlertState) {
	switch s {
	case analyze.Firing:
		c.Firing++
	case analyze.AlertNoData:
		c.NoData++
	case analyze.Resolved:
		c.Resolved++
	}
}

// ruleAlerts is one rule's alerts over the fleet.
type ruleAlerts struct {
	Rule analyze.Rule
	GPUs int
	stateCounts
}

// gpuAlerts is one rule's alerts on one GPU: its episodes by state and the latest one.
type gpuAlerts struct {
	Rule     analyze.Rule
	GPU      gpucost.GPU
	Episodes int
	stateCounts
	Latest analyze.Alert // the episode that started last
}

func loadAlerts(s *site, r *http.Request, q query) (any, error) {
	lp, err := parseListParams(r.URL.Query(), nil)
	if err != nil {
		return nil, gpucost.Errorf(gpucost.EInvalid, "%v", err)
	}
	al, err := s.d.Views.Alerts(r.Context(), q.Query)
	if err != nil {
		return nil, err
	}
	return groupAlerts(al, lp), nil
}

// groupAlerts groups al's alerts by rule, in the order the report puts their first alert
// (firing first, then most severe), then by GPU in the same order, and keeps lp's page of rows;
// lp.Q keeps the alerts whose rule, GPU or host holds it.
func groupAlerts(al analyze.AlertReport, lp listParams) alertsPage {
	p := alertsPage{List: lp, Counts: countAlerts(al)}
	ruleAt := map[string]int{}
	type key struct{ rule, gpu string }
	rowAt := map[key]int{}
	var rows []gpuAlerts
	q := strings.ToLower(lp.Q)
	for _, a := range al.Alerts {
		if q != "" && !containsFold(a.Rule.Name, q) && !containsFold(a.Series.GPU.UUID, q) && !containsFold(a.Series.GPU.Host, q) {
			continue
		}
		ri, ok := ruleAt[a.Rule.Name]
		if !ok {
			ri = len(p.Rules)
			ruleAt[a.Rule.Name] = ri
			p.Rules = append(p.Rules, ruleAlerts{Rule: a.Rule})
		}
		p.Rules[ri].add(a.State)
		k := key{a.Rule.Name, a.Series.GPU.UUID}
		gi, ok := rowAt[k]
		if !ok {
			gi = len(rows)
			rowAt[k] = gi
			rows = append(rows, gpuAlerts{Rule: a.Rule, GPU: a.Series.GPU, Latest: a})
			p.Rules[ri].GPUs++
		}
		g := &rows[gi]
		g.Episodes++
		g.add(a.State)
		if a.Start.After(g.Latest.Start) {
			g.Latest = a
		}
	}
	// Rows by rule, in the rules' order, each rule's GPUs in the order they first appeared.
	byRule := make([][]gpuAlerts, len(p.Rules))
	for _, g := range rows {
		ri := ruleAt[g.Rule.Name]
		byRule[ri] = append(byRule[ri], g)
	}
	rows = rows[:0:0]
	for _, rs := range byRule {
		rows = append(rows, rs...)
	}
	p.Span = paginate(lp.Page, lp.Per, len(rows))
	p.List.Page = p.Span.Page
	p.Rows = rows[p.Span.From:p.Span.To]
	al.Alerts = nil
	p.Report = al
	return p
}
