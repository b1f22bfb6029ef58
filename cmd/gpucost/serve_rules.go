package main

import (
	"context"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/analyze/rulesfile"
	"github.com/gpucost/gpucost/catalog"
	"github.com/gpucost/gpucost/notify"
	"github.com/gpucost/gpucost/server"
	"github.com/gpucost/gpucost/spotrisk"
	"github.com/gpucost/gpucost/spotrisk/alert"
	"github.com/spf13/cobra"
)

// serveAlertOptions are gpucost serve's --rules and --alert-on-no-data: the GPU alert rules of
// the alerts view and the dashboard, and the interruption rule checked over --jobs-store.
type serveAlertOptions struct {
	flags    alertRulesFlags
	set      rulesfile.Set // by load; the zero value keeps the defaults
	notify   bool          // --notify-gpu-alerts (true unless given false): send the GPU alert rules' episodes to --targets; false in options built without flags
	resolved bool          // --notify-resolved: and one message when a sent episode resolves
}

func (o *serveAlertOptions) add(cmd *cobra.Command) {
	o.flags.add(cmd, true)
	cmd.Flags().BoolVar(&o.notify, "notify-gpu-alerts", true, "with --targets, send each GPU alert episode once as it starts firing (and no data under rules with alert_on_no_data), grouped per rule; a rule with notify: false in --rules is not sent")
	cmd.Flags().BoolVar(&o.resolved, "notify-resolved", false, "with --targets, also send one message when a GPU alert episode sent as firing resolves")
}

// load reads the rules file.
func (o *serveAlertOptions) load() (err error) {
	if o.flags.file != "" || o.flags.noData {
		o.set, err = o.flags.set()
	}
	return err
}

// apply sets the server's alert rules and what of them it sends and, with a jobs store and
// targets, its interruption check over that store.
func (o *serveAlertOptions) apply(e *env, db storeDB, jobsStore string, so *server.Options) {
	so.AlertRules = o.set.Rules
	so.GPUAlerts = server.GPUAlerts{Quiet: o.set.Quiet, Resolved: o.resolved, Off: !o.notify}
	if rule, on := interruptionRule(o.set.Interruptions); on && jobsStore != "" && len(so.Targets) > 0 {
		so.SpotAlerts = e.spotAlertCheck(db, jobsStore, rule)
	}
}

// spotAlertCheck is serve's interruption check: each time, the events of every job in the jobs
// store at url and the Spot Instance Advisor data in db, evaluated by rule at now
// (spotrisk.CheckInterruptions) and worded as report spot --targets words them. A store with no
// spot runs yet fires nothing.
func (e *env) spotAlertCheck(db storeDB, url string, rule spotrisk.InterruptionRule) server.SpotCheck {
	return func(ctx context.Context, now time.Time) ([]notify.Message, error) {
		jobs, _, err := spotJobEvents(ctx, e, url)
		if gpucost.ErrorCode(err) == gpucost.ENotFound {
			return nil, nil
		}
		if err != nil {
			return nil, err
		}
		adv, err := catalog.StoredSpotAdvisor(ctx, db)
		if err != nil {
			return nil, err
		}
		return alert.Messages(spotrisk.CheckInterruptions(jobs, now, rule, adv)), nil
	}
}
