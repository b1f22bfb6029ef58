package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/web/webtest"
)

// rawBannerFigure finds what a banner must not show: a field name, or an amount or count as a
// program prints it (181436.47, 12345) rather than $181,436.47 or 12,345.
var rawBannerFigure = regexp.MustCompile(`\b[a-z]+_[a-z_]+\b|(^|[^0-9,.$])[0-9]{4,}(\.[0-9]+)?\b`)

// TestServeDashboardBrowser opens every dashboard page of gpucost serve over the 3-day demo
// fleet, with its budgets, in headless Chromium: no page logs a console error or throws, every
// chart holds and paints the demo's data, and a screenshot of each page is kept. At 1400×1000
// no page is taller than three screens (3,000 px) or weighs more than 300 KB.
func TestServeDashboardBrowser(t *testing.T) {
	exe := webtest.Chromium(t)
	dir := loadDemo(t)
	budgets := writeFile(t, dir, "budgets.yaml", demoBudgetsYAML)
	s := startViewServer(t, filepath.Join(dir, "gpucost.db"),
		serveOptions{flush: time.Second, viewsEvery: time.Minute, maxBill: 1 << 20, budgets: budgets})
	shots := t.ArtifactDir()

	b := webtest.Start(t, exe, s.url)
	b.Resize(1400, 1000)
	b.LogIn("/", s.tokens[gpucost.RoleViewer])
	for _, p := range []struct {
		path, name string
		charts     int // at least
	}{
		{"/", "overview", 1}, {"/gpus", "gpus", 1}, {"/gpus?by=host", "gpus-by-host", 1}, {"/gpus?page=2&sort=util", "gpus-page-2", 1},
		{"/alerts", "alerts", 0},
		{"/costs?by=team", "costs-by-team", 1}, {"/costs?by=namespace", "costs-by-namespace", 1},
		{"/idle", "idle", 1}, {"/recommendations", "recommendations", 0}, {"/budgets", "budgets", 4},
		{"/jobs", "jobs", 0}, {"/activity", "activity", 0},
	} {
		charts := b.Open(p.path)
		if len(charts) < p.charts {
			t.Errorf("%s: %d charts; want at least %d", p.path, len(charts), p.charts)
		}
		height, size := b.Height(), b.Bytes()
		if height > 3000 || size > 300<<10 {
			t.Errorf("%s at 1400×1000 is %d px tall and weighs %d KB; a page may be 3,000 px and 300 KB", p.path, height, size>>10)
		}
		t.Logf("%s: %d px tall, %d bytes", p.path, height, size)
		notes, err := chromedp.Run(b.Context(), chromedp.Evaluate[[]string](`Array.from(document.querySelectorAll('.note'), function (e) { return e.textContent; })`))
		if err != nil {
			t.Fatalf("%s: read the banners: %v", p.path, err)
		}
		for _, n := range notes {
			if raw := rawBannerFigure.FindString(n); raw != "" {
				t.Errorf("%s: a banner shows %q, not a sentence a person reads: %s", p.path, raw, n)
			}
		}
		for _, c := range charts {
			if !c.Drew() {
				t.Errorf("%s: chart %s (%s) holds %d of %d points and painted %d coloured pixels", p.path, c.ID, c.Kind, c.Got, c.Want, c.Painted)
			}
		}
		if err := os.WriteFile(filepath.Join(shots, p.name+".png"), b.Screenshot(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if p := b.Problems(); len(p) > 0 {
		t.Errorf("the browser console reported:\n%s", strings.Join(p, "\n"))
	}
	t.Logf("screenshots in %s (kept with go test -artifacts)", shots)
}
