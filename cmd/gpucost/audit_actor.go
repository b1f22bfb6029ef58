package main

import (
	"context"
	"fmt"
	"os"
	"os/user"

	"github.com/gpucost/gpucost"
)

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
