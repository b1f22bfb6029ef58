package web

import (
	"context"
	"html"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/fleet"
	"github.com/gpucost/gpucost/httpapi"
	gpuquery "github.com/gpucost/gpucost/query"
	"github.com/gpucost/gpucost/web/webtest"
)

// fakeDetector is a fakeApplier that finds changes on the bill: each is recorded once its
// step is applied.
type fakeDetector struct {
	*fakeApplier
	changes []gpuquery.DetectedStep
}

var _ httpapi.ChangeDetector = (*fakeDetector)(nil)

func (f *fakeDetector) DetectedChanges(context.Context, httpapi.Query) ([]gpuquery.DetectedStep, error) {
	out := []gpuquery.DetectedStep{}
	for _, c := range f.changes {
		for _, a := range f.applied {
			c.Recorded = c.Recorded || a.ID == c.Step
		}
		out = append(out, c)
	}
	return out, nil
}

func (f *fakeDetector) RecordDetected(ctx context.Context, id string, at time.Time, how, actor, note string) (gpucost.AppliedStep, error) {
	s, err := f.ApplyStep(ctx, id, at, actor, note)
	if err == nil {
		f.applied[len(f.applied)-1].How, s.How = how, how
	}
	return s, err
}

var recordForm = regexp.MustCompile(`<input type="hidden" name="csrf" value="([^"]+)"><input type="hidden" name="step" value="([^"]+)"><input type="hidden" name="at" value="([^"]+)"><input type="hidden" name="how" value="([^"]+)"><button type="submit">Record as applied</button>`)

// detectedSite is the test site whose dashboard detects research's change of instance type
// on the bill, its step not recorded, a change without a step and one recorded already.
func detectedSite(t *testing.T) (*testSite, *fakeDetector, *memAudit) {
	ts := newTestSite(t)
	at := ts.now.Truncate(24*time.Hour).AddDate(0, 0, -6)
	det := &fakeDetector{fakeApplier: &fakeApplier{}, changes: []gpuquery.DetectedStep{
		{DetectedChange: fleet.DetectedChange{Namespace: "research", Kind: fleet.ChangeInstanceType, At: at, How: detectedHow}, Step: detectedStep},
		{DetectedChange: fleet.DetectedChange{Namespace: "eval", Kind: fleet.ChangeSpot, At: at, How: "detected: pricing became spot"}},
		{DetectedChange: fleet.DetectedChange{Namespace: "training", Kind: fleet.ChangeCommitment, At: at, How: "detected: a commitment appeared"},
			Step: "training-p5.48xlarge/commitments/commit-p5.48xlarge", Recorded: true},
	}}
	audit := &memAudit{}
	d := &Dashboard{Views: ts.views, Activity: ts.views, Tokens: ts.tokens, Key: []byte("0123456789abcdef0123456789abcdef"),
		Now: func() time.Time { return ts.now }, Log: slog.New(slog.NewTextHandler(ts.log, nil)), Applied: det, Audit: audit}
	ts.h = d.Handler()
	return ts, det, audit
}

const (
	detectedStep = "research-p3.8xlarge/right-sizing/p3.2xlarge"
	detectedHow  = "detected: instance type changed p3.8xlarge→p3.2xlarge"
)

// In headless Chromium an admin sees the detected change on the Recommendations page (kept as
// a screenshot), presses Record as applied, and lands on the page without it.
func TestBrowserRecordDetected(t *testing.T) {
	exe := webtest.Chromium(t)
	ts, det, _ := detectedSite(t)
	secret, _ := ts.tokens.newToken(t, "alice", gpucost.RoleAdmin)
	srv := httptest.NewServer(ts.h)
	b := webtest.Start(t, exe, srv.URL)
	b.Resize(1400, 1000)
	b.LogIn("/recommendations", secret)
	b.Open("/recommendations")
	b.Run("see the detected change", chromedp.WaitVisible(chromedp.CSS(".detected form button")))
	if err := os.WriteFile(filepath.Join(t.ArtifactDir(), "recommendations-detected.png"), b.Screenshot(), 0o644); err != nil {
		t.Fatal(err)
	}
	b.Run("record it", chromedp.Click(chromedp.CSS(".detected form button")), chromedp.WaitNotPresent(chromedp.CSS(".detected")),
		chromedp.WaitVisible(chromedp.CSS("main h1")))
	at, err := chromedp.Run(b.Context(), chromedp.Evaluate[string](`location.pathname`))
	if err != nil || at != "/recommendations" {
		t.Errorf("after Record as applied the browser is at %q (%v), want /recommendations", at, err)
	}
	if p := b.Problems(); len(p) > 0 {
		t.Errorf("the browser console reported:\n%s", strings.Join(p, "\n"))
	}
	srv.Close() // the handlers are done: det is the test's again
	if len(det.applied) != 1 || det.applied[0].ID != detectedStep || det.applied[0].How != detectedHow {
		t.Errorf("applied = %+v; want %s, %q", det.applied, detectedStep, detectedHow)
	}
}

// The Recommendations page lists a change the bill shows whose step is not recorded, with an
// admin's "Record as applied" button; posting it records the step made that day, how the bill
// showed it, and the row is gone. A change without a step or recorded already is not listed;
// a form whose at or how is not a detected change's records nothing.
func TestRecordDetectedFromRecommendationsPage(t *testing.T) {
	ts, det, audit := detectedSite(t)
	at, step, how := det.changes[0].At, detectedStep, detectedHow
	adminSecret, _ := ts.tokens.newToken(t, "alice", gpucost.RoleAdmin)
	viewerSecret, _ := ts.tokens.newToken(t, "bob", gpucost.RoleViewer)
	admin, viewer := ts.login(adminSecret), ts.login(viewerSecret)

	page := readBody(t, ts.do("GET", "/recommendations", nil, viewer))
	if !strings.Contains(page, "Detected on the bill, not recorded") || !strings.Contains(page, step) || strings.Contains(page, "Record as applied") {
		t.Errorf("a viewer's Recommendations page: want the detected change of %s without a Record as applied form", step)
	}
	page = readBody(t, ts.do("GET", "/recommendations", nil, admin))
	forms := recordForm.FindAllStringSubmatch(page, -1)
	if len(forms) != 1 {
		t.Fatalf("the admin's page has %d Record as applied forms, want 1 (the change without a step and the one recorded are not listed):\n%s", len(forms), page)
	}
	if strings.Contains(page, "pricing became spot") || strings.Contains(page, "a commitment appeared") {
		t.Errorf("the page lists a change without a step or one recorded already")
	}
	csrf, gotStep, gotAt, gotHow := forms[0][1], html.UnescapeString(forms[0][2]), forms[0][3], html.UnescapeString(forms[0][4])
	if gotStep != step || gotAt != at.Format(time.RFC3339) || gotHow != how {
		t.Fatalf("form = step %q at %q how %q; want %q, %s, %q", gotStep, gotAt, gotHow, step, at.Format(time.RFC3339), how)
	}
	for _, c := range []struct {
		name string
		form url.Values
	}{
		{"at alone", url.Values{"at": {gotAt}}},
		{"how alone", url.Values{"how": {gotHow}}},
		{"a how not detected", url.Values{"at": {gotAt}, "how": {"manual"}}},
		{"a how with a line break", url.Values{"at": {gotAt}, "how": {"detected: x\nforged"}}},
		{"an at not RFC 3339", url.Values{"at": {"last week"}, "how": {gotHow}}},
		{"an at in the future", url.Values{"at": {ts.now.Add(time.Hour).Format(time.RFC3339)}, "how": {gotHow}}},
	} {
		c.form.Set("csrf", csrf)
		c.form.Set("step", gotStep)
		if res := ts.do("POST", "/recommendations/apply", c.form, admin); res.StatusCode != http.StatusBadRequest {
			t.Errorf("POST /recommendations/apply with %s = %d, want 400", c.name, res.StatusCode)
		}
	}
	if len(det.applied) != 0 {
		t.Fatalf("refused forms recorded %+v", det.applied)
	}

	res := ts.do("POST", "/recommendations/apply", url.Values{"csrf": {csrf}, "step": {gotStep}, "at": {gotAt}, "how": {gotHow}}, admin)
	if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/recommendations" {
		t.Fatalf("POST Record as applied = %d to %q, want 303 to /recommendations", res.StatusCode, res.Header.Get("Location"))
	}
	if len(det.applied) != 1 || det.applied[0].ID != step || !det.applied[0].At.Equal(at) || det.applied[0].How != how {
		t.Errorf("applied = %+v; want %s at %v, %q", det.applied, step, at, how)
	}
	if len(audit.entries) != 1 || audit.entries[0].Action != gpucost.AuditStepApply || !strings.Contains(audit.entries[0].Detail, how) {
		t.Errorf("audit = %+v, want one step.apply saying %q", audit.entries, how)
	}
	page = readBody(t, ts.do("GET", "/recommendations", nil, admin))
	if strings.Contains(page, "Detected on the bill, not recorded") || strings.Contains(page, "Record as applied") {
		t.Errorf("after recording it, the page still lists the detected change")
	}
}
