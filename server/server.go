// Package server assembles gpucost serve: the API's views over a store, computed through query
// and fleet, the bill upload, budgets, alerts, sessions, the write-ahead log and the enforcer.
//
// cmd/gpucost turns the serve command's flags into Options, opens the store and the listener
// and calls Run; tests and the demo call Run the same way, on a listener on port 0.
package server

import (
	"cmp"
	"context"
	"log/slog"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/agent"
	"github.com/gpucost/gpucost/analyze"
	"github.com/gpucost/gpucost/billing/cloudsource"
	"github.com/gpucost/gpucost/httpapi"
	"github.com/gpucost/gpucost/notify"
	"github.com/gpucost/gpucost/query"
	"github.com/gpucost/gpucost/telemetry"
	"github.com/gpucost/gpucost/web"
)

// DefaultViewsEvery is how long a computed view is served before it is computed again.
const DefaultViewsEvery = time.Minute

// Options are a server's settings, typed: the serve command reads them from its flags.
type Options struct {
	Flush       time.Duration // between writes of pushed samples to the store (at least 100 ms)
	KeepMinutes time.Duration // how long minute rollups are kept; 0 keeps them
	ViewsEvery  time.Duration // how long a computed view is served, per distinct query; 0: none is kept
	MaxBill     int64         // the largest bill POST /api/v1/bills takes, in bytes
	WALDir      string        // the write-ahead log of pushed samples; "" for none
	StoreDir    string        // the SQLite file's folder, whose free space a bill upload checks; "" for PostgreSQL

	BudgetsFile string // budgets YAML; wins over budgets stored through the API
	// Targets are where alerts go; with them, the budgets (and the GPU alert rules) are checked
	// every CheckEvery.
	Targets     map[string]notify.Target
	TargetsFile string // where Targets were read, for messages
	CheckEvery  time.Duration
	Enforce     *Enforce  // the policies run after each budget check; nil: none
	Security    *Security // rate limits, the login throttle, TLS, trusted proxies; nil: httpapi's defaults

	JobsStore string // the object store of spot job events (/api/v1/jobs); "" for none
	// OpenObjectStore opens JobsStore when the jobs view is computed.
	OpenObjectStore func(ctx context.Context, url string) (gpucost.ObjectStore, error)
	NATSURL         string // the work queues' NATS server (/api/v1/queues); "" for none

	AlertRules []analyze.Rule // the GPU alert rules of the alerts view; nil: analyze.DefaultRules()
	// SpotAlerts, with Targets, is run every CheckEvery and what it returns is sent to every
	// target once per Key (spot_alerts.go); nil: none.
	SpotAlerts SpotCheck
	// GPUAlerts, with Targets, sends the AlertRules' episodes every CheckEvery (gpu_alerts.go).
	GPUAlerts GPUAlerts

	// BillSources are pulled every PullEvery (DefaultPullEvery when zero) into the store, each
	// opened by OpenBillSource on its first pull; their state is in GET /api/v1/bill-sources,
	// /metrics and the activity page, and a failing one alerts Targets once (pull.go).
	BillSources    []cloudsource.Spec
	OpenBillSource func(ctx context.Context, url string) (*cloudsource.Source, error)
	PullEvery      time.Duration
	PullDir        string // where pulled bills are downloaded; the system's temporary folder if empty

	Now func() time.Time // the clock; time.Now when nil
	Log *slog.Logger     // where the server logs; slog.Default when nil
}

func (o *Options) defaults() {
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Log == nil {
		o.Log = slog.Default()
	}
}

// Run serves the API and the dashboard on ln over st until ctx is done, then writes every
// sample held. It closes ln.
func Run(ctx context.Context, st gpucost.Store, ln net.Listener, o Options) error {
	o.defaults()
	log := o.Log
	idle, err := query.IdleBelow(ctx, st)
	if err != nil {
		ln.Close()
		return err
	}
	w := &telemetry.Writer{Store: st, IdleBelow: idle, Now: o.Now,
		DropStored: true} // agents resend batches whose answer they lost; the log replays
	walLog, err := openWAL(ctx, o.WALDir, w, log)
	if err != nil {
		ln.Close()
		return err
	}
	sink := &agent.PruningSink{Writer: w, Store: st, Retention: telemetry.Retention{Minutes: o.KeepMinutes}, Now: o.Now, Log: log}
	queue := &httpapi.Queue{Next: w, WAL: walLog, Log: log}
	defer closeWAL(walLog, queue, log)
	var flushErrors atomic.Int64
	pulls := newBillPulls(st, o)
	srv, err := assemble(ctx, st, o, queue, &flushErrors, pulls)
	if err != nil {
		ln.Close()
		return err
	}
	enforcer, err := newEnforcer(ctx, st, o)
	if err != nil {
		ln.Close()
		return err
	}

	// Requests queue samples; one goroutine adds them to the writer, another flushes it. On
	// shutdown: the server first finishes its requests, then the queue empties, then the
	// writer writes everything.
	background, stopBackground := context.WithCancel(context.WithoutCancel(ctx))
	var wg sync.WaitGroup
	wg.Go(func() { queue.Run(background) })
	wg.Go(func() { flushEvery(background, sink, max(o.Flush, 100*time.Millisecond), log, &flushErrors) })
	if o.Targets != nil || enforcer != nil {
		alerts := &budgetAlerts{store: st, file: o.BudgetsFile, targets: o.Targets, now: o.Now, log: log, after: enforcer.run}
		wg.Go(func() { repeat(background, max(o.CheckEvery, time.Second), alerts.once) })
	}
	if pulls != nil {
		wg.Go(func() { repeat(background, cmp.Or(o.PullEvery, DefaultPullEvery), pulls.pullAll) })
	}
	if spot := newSpotAlerts(st, o); spot != nil {
		wg.Go(func() { repeat(background, max(o.CheckEvery, time.Second), spot.once) })
	}
	if gpu := newGPUAlerts(st, o); gpu != nil {
		wg.Go(func() { repeat(background, max(o.CheckEvery, time.Second), gpu.once) })
	}

	log.Info("serving", "addr", ln.Addr().String(), "db", st.Name())
	serveErr := srv.Serve(ctx, ln)
	stopBackground()
	wg.Wait()

	final, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	closeErr := w.Close(final)
	ws := w.Stats()
	log.Info("server stopped", "rollups_written", ws.Written, "rollups_merged", ws.Merged, "samples_skipped", w.Skipped())
	if serveErr != nil {
		return serveErr
	}
	return closeErr
}

// assemble builds the API server over st and queue: the views, the bill upload, the budgets,
// the activity and audit logs, /metrics, and the dashboard, which shares its views and throttle.
func assemble(ctx context.Context, st gpucost.Store, o Options, queue *httpapi.Queue, flushErrors *atomic.Int64, pulls *billPulls) (*httpapi.Server, error) {
	views := NewViews(st, o)
	srv := &httpapi.Server{Tokens: st, Ingest: queue, Ready: st.Ping, Log: o.Log, Now: o.Now,
		QueueDepth: queue.Held, FlushErrors: flushErrors.Load, Activity: activityLog(st), Audit: st,
		Fleet: func(ctx context.Context, now time.Time) (httpapi.FleetMetrics, error) {
			return FleetMetrics(ctx, st, now)
		},
		Views: views, MaxBill: o.MaxBill, Imports: st,
		Bills:   &Bills{Store: st, Now: o.Now, Dir: o.StoreDir, views: views},
		Budgets: &budgetStore{store: st, file: o.BudgetsFile, views: views},
		Applied: &AppliedSteps{Store: st, Now: o.Now}}
	if pulls != nil {
		pulls.views, srv.BillSources = views, pulls
	}
	key, err := web.SessionKey(ctx, st)
	if err != nil {
		return nil, err
	}
	dash := &web.Dashboard{Views: srv.Views, Activity: srv.Activity, Audit: st, Tokens: st, Key: key, Now: o.Now, Log: o.Log,
		BillSources: srv.BillSources,
		Applied:     srv.Applied}
	o.Security.apply(srv, dash, st)
	srv.UI = dash.Handler()
	return srv, nil
}

// flushEvery writes the held samples on each tick until ctx is done. A failing store is
// counted in failed (for /metrics) and logged; the writer keeps the samples and tries again on
// the next tick.
func flushEvery(ctx context.Context, sink *agent.PruningSink, every time.Duration, log *slog.Logger, failed *atomic.Int64) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if err := sink.Flush(ctx); err != nil && ctx.Err() == nil {
				failed.Add(1)
				log.Error("write pushed samples to the store; retrying on the next flush", "err", err)
			}
		}
	}
}
