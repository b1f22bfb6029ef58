package web

import (
	"context"
	"log/slog"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/fleet"
	"github.com/gpucost/gpucost/httpapi"
)

// fakeApplier keeps the steps applied; Realized lists them as measuring.
type fakeApplier struct{ applied []gpucost.AppliedStep }

func (f *fakeApplier) ApplyStep(_ context.Context, id string, at time.Time, actor, note string) (gpucost.AppliedStep, error) {
	for _, s := range f.applied {
		if s.ID == id {
			return s, gpucost.Errorf(gpucost.EConflict, "step %s is recorded applied already", id)
		}
	}
	s := gpucost.AppliedStep{ID: id, At: at, Actor: actor, Note: note, How: gpucost.AppliedManual, Predicted: gpucost.USD(1e12)}
	f.applied = append(f.applied, s)
	return s, nil
}

func (f *fakeApplier) Realized(context.Context, httpapi.Query) (fleet.RealizedReport, error) {
	rep := fleet.RealizedReport{Steps: []fleet.RealizedStep{}}
	for _, s := range f.applied {
		rep.Steps = append(rep.Steps, fleet.RealizedStep{AppliedStep: s, Status: fleet.RealizedMeasuring, Note: "measuring: 0 days so far"})
	}
	return rep, nil
}

var applyFormField = regexp.MustCompile(`action="/recommendations/apply" class="apply"><input type="hidden" name="csrf" value="([^"]+)"><input type="hidden" name="step" value="([^"]+)">`)

// An admin marks a step applied from the Recommendations page: the form carries the session's
// CSRF token, the step shows as applied afterwards, and the audit log keeps it; a viewer sees
// no form and is refused, as is a form from another session.
func TestApplyFromRecommendationsPage(t *testing.T) {
	ts := newTestSite(t)
	ap, audit := &fakeApplier{}, &memAudit{}
	d := &Dashboard{Views: ts.views, Activity: ts.views, Tokens: ts.tokens, Key: []byte("0123456789abcdef0123456789abcdef"),
		Now: func() time.Time { return ts.now }, Log: slog.New(slog.NewTextHandler(ts.log, nil)), Applied: ap, Audit: audit}
	ts.h = d.Handler()
	adminSecret, _ := ts.tokens.newToken(t, "alice", gpucost.RoleAdmin)
	viewerSecret, _ := ts.tokens.newToken(t, "bob", gpucost.RoleViewer)
	admin, viewer := ts.login(adminSecret), ts.login(viewerSecret)

	if page := readBody(t, ts.do("GET", "/recommendations", nil, viewer)); strings.Contains(page, "Mark applied") {
		t.Errorf("a viewer's Recommendations page has a Mark applied form")
	}
	page := readBody(t, ts.do("GET", "/recommendations", nil, admin))
	m := applyFormField.FindStringSubmatch(page)
	if m == nil {
		t.Fatalf("the admin's Recommendations page has no apply form:\n%s", page)
	}
	csrf, step := m[1], m[2]
	viewerCSRF := csrfField.FindStringSubmatch(readBody(t, ts.do("GET", "/recommendations", nil, viewer)))[1]
	for _, c := range []struct {
		name   string
		form   url.Values
		cookie *http.Cookie
	}{
		{"a viewer", url.Values{"csrf": {viewerCSRF}, "step": {step}}, viewer},
		{"another session's token", url.Values{"csrf": {viewerCSRF}, "step": {step}}, admin},
		{"no token", url.Values{"step": {step}}, admin},
	} {
		if res := ts.do("POST", "/recommendations/apply", c.form, c.cookie); res.StatusCode != http.StatusForbidden {
			t.Errorf("POST /recommendations/apply by %s = %d, want 403", c.name, res.StatusCode)
		}
	}
	if len(ap.applied) != 0 {
		t.Fatalf("refused forms recorded %+v", ap.applied)
	}
	res := ts.do("POST", "/recommendations/apply", url.Values{"csrf": {csrf}, "step": {step}, "note": {"ticket 42"}}, admin)
	if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/recommendations" {
		t.Fatalf("POST /recommendations/apply = %d to %q, want 303 to /recommendations", res.StatusCode, res.Header.Get("Location"))
	}
	if len(ap.applied) != 1 || ap.applied[0].ID != step || ap.applied[0].Note != "ticket 42" || !strings.Contains(ap.applied[0].Actor, "alice") {
		t.Errorf("applied = %+v, want %s by alice's token with its note", ap.applied, step)
	}
	if len(audit.entries) != 1 || audit.entries[0].Action != gpucost.AuditStepApply || audit.entries[0].Target != "step "+step {
		t.Errorf("audit = %+v, want one step.apply of %s", audit.entries, step)
	}
	page = readBody(t, ts.do("GET", "/recommendations", nil, admin))
	if !strings.Contains(page, "Realized savings") || !strings.Contains(page, "Applied 2026-") {
		t.Errorf("after applying, the page does not show the step applied and measuring")
	}
	if res := ts.do("POST", "/recommendations/apply", url.Values{"csrf": {csrf}, "step": {step}}, admin); res.StatusCode != http.StatusConflict {
		t.Errorf("applying %s twice = %d, want 409", step, res.StatusCode)
	}
}

// memAudit keeps the entries recorded.
type memAudit struct{ entries []gpucost.AuditEntry }

func (a *memAudit) RecordAudit(_ context.Context, e gpucost.AuditEntry) (int64, error) {
	a.entries = append(a.entries, e)
	return int64(len(a.entries)), nil
}

func (a *memAudit) Audit(context.Context, gpucost.AuditFilter) ([]gpucost.AuditEntry, error) {
	return a.entries, nil
}
