package web

import (
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/budget"
	"github.com/gpucost/gpucost/enforce"
	"github.com/gpucost/gpucost/httpapi"
)

// What the activity page reads and shows: the latest attempts, actions and audit entries of
// the period, and at most activityRows rows of each table.
const (
	activityAttempts = 1000
	activityActions  = 500
	activityAudit    = 500
	activityRows     = 100
)

// activityFilters are the keys the activity page's filter takes: action and actor select audit
// entries, the others alerts and enforcement actions.
var activityFilters = []string{"action", "actor", "budget", "policy", "result", "target"}

// activityPage is what budget alerts and enforcement did in the period, and, for admins, the
// audit trail, newest first.
type activityPage struct {
	Enabled     bool // the dashboard has an activity log
	Alerts      []alertRow
	Actions     []actionRow
	MoreAlerts  int // alerts in the period beyond the table
	MoreActions int

	// AuditShown is set for an admin of a dashboard that has an audit trail; AuditAdminOnly
	// when the viewer is not an admin.
	AuditShown, AuditAdminOnly bool
	Audit                      []gpucost.AuditEntry
	MoreAudit                  int

	Sources []httpapi.BillSourceStatus // the bill sources serve --pull-bills pulls; none without
}

// alertRow is one alert to one target: its latest attempt, how many there were and how it
// ended. A GPU alert message also counts the GPU events it carried (GPUs).
type alertRow struct {
	httpapi.Delivery
	Attempts int
	Result   string // delivered, failed, retrying
	GPUs     int    // a GPU alert message's events, logged as delivered under the attempt that sent it
	GPURule  string // the rule of a GPU alert message ("gpu-alerts:RULE:KIND:HASH")
}

// actionRow is one logged action with its evidence in lines.
type actionRow struct {
	enforce.LogEntry
	Resource, Kind, Region string
	Evidence               []string
}

func loadActivity(s *site, r *http.Request, q query) (any, error) {
	for k := range q.Query.Filter {
		if !slices.Contains(activityFilters, k) {
			return nil, gpucost.Errorf(gpucost.EInvalid, "filter %s: the activity page filters by %s, such as policy=spot-cap,result=failed",
				k, strings.Join(activityFilters, ", "))
		}
	}
	var p activityPage
	if err := loadAudit(s, r, q, &p); err != nil {
		return nil, err
	}
	if s.d.BillSources != nil {
		p.Sources = s.d.BillSources.BillSourceStatus()
	}
	if s.d.Activity == nil {
		return p, nil
	}
	f := q.Query.Filter
	p.Enabled = true
	df := gpucost.DeliveryFilter{Since: q.From, Target: f["target"], Limit: activityAttempts}
	if b := f["budget"]; b != "" {
		df.KeyPrefix = "budget:" + b + ":"
	}
	ds, err := s.d.Activity.Deliveries(r.Context(), df)
	if err != nil {
		return nil, fmt.Errorf("read the delivery log: %w", err)
	}
	p.Alerts = alertRows(ds, f["result"], f["policy"])
	entries, err := s.d.Activity.Actions(r.Context(), gpucost.ActionFilter{Since: q.From, Policy: f["policy"], Limit: activityActions})
	if err != nil {
		return nil, fmt.Errorf("read the action log: %w", err)
	}
	for i := len(entries) - 1; i >= 0; i-- {
		e := entries[i]
		if res := f["result"]; res != "" && e.Action.Result != res {
			continue
		}
		if f["budget"] != "" && e.Action.Evidence.Budget != f["budget"] || f["target"] != "" && !slices.Contains(e.Action.Targets, f["target"]) {
			continue
		}
		p.Actions = append(p.Actions, actionRowOf(e))
	}
	if len(p.Alerts) > activityRows {
		p.MoreAlerts, p.Alerts = len(p.Alerts)-activityRows, p.Alerts[:activityRows]
	}
	if len(p.Actions) > activityRows {
		p.MoreActions, p.Actions = len(p.Actions)-activityRows, p.Actions[:activityRows]
	}
	return p, nil
}

// loadAudit fills p's audit section: the period's entries that the action and actor filters
// select, for admins only, as GET /api/v1/audit is.
func loadAudit(s *site, r *http.Request, q query, p *activityPage) error {
	if s.d.Audit == nil {
		return nil
	}
	if v := viewerFrom(r); v == nil || v.Token.Role != gpucost.RoleAdmin {
		p.AuditAdminOnly = true
		return nil
	}
	f := q.Query.Filter
	entries, err := s.d.Audit.Audit(r.Context(), gpucost.AuditFilter{Since: q.From, Action: f["action"], Actor: f["actor"], Limit: activityAudit})
	if err != nil {
		return fmt.Errorf("read the audit log: %w", err)
	}
	p.AuditShown, p.Audit = true, entries
	if len(p.Audit) > activityRows {
		p.MoreAudit, p.Audit = len(p.Audit)-activityRows, p.Audit[:activityRows]
	}
	return nil
}

// alertRows folds attempts (oldest first) into one row per alert key and target, newest first,
// keeping those whose result is result and, for a policy's alerts, whose policy is policy. The
// copies of a GPU alert message's attempt that log each of its GPU events as delivered
// (docs/architecture.md "GPU alerts in serve") fold into the message's row as its GPUs; events
// whose message is older than the attempts read fold into one row per target and time.
func alertRows(ds []gpucost.Delivery, result, policy string) []alertRow {
	type key struct{ key, target string }
	type sent struct {
		target  string
		at      int64
		attempt int
	}
	at := map[key]int{}
	messages := map[sent]int{} // the row of each GPU alert message's delivered attempt
	var rows []alertRow
	for _, d := range ds {
		if rule, ok := gpuEventRule(d); ok {
			s := sent{d.Target, d.At.UnixNano(), d.Attempt}
			i, seen := messages[s]
			if !seen {
				i = len(rows)
				messages[s] = i
				rows = append(rows, alertRow{Delivery: httpapi.DeliveryOf(d), Attempts: 1, Result: "delivered", GPURule: rule})
			}
			rows[i].GPUs++
			continue
		}
		k := key{d.Key, d.Target}
		i, seen := at[k]
		if !seen || d.Key == "" {
			i = len(rows)
			at[k] = i
			rows = append(rows, alertRow{})
		}
		rows[i].Delivery = httpapi.DeliveryOf(d)
		rows[i].Attempts++
		if rule, ok := gpuMessageRule(d.Key); ok {
			rows[i].GPURule = rule
			if d.OK {
				messages[sent{d.Target, d.At.UnixNano(), d.Attempt}] = i
			}
		}
		switch {
		case d.OK:
			rows[i].Result = "delivered"
		case d.Final:
			rows[i].Result = "failed"
		default:
			rows[i].Result = "retrying"
		}
	}
	out := make([]alertRow, 0, len(rows))
	for i := len(rows) - 1; i >= 0; i-- {
		r := rows[i]
		if result != "" && r.Result != result || policy != "" && r.Policy != policy {
			continue
		}
		out = append(out, r)
	}
	slices.SortStableFunc(out, func(a, b alertRow) int { return b.At.Compare(a.At) })
	return out
}

// gpuMessageRule returns the rule of a GPU alert message's key, "gpu-alerts:RULE:KIND:HASH".
func gpuMessageRule(key string) (string, bool) {
	rest, ok := strings.CutPrefix(key, "gpu-alerts:")
	rule, _, _ := strings.Cut(rest, ":")
	return rule, ok && rule != ""
}

// gpuEventRule returns the rule of a delivered GPU alert event, "gpu-alert:RULE:SERIES:FIREDAT…":
// the copy of its message's attempt that logs the event as sent.
func gpuEventRule(d gpucost.Delivery) (string, bool) {
	rest, ok := strings.CutPrefix(d.Key, "gpu-alert:")
	rule, _, _ := strings.Cut(rest, ":")
	return rule, ok && d.OK && rule != ""
}

func actionRowOf(e enforce.LogEntry) actionRow {
	a := e.Action
	row := actionRow{LogEntry: e, Resource: strings.Join(a.Targets, ", "), Kind: "targets"}
	if a.Resource != nil {
		row.Resource, row.Kind, row.Region = a.Resource.ID, a.Resource.Kind, a.Resource.Region
	}
	row.Evidence = evidenceLines(a)
	return row
}

// evidenceLines is an action's evidence as sentences: the rule, the figures, what put the
// resource in scope and what the action sets.
func evidenceLines(a enforce.Action) []string {
	ev := a.Evidence
	var out []string
	if ev.Rule != "" {
		out = append(out, "Rule: "+ev.Rule)
	}
	if ev.Reason != "" {
		out = append(out, ev.Reason)
	}
	if ev.Budget != "" {
		line := fmt.Sprintf("Budget %s %s (%s)", ev.Budget, ev.Period, ev.Measure)
		if ev.Spent != nil && ev.Amount != nil {
			line += fmt.Sprintf(": spent %s of %s (%.1f%%)", ev.Spent.Dollars(), ev.Amount.Dollars(), ev.Percent)
		}
		if ev.Forecast != nil && ev.Measure == budget.KindForecast {
			line += fmt.Sprintf(", forecast %s (%.1f%%)", ev.Forecast.Dollars(), ev.ForecastPercent)
		}
		out = append(out, line+fmt.Sprintf("; the policy acts from %g%%", ev.Over))
	}
	if ev.SpotCap != nil {
		out = append(out, fmt.Sprintf("%d running spot instances, cap %d; this is #%d of the newest beyond the cap", ev.SpotCount, *ev.SpotCap, ev.Rank))
	}
	if len(ev.ScopeTags) > 0 {
		out = append(out, "In scope by "+pairs(ev.ScopeTags))
	}
	if len(a.Tags) > 0 {
		out = append(out, "Sets "+pairs(a.Tags))
	}
	if len(ev.Resources) > 0 {
		out = append(out, "Resources: "+strings.Join(ev.Resources, ", "))
	}
	if len(a.Components) > 0 {
		out = append(out, "Inference components: "+strings.Join(a.Components, ", "))
	}
	if a.Error != "" {
		out = append(out, "Error: "+a.Error)
	}
	return out
}

// pairs writes m as "k=v, k2=v2" in key order.
func pairs(m map[string]string) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for i, k := range keys {
		keys[i] = k + "=" + m[k]
	}
	return strings.Join(keys, ", ")
}
