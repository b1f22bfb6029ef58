package server

import (
	"context"
	"log/slog"
	"maps"
	"slices"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/notify"
)

// SpotCheck returns the spot interruption alerts firing at now, as messages whose Key names the
// episode, so that one episode is one message however many checks see it. cmd/gpucost builds it
// over the jobs store with spotrisk.CheckInterruptions (docs/architecture.md "Spot risk").
type SpotCheck func(ctx context.Context, now time.Time) ([]notify.Message, error)

// spotAlerts is the server's interruption check: every Options.CheckEvery it runs the
// SpotCheck and sends each alert to every target through the store's delivery log, so that an
// episode reaches each target once across checks, restarts and replicas, as the budget alerts
// do. A check that fails is logged and tried again on the next.
type spotAlerts struct {
	check   SpotCheck
	send    *notify.Dispatcher
	targets []string
	now     func() time.Time
	log     *slog.Logger
}

// newSpotAlerts returns the interruption check of a server started with o over st; nil when o
// has no SpotCheck or no targets to send to.
func newSpotAlerts(st gpucost.Store, o Options) *spotAlerts {
	if o.SpotAlerts == nil || len(o.Targets) == 0 {
		return nil
	}
	return &spotAlerts{check: o.SpotAlerts, targets: slices.Sorted(maps.Keys(o.Targets)), now: o.Now, log: o.Log,
		send: &notify.Dispatcher{Targets: o.Targets, Log: st, MaxAttempts: alertAttempts,
			Backoff: notify.Backoff{Base: alertBackoff}, Logger: o.Log, Now: o.Now}}
}

// once checks the spot pools and sends what fires.
func (a *spotAlerts) once(ctx context.Context) {
	msgs, err := a.check(ctx, a.now())
	if err != nil {
		if ctx.Err() == nil {
			a.log.Error("check spot interruptions; trying again on the next check", "err", err)
		}
		return
	}
	for _, m := range msgs {
		if err := a.send.Notify(ctx, m, a.targets...); err != nil && ctx.Err() == nil {
			a.log.Error("send a spot interruption alert; trying again on the next check", "key", m.Key, "err", err)
		}
	}
}
