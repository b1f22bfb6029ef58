package main

import (
	"context"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/billing/cloudsource"
	"github.com/gpucost/gpucost/server"
	"github.com/spf13/cobra"
)

// servePullOptions are serve's --pull-bills and --pull-every: bills pulled from where they land.
type servePullOptions struct {
	file  string
	every time.Duration
	specs []cloudsource.Spec // read from file
}

func (o *servePullOptions) add(cmd *cobra.Command) {
	cmd.Flags().StringVar(&o.file, "pull-bills", "", "bill sources YAML file (docs/bill-sources.md): import their new or restated bills every --pull-every; a failing one alerts the --targets once")
	cmd.Flags().DurationVar(&o.every, "pull-every", server.DefaultPullEvery, "time between pulls of the --pull-bills sources")
}

// load reads the sources file, so that a bad one stops serve at start.
func (o *servePullOptions) load() (err error) {
	if o.file == "" {
		return nil
	}
	if o.every < time.Minute {
		return gpucost.Errorf(gpucost.EInvalid, "--pull-every %v: pull at most once a minute; bills land a few times a day", o.every)
	}
	o.specs, err = cloudsource.ReadFile(o.file)
	return err
}

// apply sets the server's bill sources, opened with the credentials of serve's environment.
func (o *servePullOptions) apply(e *env, so *server.Options) {
	so.BillSources, so.PullEvery = o.specs, o.every
	so.OpenBillSource = func(ctx context.Context, url string) (*cloudsource.Source, error) {
		return cloudsource.Open(ctx, url, e.getenv)
	}
}
