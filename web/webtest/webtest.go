// Package webtest drives the dashboard in headless Chromium for tests: it finds the browser,
// signs in through the login form, opens pages, and reports what each chart holds and
// painted, and every console error, warning, exception or browser log entry (such as a CSP
// violation). The dashboard's own tests use it with fixed data, and gpucost serve's with the
// demo fleet.
package webtest

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"
)

// Chromium returns the Chromium binary, or skips the test (fails it under CI=true) without one.
func Chromium(t testing.TB) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("no chromium: the dashboard's browser tests need it (apt-get install chromium)")
	}
	t.Skip("no chromium; install it with apt-get install chromium to run the dashboard's browser tests")
	return ""
}

// Chart is what one of a page's charts reports from inside the browser.
type Chart struct {
	ID      string `json:"id"`
	Kind    string `json:"kind"`
	Want    int    `json:"want"`    // data points the server put in the page
	Got     int    `json:"got"`     // data points the chart instance holds
	Painted int    `json:"painted"` // coloured (not grey) pixels on its canvases
}

// Drew reports whether the chart holds every point the server sent and painted them.
func (c Chart) Drew() bool { return c.Want > 0 && c.Got == c.Want && c.Painted >= 200 }

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

// framesJS resolves after two animation frames, when both chart libraries have painted.
const framesJS = `new Promise(function (r) { requestAnimationFrame(function () { requestAnimationFrame(function () { r(true); }); }); })`

// Browser is one headless Chromium tab on a dashboard at URL.
type Browser struct {
	URL string

	t        testing.TB
	ctx      context.Context
	mu       sync.Mutex
	problems []string
}

// Start starts headless Chromium (exe) with a tab open on the dashboard at url, stopped when
// the test ends, and collects what the tab reports.
func Start(t testing.TB, exe, url string) *Browser {
	t.Helper()
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(exe), chromedp.NoSandbox, chromedp.DisableGPU, chromedp.UserDataDir(t.TempDir()),
		chromedp.Flag("disable-quic", true), chromedp.Flag("disable-component-update", true),
		chromedp.WindowSize(1280, 900))...)
	t.Cleanup(cancelAlloc)
	ctx, cancel := chromedp.NewContext(actx)
	t.Cleanup(cancel)
	// The first call starts the browser: no timeout on it.
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(1280, 900)); err != nil {
		t.Fatalf("start chromium: %v", err)
	}
	b := &Browser{URL: url, t: t, ctx: ctx}
	// Subscribe once the tab exists (two first calls at once would both start a browser).
	messages := chromedp.Console(ctx)
	go func() {
		for m, err := range messages {
			if err != nil {
				return
			}
			if m.IsException() || m.Type == chromedp.ConsoleError || m.Type == chromedp.ConsoleWarning {
				b.mu.Lock()
				b.problems = append(b.problems, fmt.Sprintf("%s:%d %s", m.URL, m.Line+1, m))
				b.mu.Unlock()
			}
		}
	}()
	return b
}

// Problems returns the console errors, warnings, exceptions and browser log entries so far.
func (b *Browser) Problems() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return slices.Clone(b.problems)
}

// Context is the tab's context, for chromedp calls of a test's own.
func (b *Browser) Context() context.Context { return b.ctx }

// Run runs steps in the tab within 20 s, failing the test with what on an error.
func (b *Browser) Run(what string, steps ...chromedp.Action[chromedp.Void]) {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, 20*time.Second)
	defer cancel()
	if err := chromedp.Do(ctx, steps...); err != nil {
		b.t.Fatalf("%s: %v", what, err)
	}
}

// LogIn opens path, which sends the browser to the login form, signs in with the token's
// secret and returns where the browser landed.
func (b *Browser) LogIn(path, secret string) string {
	b.t.Helper()
	b.Run("log in",
		chromedp.Navigate(b.URL+path),
		chromedp.WaitVisible(chromedp.CSS("#token")),
		chromedp.SendKeys(chromedp.CSS("#token"), secret),
		chromedp.Submit(chromedp.CSS("#token")),
		chromedp.WaitVisible(chromedp.CSS("nav")),
	)
	loc, err := chromedp.Run(b.ctx, chromedp.Location())
	if err != nil {
		b.t.Fatalf("after logging in: %v", err)
	}
	return loc
}

// Open opens path, waits until the charts have painted, reads what each holds, and moves the
// mouse over each so tooltips and legends run too.
func (b *Browser) Open(path string) []Chart {
	b.t.Helper()
	b.Run("open "+path, chromedp.Navigate(b.URL+path), chromedp.WaitVisible(chromedp.CSS("main h1")))
	b.wait(path)
	charts, err := chromedp.Run(b.ctx, chromedp.Evaluate[[]Chart](chartsJS))
	if err != nil {
		b.t.Fatalf("%s: read charts: %v", path, err)
	}
	b.hover(path, len(charts))
	return charts
}

func (b *Browser) wait(path string) {
	b.t.Helper()
	if _, err := chromedp.Run(b.ctx, chromedp.Evaluate[bool](framesJS, chromedp.EvalAwaitPromise)); err != nil {
		b.t.Fatalf("%s: wait for painting: %v", path, err)
	}
}

// hover moves the mouse over the middle of each of the page's n charts.
func (b *Browser) hover(path string, n int) {
	b.t.Helper()
	for i := range n {
		at, err := chromedp.Run(b.ctx, chromedp.Evaluate[[2]float64](fmt.Sprintf(`(function () {
  var el = document.querySelectorAll('[data-chart]')[%d];
  el.scrollIntoView({block: 'center'});
  var r = el.getBoundingClientRect();
  return [r.left + r.width / 2, r.top + r.height / 2];
})()`, i)))
		if err != nil {
			b.t.Fatalf("%s: find chart %d: %v", path, i, err)
		}
		b.Run(fmt.Sprintf("%s: hover chart %d", path, i),
			chromedp.MouseEvent(input.DispatchMouseEventTypeMouseMoved, at[0], at[1]),
			chromedp.MouseEvent(input.DispatchMouseEventTypeMouseMoved, at[0]+7, at[1]+3))
		b.wait(path)
	}
	b.Run(path+": scroll back", chromedp.Evaluate[chromedp.Void](`window.scrollTo(0, 0)`))
}

// Screenshot returns a full-page PNG of the page open now.
func (b *Browser) Screenshot() []byte {
	b.t.Helper()
	png, err := chromedp.Run(b.ctx, chromedp.FullScreenshot(100))
	if err != nil {
		b.t.Fatalf("screenshot: %v", err)
	}
	return png
}

// Resize sets the tab's viewport to w × h CSS pixels, as a window of that size shows pages.
func (b *Browser) Resize(w, h int64) {
	b.t.Helper()
	b.Run(fmt.Sprintf("resize to %d×%d", w, h), chromedp.EmulateViewport(w, h))
}

// Height is the height in CSS pixels of the page open now, all of it, scrolled or not.
func (b *Browser) Height() int {
	b.t.Helper()
	h, err := chromedp.Run(b.ctx, chromedp.Evaluate[int](`document.documentElement.scrollHeight`))
	if err != nil {
		b.t.Fatalf("measure the page: %v", err)
	}
	return h
}

// Bytes is the size of the page open now as the server sent it, decoded: its HTML, with the
// chart data, without the scripts and styles it loads.
func (b *Browser) Bytes() int {
	b.t.Helper()
	n, err := chromedp.Run(b.ctx, chromedp.Evaluate[int](`performance.getEntriesByType('navigation')[0].decodedBodySize`))
	if err != nil {
		b.t.Fatalf("measure the page: %v", err)
	}
	return n
}
