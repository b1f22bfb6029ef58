package web

import (
	"fmt"
	"net/http"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/httpapi"
)

// page is one dashboard page: its path, template and title, the grouping choices it offers
// (the first is the default) and how it loads its data.
type page struct {
	path, template, title string
	Since                 time.Duration // the default period; 0: the page shows no period picker
	By                    []string      // the ?by= values it takes; the first is the default
	FilterHint            string        // the filter field's example; empty: team=ml,namespace=serving
	load                  func(s *site, r *http.Request, q query) (any, error)
}

// pageList is the navigation, in order.
var pageList = []page{
	{path: "/{$}", template: "overview.html", title: "Overview", load: loadOverview},
	{path: "/gpus", template: "gpus.html", title: "GPUs", Since: 7 * day, By: []string{"gpu", "host"}, load: loadGPUs},
	{path: "/alerts", template: "alerts.html", title: "Alerts", Since: 7 * day, load: loadAlerts},
	{path: "/costs", template: "costs.html", title: "Costs", Since: 30 * day, By: []string{"team", "project", "namespace"}, load: loadCosts},
	{path: "/idle", template: "idle.html", title: "Idle", Since: 7 * day, By: []string{"gpu", "host", "model", "namespace", "label:team"}, load: loadIdle},
	{path: "/recommendations", template: "recommendations.html", title: "Recommendations", Since: 30 * day, load: loadRecommendations},
	{path: "/budgets", template: "budgets.html", title: "Budgets", load: loadBudgets},
	{path: "/jobs", template: "jobs.html", title: "Jobs", load: loadJobs},
	{path: "/activity", template: "activity.html", title: "Activity", Since: 30 * day, FilterHint: "policy=spot-cap,result=failed", load: loadActivity},
}

const day = 24 * time.Hour

// periods are the choices of the period picker.
var periods = []struct {
	Value string
	Span  time.Duration
}{{"24h", day}, {"7d", 7 * day}, {"30d", 30 * day}, {"90d", 90 * day}}

// query is a page request's parsed parameters; Query is what goes to the views.
type query struct {
	httpapi.Query
	Since  string // the period picker's value
	Filter string // the filter as typed, normalised
}

// navItem is a navigation link.
type navItem struct {
	Path, Title string
	Current     bool
}

// layout is what writeLayout gets: the page's own data in Data.
type layout struct {
	Title   string
	Path    string
	Viewer  *viewer
	Nav     []navItem
	Page    *page
	Query   query
	Periods []string
	Status  int
	Error   string
	Data    any
}

func (p page) serve(s *site, w http.ResponseWriter, r *http.Request) {
	q, err := parseQuery(r, p, s.d.Now())
	if err != nil {
		s.renderError(w, r, &p, http.StatusBadRequest, err.Error())
		return
	}
	data, err := p.load(s, r, q)
	if err != nil {
		status, msg := http.StatusInternalServerError, "The "+strings.ToLower(p.title)+" could not be loaded; the server log says why."
		switch gpucost.ErrorCode(err) {
		case gpucost.EInvalid:
			status, msg = http.StatusBadRequest, err.Error()
		case gpucost.ENotFound:
			status, msg = http.StatusNotFound, err.Error()
		case gpucost.EUnavailable:
			status, msg = http.StatusServiceUnavailable, err.Error()
		}
		s.d.Log.Error("dashboard: load page", "page", p.title, "err", err)
		s.renderError(w, r, &p, status, msg)
		return
	}
	s.render(w, r, http.StatusOK, p.template, layout{Page: &p, Title: p.title, Query: q, Data: data})
}

var filterKey = regexp.MustCompile(`^[A-Za-z0-9_.:/-]{1,63}$`)

// parseQuery reads the period (?since=), grouping (?by=) and filters (?filter=team=ml,env=prod).
func parseQuery(r *http.Request, p page, now time.Time) (query, error) {
	v := r.URL.Query()
	var q query
	if p.Since > 0 {
		span := p.Since
		if s := v.Get("since"); s != "" {
			d, err := parseSince(s)
			if err != nil {
				return q, err
			}
			span = d
		}
		q.To = httpapi.PeriodEnd(now)
		q.From = q.To.Add(-span)
		q.Since = formatSince(span)
	}
	if len(p.By) > 0 {
		q.By = p.By[0]
		if b := v.Get("by"); b != "" {
			if !contains(p.By, b) {
				return q, fmt.Errorf("by=%s: %s groups by %s", b, strings.ToLower(p.title), strings.Join(p.By, ", "))
			}
			q.By = b
		}
	}
	f, norm, err := parseFilter(v.Get("filter"))
	if err != nil {
		return q, err
	}
	q.Filter, q.Query.Filter = norm, f
	return q, nil
}

// parseSince reads a period such as 7d or 36h: at least an hour, at most 366 days.
func parseSince(s string) (time.Duration, error) {
	bad := fmt.Errorf("since=%s: give a period such as 24h, 7d or 30d (at most 366d)", s)
	if len(s) < 2 {
		return 0, bad
	}
	n, err := strconv.Atoi(s[:len(s)-1])
	if err != nil || n < 1 || n > 366*24 { // bounded before multiplying, so it cannot overflow
		return 0, bad
	}
	var d time.Duration
	switch s[len(s)-1] {
	case 'd':
		d = time.Duration(n) * day
	case 'h':
		d = time.Duration(n) * time.Hour
	default:
		return 0, bad
	}
	if d > 366*day {
		return 0, bad
	}
	return d, nil
}

func formatSince(d time.Duration) string {
	if d%day == 0 {
		return strconv.Itoa(int(d/day)) + "d"
	}
	return strconv.Itoa(int(d/time.Hour)) + "h"
}

// parseFilter reads "key=value" pairs separated by commas or spaces.
func parseFilter(s string) (map[string]string, string, error) {
	fields := strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ' ' })
	if len(fields) == 0 {
		return nil, "", nil
	}
	if len(fields) > 16 {
		return nil, "", fmt.Errorf("filter: at most 16 key=value pairs")
	}
	m := make(map[string]string, len(fields))
	for _, f := range fields {
		k, val, ok := strings.Cut(f, "=")
		if !ok || !filterKey.MatchString(k) || val == "" || len(val) > 256 {
			return nil, "", fmt.Errorf("filter %q: write key=value pairs such as team=ml,namespace=serving", f)
		}
		m[k] = val
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for i, k := range keys {
		keys[i] = k + "=" + m[k]
	}
	return m, strings.Join(keys, ","), nil
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// render writes a page into a buffer first, so an error never sends half a page.
func (s *site) render(w http.ResponseWriter, r *http.Request, status int, name string, l layout) {
	l.Viewer = viewerFrom(r)
	l.Path = r.URL.Path
	l.Status = status
	for _, p := range pageList {
		path := strings.TrimSuffix(p.path, "{$}")
		l.Nav = append(l.Nav, navItem{Path: path, Title: p.title, Current: path == r.URL.Path})
	}
	for _, p := range periods {
		l.Periods = append(l.Periods, p.Value)
	}
	b, err := writePage(s.assets, name, l)
	if err != nil {
		s.d.Log.Error("dashboard: render page", "page", name, "err", err)
		http.Error(w, "the page could not be rendered; the server log says why", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	w.Write(b)
}

// renderError shows msg in the layout (p may be nil).
func (s *site) renderError(w http.ResponseWriter, r *http.Request, p *page, status int, msg string) {
	title := http.StatusText(status)
	w.Header().Set("Cache-Control", "no-store")
	s.render(w, r, status, "error.html", layout{Page: p, Title: title, Error: msg})
}

func (s *site) renderLogin(w http.ResponseWriter, r *http.Request, status int, lp loginPage) {
	w.Header().Set("Cache-Control", "no-store")
	s.render(w, r, status, "login.html", layout{Title: "Log in", Data: lp})
}

func (s *site) notFound(w http.ResponseWriter, r *http.Request) {
	s.renderError(w, r, nil, http.StatusNotFound, "There is no page "+r.URL.Path+".")
}
