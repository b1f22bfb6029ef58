package httpapi

import (
	"encoding/base64"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gpucost/gpucost"
)

// Paging limits of the read endpoints' lists.
const (
	DefaultPageLimit = 100
	MaxPageLimit     = 1000
)

// FilterLabels are the filter names a read request may give as parameters of their own
// (team=ml); any other label or tag is filter=KEY:VALUE.
var FilterLabels = []string{"team", "project", "namespace", "pod", "job", "host", "model", "gpu", "provider", "region"}

// Page says which part of a list a response holds and how to get the next.
type Page struct {
	Total  int    `json:"total"`          // items in the whole list
	Offset int    `json:"offset"`         // of the first item here
	Limit  int    `json:"limit"`          // most items per page
	Next   string `json:"next,omitempty"` // the next page's path and query; absent on the last page
}

// paging is a request's limit and offset.
type paging struct {
	limit, offset int
}

// paramError is a bad query parameter: 400, naming the parameter and what to use.
func paramError(name, value, use string) error {
	return gpucost.Errorf(gpucost.EInvalid, "parameter %s=%q: %s", name, value, use)
}

// readParams are the parameters one read endpoint takes.
type readParams struct {
	period bool // since, from, to
	by     bool
	filter bool // filter and the FilterLabels
	paged  bool // limit, cursor, offset
}

// allowed lists the parameter names p takes, for the message about an unknown one.
func (p readParams) allowed() []string {
	var names []string
	if p.period {
		names = append(names, "since", "from", "to")
	}
	if p.by {
		names = append(names, "by")
	}
	if p.filter {
		names = append(names, "filter")
		names = append(names, FilterLabels...)
	}
	if p.paged {
		names = append(names, "limit", "cursor", "offset")
	}
	return names
}

// check refuses a parameter the endpoint does not take, so a misspelt filter is not silently
// ignored.
func (p readParams) check(q url.Values) error {
	allowed := p.allowed()
	for _, name := range slices.Sorted(maps.Keys(q)) {
		if !slices.Contains(allowed, name) {
			use := "this endpoint takes no parameters"
			if len(allowed) > 0 {
				use = "this endpoint takes " + strings.Join(allowed, ", ")
			}
			return gpucost.Errorf(gpucost.EInvalid, "unknown parameter %s: %s; see /api/openapi.json", name, use)
		}
	}
	return nil
}

// parseQuery reads the period, grouping and filters of a read request. A since period ends at
// now truncated to the minute, so requests in the same minute ask the same question.
func parseQuery(q url.Values, now time.Time, p readParams) (Query, error) {
	var out Query
	if err := p.check(q); err != nil {
		return out, err
	}
	if p.period {
		if err := parsePeriod(q, now, &out); err != nil {
			return out, err
		}
	}
	if p.by {
		if v, err := single(q, "by"); err != nil {
			return out, err
		} else if v != "" {
			out.By = v
		}
	}
	if p.filter {
		f, err := parseFilters(q)
		if err != nil {
			return out, err
		}
		out.Filter = f
	}
	return out, nil
}

// single returns a parameter given at most once.
func single(q url.Values, name string) (string, error) {
	vs := q[name]
	if len(vs) > 1 {
		return "", gpucost.Errorf(gpucost.EInvalid, "parameter %s is given %d times: give it once", name, len(vs))
	}
	if len(vs) == 0 {
		return "", nil
	}
	return vs[0], nil
}

func parsePeriod(q url.Values, now time.Time, out *Query) error {
	since, err := single(q, "since")
	if err != nil {
		return err
	}
	from, err := single(q, "from")
	if err != nil {
		return err
	}
	to, err := single(q, "to")
	if err != nil {
		return err
	}
	if since != "" && from != "" {
		return gpucost.Errorf(gpucost.EInvalid, "parameters since and from are both given: give since (30d) or from and to (RFC 3339)")
	}
	if to != "" {
		t, err := time.Parse(time.RFC3339, to)
		if err != nil {
			return paramError("to", to, "use RFC 3339, such as 2026-11-01T00:00:00Z")
		}
		out.To = t.UTC()
	}
	if from != "" {
		t, err := time.Parse(time.RFC3339, from)
		if err != nil {
			return paramError("from", from, "use RFC 3339, such as 2026-10-01T00:00:00Z")
		}
		out.From = t.UTC()
		if out.To.IsZero() {
			out.To = now.UTC().Truncate(time.Minute)
		}
	}
	if since != "" {
		ago, ok := parseAgo(since)
		if !ok {
			return paramError("since", since, "use a duration such as 30d, 7d, 24h or 90m")
		}
		if out.To.IsZero() {
			out.To = now.UTC().Truncate(time.Minute)
		}
		out.From = out.To.Add(-ago)
	}
	if !out.From.IsZero() && !out.From.Before(out.To) {
		return gpucost.Errorf(gpucost.EInvalid, "parameters from/to: the period %s to %s is empty; from must be before to",
			out.From.Format(time.RFC3339), out.To.Format(time.RFC3339))
	}
	if out.From.IsZero() && !out.To.IsZero() {
		return gpucost.Errorf(gpucost.EInvalid, "parameter to without since or from: give since=30d or from=RFC 3339 as well")
	}
	return nil
}

// parseAgo parses a look-back such as 30d, 2w, 24h or 90m, at most ten years.
func parseAgo(s string) (time.Duration, bool) {
	for unit, d := range map[string]time.Duration{"d": 24 * time.Hour, "w": 7 * 24 * time.Hour} {
		if n, ok := strings.CutSuffix(s, unit); ok {
			v, err := strconv.ParseFloat(n, 64)
			if err != nil || !(v > 0 && v <= 3660) {
				return 0, false
			}
			return time.Duration(v * float64(d)), true
		}
	}
	d, err := time.ParseDuration(s)
	return d, err == nil && d > 0 && d <= 3660*24*time.Hour
}

// parseFilters reads filter=KEY:VALUE (repeatable) and the FilterLabels' own parameters.
func parseFilters(q url.Values) (map[string]string, error) {
	f := map[string]string{}
	add := func(param, k, v string) error {
		k = strings.ToLower(strings.TrimSpace(k))
		if k == "" || v == "" {
			return paramError(param, k+":"+v, "use filter=KEY:VALUE, such as filter=team:ml")
		}
		if old, dup := f[k]; dup && old != v {
			return paramError(param, v, fmt.Sprintf("%s is already filtered to %q; one value per key", k, old))
		}
		f[k] = v
		return nil
	}
	for _, spec := range q["filter"] {
		k, v, ok := strings.Cut(spec, ":")
		if !ok {
			return nil, paramError("filter", spec, "use filter=KEY:VALUE, such as filter=team:ml or filter=namespace:serving")
		}
		if err := add("filter", k, v); err != nil {
			return nil, err
		}
	}
	for _, name := range FilterLabels {
		v, err := single(q, name)
		if err != nil {
			return nil, err
		}
		if _, given := q[name]; given {
			if err := add(name, name, v); err != nil {
				return nil, err
			}
		}
	}
	if len(f) == 0 {
		return nil, nil
	}
	return f, nil
}

// parsePaging reads limit and cursor or offset.
func parsePaging(q url.Values) (paging, error) {
	p := paging{limit: DefaultPageLimit}
	if v, err := single(q, "limit"); err != nil {
		return p, err
	} else if v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > MaxPageLimit {
			return p, paramError("limit", v, fmt.Sprintf("use 1 to %d (default %d)", MaxPageLimit, DefaultPageLimit))
		}
		p.limit = n
	}
	cursor, err := single(q, "cursor")
	if err != nil {
		return p, err
	}
	offset, err := single(q, "offset")
	if err != nil {
		return p, err
	}
	switch {
	case cursor != "" && offset != "":
		return p, gpucost.Errorf(gpucost.EInvalid, "parameters cursor and offset are both given: follow next (a cursor) or give offset")
	case cursor != "":
		n, ok := decodeCursor(cursor)
		if !ok {
			return p, paramError("cursor", cursor, "use the cursor of a response's next link as it is")
		}
		p.offset = n
	case offset != "":
		n, err := strconv.Atoi(offset)
		if err != nil || n < 0 {
			return p, paramError("offset", offset, "use a whole number from 0")
		}
		p.offset = n
	}
	return p, nil
}

// A cursor is the next item's offset, opaque to clients so it can change without breaking them.
func encodeCursor(offset int) string {
	return base64.RawURLEncoding.EncodeToString([]byte("o" + strconv.Itoa(offset)))
}

func decodeCursor(c string) (int, bool) {
	b, err := base64.RawURLEncoding.DecodeString(c)
	if err != nil || len(b) < 2 || b[0] != 'o' {
		return 0, false
	}
	n, err := strconv.Atoi(string(b[1:]))
	return n, err == nil && n >= 0
}

// pageOf returns the page of items p asks for and says where it lies; next repeats the
// request's URL with the next page's cursor.
func pageOf[T any](items []T, p paging, u *url.URL) ([]T, Page) {
	pg := Page{Total: len(items), Offset: p.offset, Limit: p.limit}
	start := min(p.offset, len(items))
	end := min(start+p.limit, len(items))
	if end < len(items) {
		q := u.Query()
		q.Del("offset")
		q.Set("cursor", encodeCursor(end))
		pg.Next = u.Path + "?" + q.Encode()
	}
	out := items[start:end]
	if out == nil {
		out = []T{}
	}
	return out, pg
}

// badParam writes a 400 for a parameter error.
func (s *Server) badParam(w http.ResponseWriter, err error) {
	s.writeErr(w, err, "read the parameters")
}
