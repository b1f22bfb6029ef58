package present

import (
	"fmt"

	"github.com/gpucost/gpucost/analyze"
)

// Alerts is report alerts' table: the alert episodes in state (all, firing, no data or
// resolved).
func Alerts(rep analyze.AlertReport, state string) Table {
	t := Table{
		Title:   fmt.Sprintf("Alerts over %d minute rollups of %d series", rep.Minutes, rep.Series),
		Columns: []string{"State", "Severity", "Rule", "GPU", "Host", "Labels", "Start", "End", "Duration", "Worst", "Evidence"},
		// On a narrow terminal the rule, host and evidence stay; labels and the end go first.
		Priority: []int{7, 4, 10, 5, 9, 0, 6, 1, 3, 2, 8},
		JSON:     rep,
	}
	for _, a := range rep.Alerts {
		if state != "all" && string(a.State) != state {
			continue
		}
		t.Rows = append(t.Rows, []string{string(a.State), string(a.Rule.Severity), a.Rule.Name, a.Series.GPU.UUID,
			a.Series.GPU.Host, a.Series.Labels.String(), a.Start.Format("2006-01-02 15:04"), a.End.Format("2006-01-02 15:04"),
			a.Duration.String(), fmt.Sprintf("%.1f", a.Worst), a.Evidence})
	}
	if len(t.Rows) == 0 {
		t.Notes = append(t.Notes, "No alerts.")
	}
	if n := countState(rep.Alerts, analyze.AlertNoData); n > 0 && (state == "all" || state == string(analyze.AlertNoData)) {
		t.Notes = append(t.Notes, fmt.Sprintf("%d alerts are no data: their GPUs stopped reporting for longer than the rule's duration; check the agents.", n))
	}
	if rep.Minutes == 0 {
		t.Notes = append(t.Notes, "No minute rollups in the period: minute rollups are kept for 14 days.")
	}
	if len(rep.NoTDP) > 0 {
		t.Notes = append(t.Notes, fmt.Sprintf("Power rule not evaluated for models without a known TDP: %v", rep.NoTDP))
	}
	return t
}

// AlertRules lists the monitoring rules for report alerts --help: name, severity, expression,
// duration and summary, a line each.
func AlertRules(rules []analyze.Rule) string {
	s := "Rules:\n"
	for _, r := range rules {
		s += fmt.Sprintf("  %-18s %-8s %s for %s: %s\n", r.Name, r.Severity, r.Expr(), r.For, r.Summary)
	}
	return s
}

// countState counts the alerts in state.
func countState(alerts []analyze.Alert, state analyze.AlertState) int {
	n := 0
	for _, a := range alerts {
		if a.State == state {
			n++
		}
	}
	return n
}
