package web

import (
	"net/http"

	"github.com/gpucost/gpucost/httpapi"
)

// chartGroups is how many groups the stacked cost chart shows; the table shows all.
const chartGroups = 10

// costsPage is the bill allocated to teams, projects or namespaces: the daily stack, the table
// and the check that the groups add up to the bill.
type costsPage struct {
	Report httpapi.CostReport
	Chart  stackedChart
	More   int // groups in the table but not the chart
}

func loadCosts(s *site, r *http.Request, q query) (any, error) {
	rep, err := s.d.Views.Costs(r.Context(), q.Query)
	if err != nil {
		return nil, err
	}
	p := costsPage{Report: rep, Chart: costChart(rep)}
	if len(rep.Groups) > chartGroups {
		p.More = len(rep.Groups) - chartGroups
	}
	return p, nil
}

// costChart stacks the largest groups' daily cost.
func costChart(rep httpapi.CostReport) stackedChart {
	c := stackedChart{Unit: "$", X: make([]string, len(rep.Days)), Series: []stackGroup{}}
	for i, d := range rep.Days {
		c.X[i] = d.UTC().Format("Jan 2")
	}
	for i, g := range rep.Groups {
		if i == chartGroups {
			break
		}
		sg := stackGroup{Name: g.Group, Values: make([]float64, len(g.Daily)), Labels: make([]string, len(g.Daily))}
		for j, m := range g.Daily {
			sg.Values[j] = float(m)
			sg.Labels[j] = m.Dollars()
		}
		c.Series = append(c.Series, sg)
	}
	return c
}
