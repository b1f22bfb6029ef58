package present

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/enforce"
)

// Enforcement is "enforce": every action of the plan with its policy, resource and evidence,
// and a note per policy on why it triggered or not; notes follow those.
func Enforcement(p enforce.Plan, notes []string) Table {
	t := Table{
		Title:   "Enforcement",
		Columns: []string{"Policy", "Action", "Resource", "Kind", "Region", "Result", "Evidence", "Error"},
		JSON:    p,
	}
	if !p.Apply {
		t.Title += " (dry run: nothing changed; give --apply to act on policies with dry_run: false)"
	}
	for _, a := range p.Actions {
		id, kind, region := strings.Join(a.Targets, ", "), "targets", ""
		if a.Resource != nil {
			id, kind, region = a.Resource.ID, a.Resource.Kind, a.Resource.Region
		}
		res := a.Result
		if a.DryRun && res == enforce.ResultPlanned {
			res = "planned (dry run)"
		}
		t.Rows = append(t.Rows, []string{a.Policy, a.Action, id, kind, region, res, a.Summary(), a.Error})
	}
	for _, pr := range p.Policies {
		state := "not triggered"
		if pr.Triggered {
			state = fmt.Sprintf("TRIGGERED, %d actions", pr.Actions)
		}
		note := fmt.Sprintf("%s [%s]: %s — %s; %d resources in scope", pr.Policy, pr.Trigger, state, pr.Reason, pr.InScope)
		if len(pr.Exempt) > 0 {
			note += fmt.Sprintf(", exempt: %s", strings.Join(pr.Exempt, ", "))
		}
		t.Notes = append(t.Notes, note+".")
		for _, s := range pr.Skipped {
			t.Notes = append(t.Notes, fmt.Sprintf("%s: skipped %s.", pr.Policy, s))
		}
	}
	t.Notes = append(t.Notes, notes...)
	return t
}

// EnforceLog is "enforce log": the action log's entries, oldest first; noStore says there is
// no store file yet, so nothing was ever logged.
func EnforceLog(entries []enforce.LogEntry, noStore bool) Table {
	t := Table{
		Title:   "Enforcement actions",
		Columns: []string{"Time", "Policy", "Action", "Resource", "Kind", "Result", "Dry run", "Evidence", "Error"},
		JSON:    []enforce.LogEntry{},
	}
	for _, en := range entries {
		a := en.Action
		id, kind := strings.Join(a.Targets, ", "), "targets"
		if a.Resource != nil {
			id, kind = a.Resource.ID, a.Resource.Kind
		}
		t.Rows = append(t.Rows, []string{en.At.UTC().Format(time.RFC3339), a.Policy, a.Action, id, kind, a.Result,
			fmt.Sprint(a.DryRun), a.Summary(), a.Error})
	}
	switch {
	case noStore:
		t.Notes = append(t.Notes, "No store file: no action has been logged yet (gpucost enforce logs them).")
	case len(entries) > 0:
		t.JSON = entries
	default:
		t.Notes = append(t.Notes, "No action matches.")
	}
	return t
}

// Audit is "audit": the audit trail's entries, newest first. limit is the --limit that
// selected them (0: all); noStore says there is no store file yet.
func Audit(entries []gpucost.AuditEntry, limit int, noStore bool) Table {
	t := Table{
		Title:   "Audit trail",
		Columns: []string{"ID", "Time", "Actor", "Action", "Target", "Detail", "Source"},
		Right:   []int{0},
		JSON:    []gpucost.AuditEntry{},
	}
	if noStore {
		t.Notes = append(t.Notes, "No store file: nothing has been audited yet.")
		return t
	}
	for _, en := range entries {
		t.Rows = append(t.Rows, []string{strconv.FormatInt(en.ID, 10), en.At.UTC().Format(time.RFC3339), en.Actor, en.Action, en.Target, en.Detail, en.Source})
	}
	if len(entries) > 0 {
		t.JSON = entries
	} else {
		t.Notes = append(t.Notes, "No audit entry matches.")
	}
	if limit > 0 && len(entries) == limit {
		t.Notes = append(t.Notes, fmt.Sprintf("The latest %d entries; --limit 0 prints them all.", limit))
	}
	return t
}

// Tokens is "token list": every API token, never its secret.
func Tokens(toks []gpucost.Token) Table {
	t := Table{Title: "API tokens", Columns: []string{"ID", "Name", "Role", "Created", "Revoked"}, Right: []int{0},
		JSON: append([]gpucost.Token{}, toks...)}
	for _, tok := range toks {
		revoked := ""
		if !tok.Revoked.IsZero() {
			revoked = tok.Revoked.Format(time.RFC3339)
		}
		t.Rows = append(t.Rows, []string{strconv.FormatInt(tok.ID, 10), tok.Name, string(tok.Role), tok.Created.Format(time.RFC3339), revoked})
	}
	if len(toks) == 0 {
		t.Notes = append(t.Notes, "No tokens yet: gpucost token create --name NAME --role viewer|ingest|admin")
	}
	return t
}
