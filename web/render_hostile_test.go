package web

import (
	"strings"
	"testing"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/budget"
	"github.com/gpucost/gpucost/enforce"
	"github.com/gpucost/gpucost/fleet"
	"github.com/gpucost/gpucost/httpapi"
	"github.com/gpucost/gpucost/recommend"
)

// hostile is a value that would break out of text, an attribute, a URL or a script block if a
// page wrote it unescaped.
const hostile = `x"'><script>alert(1)</script>&+#?/ é`

// hostileLayouts are pages whose every data-driven text, attribute and URL holds hostile.
func hostileLayouts() map[string]layout {
	tok := gpucost.Token{Name: hostile, Role: gpucost.Role(hostile)}
	p := pageList[3]
	base := layout{Title: hostile, Path: "/" + hostile, Viewer: &viewer{Token: tok, CSRF: hostile}, Page: &p,
		Query: query{Since: hostile, Filter: hostile, Query: httpapi.Query{From: testNow, To: testNow}}, Periods: []string{"24h", hostile},
		Nav: []navItem{{Path: "javascript:alert(1)", Title: hostile}, {Path: "/" + hostile, Title: hostile, Current: true}}, Error: hostile}
	st := budget.Status{Budget: hostile, Period: hostile, Amount: gpucost.USD(100), Spent: gpucost.USD(50), DaysLeft: 1,
		Crossed: []budget.Crossing{{Threshold: budget.Threshold{Kind: hostile, Percent: 80}}}}
	with := func(d any) layout { l := base; l.Data = d; return l }
	return map[string]layout{
		"overview.html": with(overviewPage{Overview: httpapi.Overview{Budgets: []budget.Status{st}, Notes: []string{hostile},
			TopTeams: []httpapi.CostGroup{{Group: hostile}}}, Month: hostile}),
		"budgets.html": with(budgetsPage{Budgets: []budgetView{{Status: st, Chart: lineChart{X: []int64{1}, Series: []lineSeries{{Label: hostile, Labels: []string{hostile}}}}}}}),
		"recommendations.html": with(recommendationsPage{RecommendationReport: httpapi.RecommendationReport{Notes: []string{hostile}, Plan: recommend.Plan{
			Levers: []recommend.LeverShare{{Lever: hostile, MonthlySaving: gpucost.USD(1)}},
			Groups: []recommend.PlanGroup{{ID: hostile, Name: hostile,
				Steps: []recommend.PlanStep{{ID: hostile, Lever: hostile, Needs: []string{hostile},
					Recommendation: gpucost.Recommendation{Kind: gpucost.RecommendationKind(hostile), Action: hostile, Evidence: []string{hostile}, Resources: []string{hostile}, ConfidenceWhy: hostile, Risk: hostile, OneTimeCost: gpucost.USD(1)},
					Alternatives:   []recommend.Alternative{{Lever: hostile, Action: hostile, Why: hostile}}}},
				NotChosen: []recommend.Alternative{{Lever: hostile, Action: hostile, Why: hostile}}}}}},
			Realized: fleet.RealizedReport{Measured: 1, Steps: []fleet.RealizedStep{
				{AppliedStep: gpucost.AppliedStep{ID: hostile, How: hostile, Action: hostile}, Status: fleet.RealizedMeasured, Note: hostile}}}}),
		"activity.html": with(activityPage{Enabled: true, AuditShown: true,
			Alerts:  []alertRow{{Delivery: httpapi.Delivery{At: testNow, Key: hostile, Target: hostile, Error: hostile, Status: 500}, Result: hostile, Attempts: 2}},
			Actions: []actionRow{{LogEntry: enforce.LogEntry{At: testNow, Action: enforce.Action{Policy: hostile, Action: hostile, Result: hostile}}, Resource: hostile, Kind: hostile, Region: hostile, Evidence: []string{hostile}}},
			Audit:   []gpucost.AuditEntry{{At: testNow, Actor: hostile, Action: hostile, Target: hostile, Detail: hostile, Source: hostile}}}),
		"login.html": with(loginPage{CSRF: hostile, Next: hostile, Error: hostile}),
		"error.html": base,
	}
}

// TestPagesEscapeHostileValues writes each page with hostile data: nothing of it may come out
// as markup, an attribute's end or a javascript: URL.
func TestPagesEscapeHostileValues(t *testing.T) {
	for name, l := range hostileLayouts() {
		got, err := writePage(mustAssets(), name, l)
		if err != nil {
			t.Fatalf("writePage(%s) = %v", name, err)
		}
		if s := string(got); strings.Contains(s, "<script>alert") || strings.Contains(s, `x"'>`) || strings.Contains(s, "javascript:") {
			t.Errorf("writePage(%s) wrote a hostile value unescaped:\n%s", name, s)
		}
	}
}

// TestEscapers pins the escaping html/template did in each context, which the pages keep.
func TestEscapers(t *testing.T) {
	for _, tc := range []struct {
		name, got, want string
	}{
		{"text", htmlEscape(`<b a="1">'x' + y & z</b>` + "\x00"), "&lt;b a=&#34;1&#34;&gt;&#39;x&#39; &#43; y &amp; z&lt;/b&gt;\uFFFD"},
		{"url start", string(urlStart("/costs?by=team&x=a b")), "/costs?by=team&amp;x=a%20b"},
		{"url start keeps escapes", string(urlStart("/a%2Fb#frag")), "/a%2Fb#frag"},
		{"url scheme refused", string(urlStart("javascript:alert(1)")), "#ZgotmplZ"},
		{"url scheme allowed", string(urlStart("https://example.com/")), "https://example.com/"},
		{"url part", string(urlPart("a b/#?&é")), "a%20b%2f%23%3f%26%c3%a9"},
	} {
		if tc.got != tc.want {
			t.Errorf("%s: got %q, want %q", tc.name, tc.got, tc.want)
		}
	}
}
