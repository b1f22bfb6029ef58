package web

import (
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/httpapi"
)

// fixedSources is a BillSources of fixed states.
type fixedSources []httpapi.BillSourceStatus

func (f fixedSources) BillSourceStatus() []httpapi.BillSourceStatus { return f }

// TestActivityBillSources shows serve --pull-bills's sources on the activity page: a pulled
// one with its counts and a failing one with its error, escaped.
func TestActivityBillSources(t *testing.T) {
	ts := newTestSite(t)
	at := testNow.Add(-time.Hour)
	d := &Dashboard{Views: ts.views, Activity: ts.views, Tokens: ts.tokens, Key: []byte("0123456789abcdef0123456789abcdef"),
		Now: func() time.Time { return testNow }, Log: slog.New(slog.DiscardHandler),
		BillSources: fixedSources{
			{Name: "aws-cur", URL: "s3://billing/exports/", LastPull: at, LastSuccess: at, OK: true, Deliveries: 3, Imported: 1, Replaced: 1, Unchanged: 1},
			{Name: "azure", URL: "azure://acct/costs", LastPull: at, Error: "list azure://acct/costs: <access refused>", Errors: 4, FailingFrom: at.Add(-18 * time.Hour), Alerted: true},
		}}
	ts.h = d.Handler()
	secret, _ := ts.tokens.newToken(t, "ivy", gpucost.RoleViewer)
	body := readBody(t, ts.do("GET", "/activity", nil, ts.login(secret)))
	for _, want := range []string{"Bill sources", "aws-cur", "s3://billing/exports/", `status-ok`, `status-failed`,
		"list azure://acct/costs: &lt;access refused&gt;", "4 failed pulls since", "; alerted"} {
		if !strings.Contains(body, want) {
			t.Errorf("GET /activity does not show %q", want)
		}
	}
}
