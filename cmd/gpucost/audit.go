package main

import (
	"context"
	"fmt"
	"os"
	"os/user"
	"strings"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/present"
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
run), session.end (a dashboard logout) and step.apply and step.remove (a plan step recorded
applied, a record removed). Entries are only ever added.

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
			var bad error
			if err := gpucost.CheckAuditAction(f.Action); err != nil {
				bad = usageError{fmt.Errorf("--action: %w", err)}
			}
			return e.listLog(cmd.Context(), f.Limit, bad, func(db storeDB) (result, error) {
				if db == nil {
					return present.Audit(nil, f.Limit, true), nil
				}
				entries, err := db.Audit(cmd.Context(), f)
				return present.Audit(entries, f.Limit, false), err
			})
		},
	}
	registerSince(cmd, &since, "entries")
	cmd.Flags().StringVar(&f.Action, "action", "", "entries of this action only, or of a prefix such as bill. ("+strings.Join(gpucost.AuditActions, ", ")+")")
	cmd.Flags().StringVar(&f.Actor, "actor", "", `entries by this actor only: the whole actor or its leading words, such as "token 3" or cli`)
	cmd.Flags().IntVar(&f.Limit, "limit", defaultAuditLimit, "the latest N entries (0: all)")
	return cmd
}

// listLog prints a log listing (audit, enforce log, budget deliveries): after checking --output,
// the --limit and bad (a flag error found before), the table list makes from the store, or
// from a nil store when the store file does not exist yet.
func (e *env) listLog(ctx context.Context, limit int, bad error, list func(db storeDB) (result, error)) error {
	if err := e.validOutput(); err != nil {
		return err
	}
	if err := checkLimit(limit); err != nil {
		return err
	}
	if bad != nil {
		return bad
	}
	var db storeDB
	if !e.noStoreYet() {
		var err error
		if db, err = e.openDB(ctx); err != nil {
			return err
		}
		defer db.Close()
	}
	r, err := list(db)
	if err != nil {
		return err
	}
	return e.print(r)
}

// cliActor names who runs this command, for the audit log: "cli USER@HOST".
func cliActor() string {
	name := "unknown"
	if u, err := user.Current(); err == nil {
		name = u.Username
	}
	host, _ := os.Hostname()
	return fmt.Sprintf("cli %s@%s", name, host)
}

// audit records an action this command took in db's audit log, as cliActor. Stores that keep
// no audit log are an internal error: both gpucost stores keep one.
func (e *env) audit(ctx context.Context, db any, action, target, detail string) error {
	log, ok := db.(gpucost.AuditLog)
	if !ok {
		return gpucost.Errorf(gpucost.EInternal, "record %s of %s: the store %T keeps no audit log", action, target, db)
	}
	_, err := log.RecordAudit(context.WithoutCancel(ctx), gpucost.AuditEntry{
		At: e.now().UTC(), Actor: cliActor(), Action: action, Target: target, Detail: detail, Source: "cli"})
	if err != nil {
		return fmt.Errorf("record %s of %s in the audit log: %w", action, target, err)
	}
	return nil
}
