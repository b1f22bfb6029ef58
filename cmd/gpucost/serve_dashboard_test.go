package main

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
)

// TestServeDashboardOverDemo signs in to the dashboard of gpucost serve over the 3-day demo
// fleet with a viewer token, through the login form, and opens every page: each shows what
// the API shows, and none holds the token.
func TestServeDashboardOverDemo(t *testing.T) {
	dir := loadDemo(t)
	s := startViewServer(t, filepath.Join(dir, "gpucost.db"), serveOptions{flush: time.Second, viewsEvery: time.Minute, maxBill: 1 << 20})
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar}

	// A page without a session sends the browser to the login form.
	resp, err := c.Get(s.url + "/costs")
	if err != nil {
		t.Fatal(err)
	}
	form := readBody(t, resp)
	if resp.Request.URL.Path != "/login" {
		t.Fatalf("GET /costs without a session ends at %s; want /login", resp.Request.URL)
	}
	csrf := regexp.MustCompile(`name="csrf" value="([^"]+)"`).FindStringSubmatch(form)
	if csrf == nil {
		t.Fatalf("the login form has no CSRF token:\n%s", form)
	}
	// Without the CSRF token the login is refused; with it, the browser lands where it wanted.
	resp, err = c.PostForm(s.url+"/login", url.Values{"token": {s.tokens[gpucost.RoleViewer]}, "next": {"/costs"}})
	if err != nil {
		t.Fatal(err)
	}
	if readBody(t, resp); resp.StatusCode != http.StatusForbidden {
		t.Errorf("login without the CSRF token = %d; want 403", resp.StatusCode)
	}
	resp, err = c.PostForm(s.url+"/login", url.Values{"token": {s.tokens[gpucost.RoleViewer]}, "csrf": {csrf[1]}, "next": {"/costs"}})
	if err != nil {
		t.Fatal(err)
	}
	if readBody(t, resp); resp.StatusCode != http.StatusOK || resp.Request.URL.Path != "/costs" {
		t.Fatalf("login = %d at %s; want 200 at /costs", resp.StatusCode, resp.Request.URL)
	}

	var ov struct {
		MonthToDate string `json:"month_to_date"`
	}
	_, body := s.do(t, "GET", "/api/v1/overview", gpucost.RoleViewer, nil)
	if err := json.Unmarshal(body, &ov); err != nil || ov.MonthToDate == "" {
		t.Fatalf("overview: %v\n%s", err, body)
	}
	mtd, err := gpucost.ParseMoney(ov.MonthToDate, "USD")
	if err != nil {
		t.Fatal(err)
	}
	pages := map[string][]string{
		"/":                {mtd.Dollars(), "Daily spend"},
		"/gpus":            {"Utilisation per hour", "host"},
		"/gpus?by=host":    {"Utilisation per hour"},
		"/costs?by=team":   {"research", "serving"},
		"/idle":            {"Idle"},
		"/recommendations": {"/month"},
		"/budgets":         {"Budgets"},
		"/jobs":            {"Jobs"},
		"/activity":        {"Alerts sent", "No alert sent in this period", "No enforcement action in this period"},
	}
	for path, wants := range pages {
		resp, err := c.Get(s.url + path)
		if err != nil {
			t.Fatal(err)
		}
		page := readBody(t, resp)
		if resp.StatusCode != http.StatusOK || resp.Request.URL.Path == "/login" {
			t.Errorf("GET %s = %d at %s; want the page", path, resp.StatusCode, resp.Request.URL)
			continue
		}
		for _, want := range wants {
			if !strings.Contains(page, want) {
				t.Errorf("GET %s lacks %q", path, want)
			}
		}
		if strings.Contains(page, s.tokens[gpucost.RoleViewer]) {
			t.Errorf("GET %s shows the token's secret", path)
		}
	}
}

func readBody(t *testing.T, resp *http.Response) string {
	t.Helper()
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
