package server

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/billing/billimport"
	"github.com/gpucost/gpucost/billing/cloudsource"
	"github.com/gpucost/gpucost/httpapi"
	"github.com/gpucost/gpucost/notify"
)

// DefaultPullEvery is how often serve --pull-bills pulls each source.
const DefaultPullEvery = 6 * time.Hour

// pullTimeout bounds one pull of one source: downloading and importing a month of a large
// account's bill.
const pullTimeout = time.Hour

// billPulls is serve --pull-bills: every PullEvery it pulls each source's new or restated
// deliveries into the store (cloudsource.Puller, which remembers what it pulled), records its
// state for GET /api/v1/bill-sources, /metrics and the activity page, audits each replacement,
// and sends a failing source's alert to the targets once, until a pull of it succeeds again.
type billPulls struct {
	specs   []cloudsource.Spec
	open    func(ctx context.Context, url string) (*cloudsource.Source, error)
	puller  *cloudsource.Puller
	store   gpucost.Store
	alerts  *notify.Dispatcher // nil without targets
	targets []string
	now     func() time.Time
	log     *slog.Logger
	views   *Views // forgotten after an import; nil for none

	mu      sync.Mutex
	sources []*cloudsource.Source // opened on the first pull that reaches each
	status  []httpapi.BillSourceStatus
}

var _ httpapi.BillSources = (*billPulls)(nil)

// newBillPulls returns the pulls o asks for, or nil.
func newBillPulls(st gpucost.Store, o Options) *billPulls {
	if len(o.BillSources) == 0 {
		return nil
	}
	p := &billPulls{specs: o.BillSources, open: o.OpenBillSource, store: st, now: o.Now, log: o.Log,
		puller:  &cloudsource.Puller{Importer: &billimport.Importer{Store: st, Now: o.Now}, Dir: o.PullDir, MaxFile: o.MaxBill},
		sources: make([]*cloudsource.Source, len(o.BillSources)),
		status:  make([]httpapi.BillSourceStatus, len(o.BillSources))}
	for i, s := range o.BillSources {
		p.status[i] = httpapi.BillSourceStatus{Name: s.Name, URL: s.URL}
	}
	if len(o.Targets) > 0 {
		p.alerts = &notify.Dispatcher{Targets: o.Targets, Log: st, MaxAttempts: alertAttempts,
			Backoff: notify.Backoff{Base: alertBackoff}, Logger: o.Log, Now: o.Now}
		for name := range o.Targets {
			p.targets = append(p.targets, name)
		}
		slices.Sort(p.targets)
	}
	return p
}

// pullAll pulls each source in turn, one at a time: they share the download folder's disk.
func (p *billPulls) pullAll(ctx context.Context) {
	for i := range p.specs {
		if ctx.Err() != nil {
			return
		}
		p.pull(ctx, i)
	}
}

// pull pulls source i once and records what it did.
func (p *billPulls) pull(ctx context.Context, i int) {
	ctx, cancel := context.WithTimeout(ctx, pullTimeout)
	defer cancel()
	spec := p.specs[i]
	rep, err := p.pullSource(ctx, i)
	if n := rep.Imported + rep.Replaced; n > 0 && p.views != nil {
		p.views.Forget()
	}
	for _, a := range billimport.Replacements(rep.Results) {
		a.At, a.Actor, a.Source = p.now().UTC(), "gpucost serve --pull-bills", "server"
		a.Detail += " (pulled from " + spec.URL + ")"
		if _, aerr := p.store.RecordAudit(context.WithoutCancel(ctx), a); aerr != nil {
			p.log.Error("record a pulled restatement in the audit log", "source", spec.Name, "err", aerr)
		}
	}
	at := p.now().UTC()
	p.mu.Lock()
	s := &p.status[i]
	s.LastPull, s.OK, s.Error = at, err == nil, ""
	s.Deliveries, s.Imported, s.Replaced, s.Unchanged, s.Refused = rep.Deliveries, rep.Imported, rep.Replaced, rep.Unchanged, rep.Refused
	if err == nil {
		s.LastSuccess, s.FailingFrom, s.Alerted = at, time.Time{}, false
	} else {
		s.Error = err.Error()
		s.Errors++
		if s.FailingFrom.IsZero() {
			s.FailingFrom = at
		}
	}
	alert := err != nil && !s.Alerted && p.alerts != nil
	failing := *s
	p.mu.Unlock()
	if err != nil {
		p.log.Error("pull bills; retrying on the next pull", "source", spec.Name, "url", spec.URL, "err", err)
	} else {
		p.log.Info("pulled bills", "source", spec.Name, "deliveries", rep.Deliveries, "imported", rep.Imported,
			"replaced", rep.Replaced, "unchanged", rep.Unchanged)
	}
	if alert && p.sendAlert(ctx, failing) {
		p.mu.Lock()
		if p.status[i].FailingFrom.Equal(failing.FailingFrom) {
			p.status[i].Alerted = true
		}
		p.mu.Unlock()
	}
}

// pullSource opens source i, the first time, and pulls it.
func (p *billPulls) pullSource(ctx context.Context, i int) (cloudsource.Report, error) {
	p.mu.Lock()
	src := p.sources[i]
	p.mu.Unlock()
	if src == nil {
		var err error
		if src, err = p.open(ctx, p.specs[i].URL); err != nil {
			return cloudsource.Report{Source: p.specs[i].Name}, err
		}
		src.Name = p.specs[i].Name
		p.mu.Lock()
		p.sources[i] = src
		p.mu.Unlock()
	}
	return p.puller.Pull(ctx, src)
}

// sendAlert sends the alert of the failing source s to every target and reports whether all
// took it. Its key names the source and when it began failing, so that the delivery log
// sends it once per target however often the pull fails.
func (p *billPulls) sendAlert(ctx context.Context, s httpapi.BillSourceStatus) bool {
	m := notify.Message{Kind: "bill-source.failing", Severity: notify.SeverityWarning, At: s.LastPull,
		Key:     "bill-source:" + s.Name + ":" + s.FailingFrom.Format(time.RFC3339),
		Subject: fmt.Sprintf("Bill source %s is failing", s.Name),
		Text: fmt.Sprintf("gpucost serve could not pull the bills of %s (%s) since %s: %s\nIt tries again on every pull; this alert is not sent again until a pull succeeds.",
			s.Name, s.URL, s.FailingFrom.Format(time.RFC3339), s.Error),
		Fields: []notify.Field{{Name: "Source", Value: s.Name}, {Name: "URL", Value: s.URL},
			{Name: "Last success", Value: lastSuccess(s.LastSuccess)}}}
	if err := p.alerts.Notify(ctx, m, p.targets...); err != nil {
		p.log.Error("send a failing bill source's alert; trying again on the next pull", "source", s.Name, "err", err)
		return false
	}
	return true
}

func lastSuccess(t time.Time) string {
	if t.IsZero() {
		return "never since the server started"
	}
	return t.Format(time.RFC3339)
}

// BillSourceStatus returns each source's state.
func (p *billPulls) BillSourceStatus() []httpapi.BillSourceStatus {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.status)
}
