package web

import (
	"math"
	"net/http"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/analyze"
	"github.com/gpucost/gpucost/httpapi"
)

// gpusPage is the utilisation heatmap and table of one page of GPUs or hosts, sorted and
// filtered on the server, and the count of the period's alerts, which the Alerts page lists.
type gpusPage struct {
	Heatmap     heatmapChart
	HeatmapRows int            // the rows of this page's GPUs, of which Heatmap may show the first
	Report      analyze.Report // Groups: this page's rows only
	Cents       groupCents     // of every group, before filtering and paging
	List        listParams
	Span        pageOf   // which rows of the filtered groups Report.Groups are
	All         int      // groups before filtering
	Models      []string // the models of all groups, for the model picker
	Alerts      alertCounts
}

// alertCounts counts a period's alerts by state, and the GPU series the rules were evaluated on.
type alertCounts struct {
	Total, Firing, NoData, Resolved int
	Series                          int
}

func countAlerts(al analyze.AlertReport) alertCounts {
	c := alertCounts{Total: len(al.Alerts), Series: al.Series}
	for _, a := range al.Alerts {
		switch a.State {
		case analyze.Firing:
			c.Firing++
		case analyze.AlertNoData:
			c.NoData++
		case analyze.Resolved:
			c.Resolved++
		}
	}
	return c
}

func loadGPUs(s *site, r *http.Request, q query) (any, error) {
	ctx := r.Context()
	lp, err := parseListParams(r.URL.Query(), gpuSorts)
	if err != nil {
		return nil, gpucost.Errorf(gpucost.EInvalid, "%v", err)
	}
	rep, err := s.d.Views.GPUs(ctx, q.Query)
	if err != nil {
		return nil, err
	}
	hm, err := s.d.Views.Heatmap(ctx, q.Query)
	if err != nil {
		return nil, err
	}
	al, err := s.d.Views.Alerts(ctx, q.Query)
	if err != nil {
		return nil, err
	}
	return gpuPage(rep, hm, al, lp), nil
}

// gpuPage keeps the page of rep's groups that lp asks for, and the heatmap rows of those groups.
func gpuPage(rep analyze.Report, hm httpapi.Heatmap, al analyze.AlertReport, lp listParams) gpusPage {
	p := gpusPage{List: lp, All: len(rep.Groups), Models: models(rep.Groups), Alerts: countAlerts(al), Cents: centsOf(rep)}
	groups := filterGroups(rep.Groups, lp)
	sortGroups(groups, lp)
	p.Span = paginate(lp.Page, lp.Per, len(groups))
	p.List.Page = p.Span.Page
	rep.Groups = make([]analyze.GroupStats, 0, p.Span.To-p.Span.From)
	for _, g := range groups[p.Span.From:p.Span.To] {
		rep.Groups = append(rep.Groups, *g)
	}
	p.Report = rep
	hm = pageRows(hm, rep.Groups)
	p.HeatmapRows = len(hm.Rows)
	if n := max(1, heatmapCellBudget/max(1, len(hm.Hours))); len(hm.Rows) > n {
		hm.Rows = hm.Rows[:n]
	}
	p.Heatmap = heatmap(hm)
	return p
}

// heatmapCellBudget is the most cells the GPUs page's heatmap draws, about 170 KB of chart
// data: a week of 50 GPUs; over longer periods or more rows it shows the first rows of the
// table that fit.
const heatmapCellBudget = 12000

// pageRows keeps the heatmap rows of groups, in the table's order: the row of the group's
// key, or, for a heatmap of GPUs under a table of hosts, the rows of the group's host.
func pageRows(hm httpapi.Heatmap, groups []analyze.GroupStats) httpapi.Heatmap {
	at := make(map[string]int, len(hm.Rows))
	onHost := map[string][]int{}
	for i, row := range hm.Rows {
		at[row.Key] = i
		onHost[row.Host] = append(onHost[row.Host], i)
	}
	rows := make([]httpapi.HeatmapRow, 0, len(groups))
	for _, g := range groups {
		if i, ok := at[g.Key]; ok {
			rows = append(rows, hm.Rows[i])
			continue
		}
		for _, i := range onHost[g.Key] {
			rows = append(rows, hm.Rows[i])
		}
	}
	hm.Rows = rows
	return hm
}

// heatmap turns hourly utilisation rows into heatmap cells, leaving out hours without samples.
func heatmap(h httpapi.Heatmap) heatmapChart {
	c := heatmapChart{Min: 0, Max: 100, Unit: "%", X: make([]string, len(h.Hours)), Y: make([]string, len(h.Rows)), Cells: cells{}}
	for i, t := range h.Hours {
		c.X[i] = t.UTC().Format("Jan 2 15:00")
	}
	for y, row := range h.Rows {
		c.Y[y] = rowLabel(h.By, row)
		for x, u := range row.Util {
			if u < 0 || math.IsNaN(u) || x >= len(h.Hours) {
				continue
			}
			c.Cells = append(c.Cells, [3]float64{float64(x), float64(y), math.Round(u*10) / 10})
		}
	}
	return c
}

// rowLabel names a heatmap row: a GPU by its host and the start of its UUID.
func rowLabel(by string, row httpapi.HeatmapRow) string {
	if by == "host" || row.Host == "" {
		return row.Key
	}
	key := row.Key
	if len(key) > 12 {
		key = key[:12] + "…"
	}
	return row.Host + " " + key
}

// groupCents is a report's groups' idle cost and cost as a table of all of them prints them
// (analyze.Report.Cents), by group key, and the fleet's; a page of some of the groups prints
// each with the cents the whole table gives it, as the CLI does.
type groupCents struct {
	Groups map[string]analyze.Cents
	Fleet  analyze.Cents
}

func centsOf(rep analyze.Report) groupCents {
	all := rep.Cents()
	c := groupCents{Groups: make(map[string]analyze.Cents, len(rep.Groups)), Fleet: all[len(rep.Groups)]}
	for i, g := range rep.Groups {
		c.Groups[g.Key] = all[i]
	}
	return c
}
