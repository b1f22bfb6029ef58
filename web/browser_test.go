package web

import (
	"context"
	"fmt"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"
	"github.com/gpucost/gpucost"
)

// chromium returns the Chromium binary, or skips (fails under CI=true) without one.
func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("no chromium: the dashboard's browser test needs it (apt-get install chromium)")
	}
	t.Skip("no chromium; install it with apt-get install chromium to run the dashboard's browser test")
	return ""
}

// chartState is what a page's chart reports from inside the browser.
type chartState struct {
	ID      string `json:"id"`
	Kind    string `json:"kind"`
	Want    int    `json:"want"`    // data points the server put in the page
	Got     int    `json:"got"`     // data points the chart instance holds
	Painted int    `json:"painted"` // coloured (not grey) pixels on its canvases
}

// chartsJS asks each chart what it holds and counts the coloured pixels it painted: axes and
// text are grey, so only drawn data counts.
const chartsJS = `Array.from(document.querySelectorAll('[data-chart]')).map(function (el) {
  var painted = 0;
  el.querySelectorAll('canvas').forEach(function (c) {
    if (!c.width || !c.height) return;
    var d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
    for (var i = 0; i < d.length; i += 4) {
      var mx = Math.max(d[i], d[i+1], d[i+2]), mn = Math.min(d[i], d[i+1], d[i+2]);
      if (d[i+3] > 0 && mx - mn > 40) painted++;
    }
  });
  return {id: el.dataset.src, kind: el.dataset.chart, want: +el.dataset.points,
    got: window.gpucost ? window.gpucost.points(el.dataset.src) : -1, painted: painted};
})`

// startChromium starts headless Chromium with a tab open, stopped when the test ends, and
// collects what the tab reports: console errors and warnings, exceptions, and browser log
// entries such as CSP violations and failed loads.
func startChromium(t *testing.T, exe string) (context.Context, func() []string) {
	t.Helper()
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(exe), chromedp.NoSandbox, chromedp.DisableGPU, chromedp.UserDataDir(t.TempDir()),
		chromedp.Flag("disable-quic", true), chromedp.Flag("disable-component-update", true),
		chromedp.WindowSize(1280, 900))...)
	t.Cleanup(cancelAlloc)
	ctx, cancel := chromedp.NewContext(actx)
	t.Cleanup(cancel)
	// The first Run starts the browser: no timeout on it.
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(1280, 900)); err != nil {
		t.Fatalf("start chromium: %v", err)
	}
	// Subscribe once the tab exists (two first calls at once would both start a browser).
	messages := chromedp.Console(ctx)
	var mu sync.Mutex
	var problems []string
	go func() {
		for m, err := range messages {
			if err != nil {
				return
			}
			if m.IsException() || m.Type == chromedp.ConsoleError || m.Type == chromedp.ConsoleWarning {
				mu.Lock()
				problems = append(problems, fmt.Sprintf("%s:%d %s", m.URL, m.Line+1, m))
				mu.Unlock()
			}
		}
	}()
	return ctx, func() []string {
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(problems)
	}
}

// hover moves the mouse over the middle of each chart, so tooltips and legends update (and
// would report any CSP violation or exception of theirs).
func hover(t *testing.T, ctx context.Context, path string, n int) {
	t.Helper()
	for i := range n {
		at, err := chromedp.Run(ctx, chromedp.Evaluate[[2]float64](fmt.Sprintf(`(function () {
  var el = document.querySelectorAll('[data-chart]')[%d];
  el.scrollIntoView({block: 'center'});
  var r = el.getBoundingClientRect();
  return [r.left + r.width / 2, r.top + r.height / 2];
})()`, i)))
		if err != nil {
			t.Fatalf("%s: find chart %d: %v", path, i, err)
		}
		if err := chromedp.Do(ctx, chromedp.MouseEvent(input.DispatchMouseEventTypeMouseMoved, at[0], at[1]), chromedp.MouseEvent(input.DispatchMouseEventTypeMouseMoved, at[0]+7, at[1]+3)); err != nil {
			t.Fatalf("%s: hover chart %d: %v", path, i, err)
		}
		if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](framesJS, chromedp.EvalAwaitPromise)); err != nil {
			t.Fatalf("%s: wait after hovering: %v", path, err)
		}
	}
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[chromedp.Void](`window.scrollTo(0, 0)`)); err != nil {
		t.Fatal(err)
	}
}

// framesJS resolves after two animation frames, when both chart libraries have painted.
const framesJS = `new Promise(function (r) { requestAnimationFrame(function () { requestAnimationFrame(function () { r(true); }); }); })`

// TestBrowser logs in through the form in headless Chromium, opens every page, and checks
// that no page logs a console error or throws, that every chart holds and paints its data, and
// keeps a full-page screenshot of each page.
func TestBrowser(t *testing.T) {
	exe := chromium(t)
	ts := newTestSite(t)
	secret, _ := ts.tokens.newToken(t, "browser", gpucost.RoleViewer)
	srv := httptest.NewServer(ts.h) // on 127.0.0.1, a free port
	defer srv.Close()
	shots := t.ArtifactDir()

	ctx, problems := startChromium(t, exe)
	run := func(what string, steps ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		sctx, scancel := context.WithTimeout(ctx, 20*time.Second)
		defer scancel()
		if err := chromedp.Do(sctx, steps...); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}
	run("log in",
		chromedp.Navigate(srv.URL+"/budgets"),
		chromedp.WaitVisible(chromedp.CSS("#token")),
		chromedp.SendKeys(chromedp.CSS("#token"), secret),
		chromedp.Submit(chromedp.CSS("#token")),
		chromedp.WaitVisible(chromedp.CSS("nav")),
	)
	loc, err := chromedp.Run(ctx, chromedp.Location())
	if err != nil || loc != srv.URL+"/budgets" {
		t.Fatalf("after logging in the browser is at %q (%v), want the page it asked for, /budgets", loc, err)
	}

	for _, p := range []struct{ path, name string }{
		{"/", "overview"}, {"/gpus", "gpus"}, {"/gpus?by=host&since=30d", "gpus-by-host"}, {"/costs", "costs"},
		{"/costs?by=project", "costs-by-project"}, {"/idle", "idle"}, {"/recommendations", "recommendations"},
		{"/budgets", "budgets"}, {"/jobs", "jobs"}, {"/activity", "activity"},
	} {
		run("open "+p.path, chromedp.Navigate(srv.URL+p.path), chromedp.WaitVisible(chromedp.CSS("main h1")))
		if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](framesJS, chromedp.EvalAwaitPromise)); err != nil {
			t.Fatalf("%s: wait for painting: %v", p.path, err)
		}
		charts, err := chromedp.Run(ctx, chromedp.Evaluate[[]chartState](chartsJS))
		if err != nil {
			t.Fatalf("%s: read charts: %v", p.path, err)
		}
		for _, c := range charts {
			if c.Want == 0 || c.Got != c.Want || c.Painted < 200 {
				t.Errorf("%s: chart %s (%s) holds %d of %d points and painted %d coloured pixels", p.path, c.ID, c.Kind, c.Got, c.Want, c.Painted)
			}
		}
		hover(t, ctx, p.path, len(charts))
		if p.path != "/jobs" && p.path != "/recommendations" && p.path != "/activity" && len(charts) == 0 {
			t.Errorf("%s: no chart on the page", p.path)
		}
		if p.path == "/recommendations" || p.path == "/activity" {
			run("open evidence", chromedp.Click(chromedp.CSS("details summary")), chromedp.WaitVisible(chromedp.CSS("details[open] ul")))
		}
		png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
		if err != nil {
			t.Fatalf("%s: screenshot: %v", p.path, err)
		}
		if err := os.WriteFile(filepath.Join(shots, p.name+".png"), png, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// Log out through the form, and the pages are closed again.
	run("log out", chromedp.Click(chromedp.CSS(".logout button")), chromedp.WaitVisible(chromedp.CSS("#token")))
	run("reopen", chromedp.Navigate(srv.URL+"/costs"), chromedp.WaitVisible(chromedp.CSS("#token")))

	if p := problems(); len(p) > 0 {
		t.Errorf("the browser console reported:\n%s", strings.Join(p, "\n"))
	}
	t.Logf("screenshots in %s (kept with go test -artifacts)", shots)
}
