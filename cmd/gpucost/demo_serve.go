package main

import (
	"context"
	"fmt"
	"net"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/demo"
	"github.com/gpucost/gpucost/httpapi"
)

// demoBudgetsYAML are the budgets the demo's dashboard shows.
const demoBudgetsYAML = demo.Budgets

// defaultServeFlush is how often gpucost serve writes pushed samples to the store.
const defaultServeFlush = 5 * time.Second

// serveDemo serves the dashboard and API over the demo store on listen until ctx is done
// (Ctrl-C), with a new admin token to sign in with.
func (e *env) serveDemo(ctx context.Context, listen string) error {
	return e.withStore(ctx, func(db storeDB) error {
		secret, err := demo.NewToken(ctx, db, e.now())
		if err != nil {
			return err
		}
		ln, err := net.Listen("tcp", listen)
		if err != nil {
			return gpucost.Errorf(gpucost.EUnavailable, "serve the dashboard on --listen %s: %w; choose another address with --listen 127.0.0.1:8081, or give --no-serve", listen, err)
		}
		budgets := e.demoFiles().Budgets
		if err := demo.WriteBudgets(budgets); err != nil {
			return err
		}
		fmt.Fprintf(e.stdout, "\nDashboard: http://%s/ — sign in with the token %s\n(Budgets from %s. Ctrl-C stops the server; gpucost demo --no-serve only prints the headline.)\n",
			ln.Addr(), secret, budgets)
		// The demo's minute rollups are all kept: they are its month of history.
		o := serveOptions{listen: listen, flush: defaultServeFlush, keepMinutes: 92 * 24 * time.Hour,
			viewsEvery: defaultViewsEvery, maxBill: httpapi.DefaultMaxBill, budgets: budgets}
		return e.serve(ctx, db, ln, o)
	})
}
