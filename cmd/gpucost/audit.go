package main

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/spf13/cobra"
)

// defaultAuditLimit is how many entries gpucost audit prints without --limit: the latest
// screenfuls, as gpucost enforce log prints; --limit 0 prints them all.
const defaultAuditLimit = 200

func newAuditCmd(e *env) *cobra.Command {
	var since string
	var f gpucost.AuditFilter
	cmd := &cobra.Command{
		Use:   "audit",
		Short: "The audit trail: who replaced or removed bills, made or revoked tokens, changed budgets, enforced",
		Long: `audit lists the store's audit trail, newest first: every destructive or privileged action
with who did it (an API token, or the user and host of a command), what it acted on and when.
Kept: bill.replace and bill.remove (a restated bill or a removed import), token.create and
token.revoke, budgets.replace (PUT /api/v1/budgets), enforce (a guardrail that acted, not a dry
run) and session.end (a dashboard logout). Entries are only ever added.

--action takes one of those names or a prefix ending in a dot (bill.); --actor takes the whole
actor or its leading words (token 3, cli). The same trail is GET /api/v1/audit (admin tokens)
and the dashboard's Activity page.`,
		Example: `  gpucost audit
  gpucost audit --since 7d --action bill.
  gpucost audit --actor "token 3" --output json
  gpucost audit --action enforce --limit 20 --output csv`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, args []string) error {
			var err error
			if f.Since, err = e.lookBack(since); err != nil {
				return err
			}
			return e.auditLog(cmd.Context(), f)
		},
	}
	cmd.Flags().StringVar(&since, "since", "", "entries in this look-back only, such as 7d or 24h (default: all)")
	cmd.Flags().StringVar(&f.Action, "action", "", "entries of this action only, or of a prefix such as bill. ("+strings.Join(gpucost.AuditActions, ", ")+")")
	cmd.Flags().StringVar(&f.Actor, "actor", "", `entries by this actor only: the whole actor or its leading words, such as "token 3" or cli`)
	cmd.Flags().IntVar(&f.Limit, "limit", defaultAuditLimit, "the latest N entries (0: all)")
	return cmd
}

// auditLog prints the audit entries f selects, newest first.
func (e *env) auditLog(ctx context.Context, f gpucost.AuditFilter) error {
	var bad error
	if err := gpucost.CheckAuditAction(f.Action); err != nil {
		bad = usageError{fmt.Errorf("--action: %w", err)}
	}
	r := result{
		Title:   "Audit trail",
		Columns: []string{"ID", "Time", "Actor", "Action", "Target", "Detail", "Source"},
		Right:   []int{0},
		JSON:    []gpucost.AuditEntry{},
	}
	return e.listLog(ctx, f.Limit, bad, r, "No store file: nothing has been audited yet.", func(db storeDB, r *result) error {
		entries, err := db.Audit(ctx, f)
		if err != nil {
			return err
		}
		for _, en := range entries {
			r.Rows = append(r.Rows, []string{strconv.FormatInt(en.ID, 10), en.At.UTC().Format(time.RFC3339), en.Actor, en.Action, en.Target, en.Detail, en.Source})
		}
		if len(entries) > 0 {
			r.JSON = entries
		} else {
			r.Notes = append(r.Notes, "No audit entry matches.")
		}
		if f.Limit > 0 && len(entries) == f.Limit {
			r.Notes = append(r.Notes, fmt.Sprintf("The latest %d entries; --limit 0 prints them all.", f.Limit))
		}
		return nil
	})
}

// listLog prints a log listing (audit, enforce log, budget deliveries): after checking --output,
// the --limit and bad (a flag error found before), r with the noStore note when the store file
// does not exist yet, else r as fill completes it from the store.
func (e *env) listLog(ctx context.Context, limit int, bad error, r result, noStore string, fill func(db storeDB, r *result) error) error {
	if err := e.validOutput(); err != nil {
		return err
	}
	if err := checkLimit(limit); err != nil {
		return err
	}
	if bad != nil {
		return bad
	}
	if e.noStoreYet() {
		r.Notes = append(r.Notes, noStore)
		return e.print(r)
	}
	db, err := e.openDB(ctx)
	if err != nil {
		return err
	}
	defer db.Close()
	if err := fill(db, &r); err != nil {
		return err
	}
	return e.print(r)
}
