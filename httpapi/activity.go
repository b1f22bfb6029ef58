package httpapi

import (
	"context"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/enforce"
)

// DefaultActivitySince is how far back the activity endpoints look without since.
const DefaultActivitySince = 30 * 24 * time.Hour

// ActivityLog is what budget alerts and enforcement did: the store's enforcement action log
// and alert delivery log, which gpucost serve, gpucost enforce and gpucost budget check write.
type ActivityLog interface {
	// Actions returns the enforcement actions f selects, oldest first.
	Actions(ctx context.Context, f gpucost.ActionFilter) ([]enforce.LogEntry, error)
	// Deliveries returns the alert delivery attempts f selects, oldest first.
	Deliveries(ctx context.Context, f gpucost.DeliveryFilter) ([]gpucost.Delivery, error)
}

// ActionsResponse is GET /api/v1/actions: one page of the enforcement actions, newest first.
type ActionsResponse struct {
	Actions []enforce.LogEntry `json:"actions"`
	Page    Page               `json:"page"`
}

// DeliveriesResponse is GET /api/v1/deliveries: one page of the alert delivery attempts,
// newest first.
type DeliveriesResponse struct {
	Deliveries []Delivery `json:"deliveries"`
	Page       Page       `json:"page"`
}

// Delivery is one attempt to send an alert to one target, with what its key says: the budget,
// period and threshold of a budget alert ("budget:research:2026-11:actual:80"), or the policy
// of an enforcement alert ("policy:spot-cap:2026-11-20").
type Delivery struct {
	At        time.Time `json:"at"`
	Key       string    `json:"key"`
	Kind      string    `json:"kind"`
	Target    string    `json:"target"`
	Attempt   int       `json:"attempt"`
	OK        bool      `json:"ok"`
	Final     bool      `json:"final"`            // no further attempt follows
	Status    int       `json:"status,omitempty"` // the HTTP or SMTP status
	DurationS float64   `json:"duration_s"`
	Error     string    `json:"error,omitempty"` // secrets redacted
	Budget    string    `json:"budget,omitempty"`
	Period    string    `json:"period,omitempty"`
	Threshold string    `json:"threshold,omitempty"` // "actual 80%", "forecast 100%"
	Policy    string    `json:"policy,omitempty"`
}

// DeliveryOf is d as the API shows it, its key read into budget, period and threshold or
// policy.
func DeliveryOf(d gpucost.Delivery) Delivery {
	out := Delivery{At: d.At, Key: d.Key, Kind: d.Kind, Target: d.Target, Attempt: d.Attempt, OK: d.OK, Final: d.Final,
		Status: d.Status, DurationS: d.Duration.Seconds(), Error: d.Error}
	parts := strings.Split(d.Key, ":")
	switch {
	case len(parts) >= 5 && parts[0] == "budget":
		// The budget's name may hold a colon; the period, kind and percent are the last three.
		n := len(parts)
		out.Budget = strings.Join(parts[1:n-3], ":")
		out.Period, out.Threshold = parts[n-3], parts[n-2]+" "+parts[n-1]+"%"
	case len(parts) >= 3 && parts[0] == "policy":
		out.Policy = strings.Join(parts[1:len(parts)-1], ":")
		out.Period = parts[len(parts)-1]
	}
	return out
}

// Action results GET /api/v1/actions?result= takes.
var actionResults = []string{enforce.ResultPlanned, enforce.ResultDone, enforce.ResultFailed}

func (s *Server) activityRoutes() []route {
	viewer := []gpucost.Role{gpucost.RoleViewer}
	return []route{
		{"GET", "/api/v1/actions", viewer, s.getActions},
		{"GET", "/api/v1/deliveries", viewer, s.getDeliveries},
		{"GET", "/api/v1/audit", []gpucost.Role{}, s.getAudit},
	}
}

// activityParams reads an activity request's parameters: only those named, each once, and
// since (default DefaultActivitySince), and the paging.
func (s *Server) activityParams(w http.ResponseWriter, r *http.Request, names ...string) (map[string]string, time.Time, paging, bool) {
	if s.Activity == nil {
		writeError(w, http.StatusServiceUnavailable, gpucost.EUnavailable, "this server keeps no activity log (it was started without a store)")
		return nil, time.Time{}, paging{}, false
	}
	q := r.URL.Query()
	vals, since, err := parseActivity(q, s.Now(), names)
	if err != nil {
		s.badParam(w, err)
		return nil, time.Time{}, paging{}, false
	}
	pg, err := parsePaging(q)
	if err != nil {
		s.badParam(w, err)
		return nil, time.Time{}, paging{}, false
	}
	return vals, since, pg, true
}

// parseActivity checks that q holds only since, names and the paging parameters, each once,
// and returns the named ones' values and the start of the period.
func parseActivity(q url.Values, now time.Time, names []string) (map[string]string, time.Time, error) {
	allowed := append([]string{"since"}, names...)
	allowed = append(allowed, "limit", "cursor", "offset")
	for _, name := range slices.Sorted(maps.Keys(q)) {
		if !slices.Contains(allowed, name) {
			return nil, time.Time{}, gpucost.Errorf(gpucost.EInvalid, "unknown parameter %s: this endpoint takes %s; see /api/openapi.json",
				name, strings.Join(allowed, ", "))
		}
	}
	vals := map[string]string{}
	for _, name := range allowed {
		v, err := single(q, name)
		if err != nil {
			return nil, time.Time{}, err
		}
		vals[name] = v
	}
	ago := DefaultActivitySince
	if v := vals["since"]; v != "" {
		d, ok := parseAgo(v)
		if !ok {
			return nil, time.Time{}, paramError("since", v, "use a duration such as 30d, 7d, 24h or 90m")
		}
		ago = d
	}
	return vals, now.UTC().Add(-ago), nil
}

func (s *Server) getActions(w http.ResponseWriter, r *http.Request) {
	vals, since, pg, ok := s.activityParams(w, r, "policy", "resource", "result")
	if !ok {
		return
	}
	if res := vals["result"]; res != "" && !slices.Contains(actionResults, res) {
		s.badParam(w, paramError("result", res, "use "+strings.Join(actionResults, ", ")))
		return
	}
	entries, err := s.Activity.Actions(r.Context(), gpucost.ActionFilter{Since: since, Policy: vals["policy"], Resource: vals["resource"]})
	if err != nil {
		s.writeErr(w, err, "read the action log")
		return
	}
	out := make([]enforce.LogEntry, 0, len(entries))
	for i := len(entries) - 1; i >= 0; i-- {
		if res := vals["result"]; res == "" || entries[i].Action.Result == res {
			out = append(out, entries[i])
		}
	}
	list, page := pageOf(out, pg, r.URL)
	writeJSON(w, http.StatusOK, ActionsResponse{Actions: list, Page: page})
}

func (s *Server) getDeliveries(w http.ResponseWriter, r *http.Request) {
	vals, since, pg, ok := s.activityParams(w, r, "target", "budget", "key_prefix")
	if !ok {
		return
	}
	f := gpucost.DeliveryFilter{Since: since, Target: vals["target"], KeyPrefix: vals["key_prefix"]}
	if b := vals["budget"]; b != "" {
		if f.KeyPrefix != "" {
			s.badParam(w, gpucost.Errorf(gpucost.EInvalid, "parameters budget and key_prefix are both given: give one (budget=NAME is key_prefix=budget:NAME:)"))
			return
		}
		f.KeyPrefix = "budget:" + b + ":"
	}
	ds, err := s.Activity.Deliveries(r.Context(), f)
	if err != nil {
		s.writeErr(w, err, "read the delivery log")
		return
	}
	out := make([]Delivery, 0, len(ds))
	for i := len(ds) - 1; i >= 0; i-- {
		out = append(out, DeliveryOf(ds[i]))
	}
	list, page := pageOf(out, pg, r.URL)
	writeJSON(w, http.StatusOK, DeliveriesResponse{Deliveries: list, Page: page})
}
