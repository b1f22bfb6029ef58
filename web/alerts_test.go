package web

import (
	"context"
	"net/url"
	"strings"
	"testing"

	"github.com/gpucost/gpucost/httpapi"
)

func TestGroupAlerts(t *testing.T) {
	f := fleetViews{fakeViews: &fakeViews{}, n: 1000}
	al, _ := f.Alerts(context.Background(), httpapi.Query{To: testNow})
	for _, tc := range []struct {
		query             string
		rules, rows, from int
		firstRule         string
	}{
		{"", 2, 50, 0, al.Rules[0].Name},
		{"page=6", 2, 50, 250, al.Rules[1].Name},
		{"page=99", 2, 33, 300, al.Rules[1].Name}, // 333 rows: 250 GPUs of rule 0, 83 of rule 1; the last page
		{"q=" + al.Rules[1].Name, 1, 50, 0, al.Rules[1].Name},
		{"q=node-0000", 2, 3, 0, al.Rules[0].Name}, // GPUs 0, 4 (rule 0) and 6 (rule 1) of the host's 8
	} {
		v, _ := url.ParseQuery(tc.query)
		lp, err := parseListParams(v, nil)
		if err != nil {
			t.Fatal(err)
		}
		p := groupAlerts(al, lp)
		if len(p.Rules) != tc.rules || len(p.Rows) != tc.rows || p.Span.From != tc.from || p.Rows[0].Rule.Name != tc.firstRule {
			t.Errorf("groupAlerts(%q) = %d rules, %d rows from %d, first row's rule %s; want %d, %d from %d, %s",
				tc.query, len(p.Rules), len(p.Rows), p.Span.From, p.Rows[0].Rule.Name, tc.rules, tc.rows, tc.from, tc.firstRule)
		}
	}
	p := groupAlerts(al, listParams{Page: 1, Per: 50})
	r0, r1 := p.Rules[0], p.Rules[1]
	if r0.GPUs != 250 || r0.Firing != 250 || r0.Resolved != 25 || r1.GPUs != 83 || r1.NoData != 83 || r1.Resolved != 8 {
		t.Errorf("groupAlerts: rule counts %+v and %+v; want 250 GPUs, 250 firing, 25 resolved; 83 GPUs, 83 no data, 8 resolved", r0, r1)
	}
	if g := p.Rows[0]; g.Episodes != 2 || g.Firing != 1 || g.Resolved != 1 || g.Latest.State != "firing" {
		t.Errorf("groupAlerts: GPU 0's row %+v; want 2 episodes, 1 firing, 1 resolved, the latest firing", g)
	}
	h := &htmlPage{assets: mustAssets()}
	writeAlertsPage(h, layout{Path: "/alerts", Query: query{Since: "7d"}, Data: p})
	for _, want := range []string{`1–50 of 333 rule and GPU rows`, `href="/alerts?page=7&amp;since=7d">last »</a>`, `<td class="num">250</td>`} {
		if !strings.Contains(h.String(), want) {
			t.Errorf("the Alerts page lacks %s", want)
		}
	}
}
