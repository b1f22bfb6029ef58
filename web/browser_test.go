package web

import (
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/web/webtest"
)

// TestBrowser logs in through the form in headless Chromium, opens every page, and checks
// that no page logs a console error or throws, that every chart holds and paints its data, and
// keeps a full-page screenshot of each page. At 1400×1000 no page is taller than three
// screens (3,000 px) or weighs more than 300 KB.
func TestBrowser(t *testing.T) {
	exe := webtest.Chromium(t)
	ts := newTestSite(t)
	secret, _ := ts.tokens.newToken(t, "browser", gpucost.RoleViewer)
	srv := httptest.NewServer(ts.h) // on 127.0.0.1, a free port
	defer srv.Close()
	shots := t.ArtifactDir()

	b := webtest.Start(t, exe, srv.URL)
	b.Resize(1400, 1000)
	if loc := b.LogIn("/budgets", secret); loc != srv.URL+"/budgets" {
		t.Fatalf("after logging in the browser is at %q, want the page it asked for, /budgets", loc)
	}
	for _, p := range []struct{ path, name string }{
		{"/", "overview"}, {"/gpus", "gpus"}, {"/gpus?by=host&since=30d", "gpus-by-host"}, {"/alerts", "alerts"}, {"/costs", "costs"},
		{"/costs?by=project", "costs-by-project"}, {"/idle", "idle"}, {"/recommendations", "recommendations"},
		{"/budgets", "budgets"}, {"/jobs", "jobs"}, {"/activity", "activity"},
	} {
		charts := b.Open(p.path)
		for _, c := range charts {
			if !c.Drew() {
				t.Errorf("%s: chart %s (%s) holds %d of %d points and painted %d coloured pixels", p.path, c.ID, c.Kind, c.Got, c.Want, c.Painted)
			}
		}
		height, size := b.Height(), b.Bytes()
		if height > 3000 || size > maxPageBytes {
			t.Errorf("%s at 1400×1000 is %d px tall and weighs %d KB; a page may be 3,000 px and 300 KB", p.path, height, size>>10)
		}
		t.Logf("%s: %d px tall, %d bytes", p.path, height, size)
		if p.path != "/jobs" && p.path != "/recommendations" && p.path != "/activity" && p.path != "/alerts" && len(charts) == 0 {
			t.Errorf("%s: no chart on the page", p.path)
		}
		if p.path == "/recommendations" || p.path == "/activity" {
			b.Run("open evidence", chromedp.Click(chromedp.CSS("details summary")), chromedp.WaitVisible(chromedp.CSS("details[open] ul")))
		}
		if err := os.WriteFile(filepath.Join(shots, p.name+".png"), b.Screenshot(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// Log out through the form, and the pages are closed again.
	b.Run("log out", chromedp.Click(chromedp.CSS(".logout button")), chromedp.WaitVisible(chromedp.CSS("#token")))
	b.Run("reopen", chromedp.Navigate(srv.URL+"/costs"), chromedp.WaitVisible(chromedp.CSS("#token")))

	if p := b.Problems(); len(p) > 0 {
		t.Errorf("the browser console reported:\n%s", strings.Join(p, "\n"))
	}
	t.Logf("screenshots in %s (kept with go test -artifacts)", shots)
}
