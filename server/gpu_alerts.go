package server

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/analyze"
	"github.com/gpucost/gpucost/catalog"
	"github.com/gpucost/gpucost/fleet"
	"github.com/gpucost/gpucost/notify"
	"github.com/gpucost/gpucost/query"
)

// GPUAlerts are the settings of the server's GPU alert notifications: with Options.Targets,
// every CheckEvery the GPU alert rules (Options.AlertRules) are evaluated over the recent minute
// rollups and each episode's start is sent once per target (docs/architecture.md "GPU alerts
// in serve"). The zero value sends every rule's firing episodes, and no data for rules with
// AlertOnNoData.
type GPUAlerts struct {
	Quiet    map[string]bool // rule names evaluated and shown but never sent (the rules file's notify: false)
	Resolved bool            // also send one message when a sent episode resolves
	MaxGPUs  int             // GPUs a message names before "and N more"; DefaultAlertGPUs when 0
	Off      bool            // send no GPU alerts at all

	// Checked, when set, is called after each check with its time; tests count checks with it.
	Checked func(now time.Time)
}

// DefaultAlertGPUs is how many GPUs a GPU alert message names: 80 GPUs going idle at once is
// one message naming 10 and "70 more".
const DefaultAlertGPUs = 10

// minGPUAlertWindow is the shortest stretch of minute rollups each check evaluates; a rule
// whose For is longer widens it to twice its NoDataAfter, so that an episode's start and its
// silence are seen whole.
const minGPUAlertWindow = 6 * time.Hour

// GPU alert message kinds, one per episode event sent.
const (
	kindGPUFiring   = "gpu.alert.firing"
	kindGPUNoData   = "gpu.alert.no_data"
	kindGPUResolved = "gpu.alert.resolved"
)

// gpuAlerts is the server's GPU alert check. An episode is a rule on one series from its first
// firing minute; it keeps its key while the condition holds, however far the window slides,
// and through a flap: a condition back within the rule's For of its end continues the episode.
// Its events go out grouped: per check, target and rule, one message names the episodes the
// target has not been sent, and each episode's key is then logged as delivered, so that every
// episode reaches each target once across checks, restarts and replicas.
type gpuAlerts struct {
	store   gpucost.Store
	rules   []analyze.Rule
	cfg     GPUAlerts
	window  time.Duration
	targets map[string]notify.Target
	names   []string // of targets, sorted
	log     *slog.Logger
	now     func() time.Time

	mu    sync.Mutex
	carry map[string][]span // rule and series → the previous check's episodes, oldest first
	last  time.Time         // the previous check's time; zero before the first
}

// span is one episode's key and reach, kept from one check to the next.
type span struct {
	key        string
	start, end time.Time
}

// newGPUAlerts returns the GPU alert check of a server started with o over st; nil when o has
// no targets, turns GPU alerts off, or every rule is quiet.
func newGPUAlerts(st gpucost.Store, o Options) *gpuAlerts {
	if len(o.Targets) == 0 || o.GPUAlerts.Off {
		return nil
	}
	rules := o.AlertRules
	if rules == nil {
		rules = analyze.DefaultRules()
	}
	window := minGPUAlertWindow
	loud := false
	for _, r := range rules {
		window = max(window, 2*r.NoDataAfter())
		loud = loud || !o.GPUAlerts.Quiet[r.Name]
	}
	if !loud {
		return nil
	}
	return &gpuAlerts{store: st, rules: rules, cfg: o.GPUAlerts, window: window, targets: o.Targets,
		names: slices.Sorted(maps.Keys(o.Targets)), log: o.Log, now: o.Now, carry: map[string][]span{}}
}

// once evaluates the rules over the window before now and sends what started; a check that
// fails is logged and tried again on the next.
func (a *gpuAlerts) once(ctx context.Context) {
	now := a.now().UTC()
	if err := a.check(ctx, now); err != nil && ctx.Err() == nil {
		a.log.Error("check the GPU alert rules; trying again on the next check", "err", err)
	}
	if a.cfg.Checked != nil {
		a.cfg.Checked(now)
	}
}

// check evaluates the rules at now and sends each target the episode events it lacks.
func (a *gpuAlerts) check(ctx context.Context, now time.Time) error {
	r := &query.Report{Store: a.store, Period: fleet.Period{Start: now.Add(-a.window), End: now}, AlertRules: a.rules}
	rep, err := r.Alerts(ctx, nil)
	if err != nil {
		return err
	}
	eps, err := a.episodes(ctx, rep, now)
	if err != nil {
		return err
	}
	since := a.last
	a.last = now
	var errs []error
	for _, target := range a.names {
		msgs, err := a.messages(ctx, eps, target, since, now)
		if err != nil {
			return err
		}
		for _, m := range msgs {
			if err := a.deliver(ctx, m, target); err != nil {
				errs = append(errs, err)
			}
		}
	}
	return errors.Join(errs...)
}

// episode is the latest alert of one episode, with the episode's key and what to send of it.
type episode struct {
	analyze.Alert
	key string
}

// event is what an episode's state sends at now, the previous check at since: its message kind
// and key, or "" for nothing. One that fired after since and has resolved is sent as firing,
// so an episode shorter than a check's interval is not missed (the first check after a start
// sends only what fires at it). An episode that stops reporting
// goes no data, never resolved, and is sent as such only under a rule with AlertOnNoData (also
// a silence the window holds that a check did not see, once); a resolved one is sent only once
// its rule's For has passed without the condition back.
func (ep episode) event(cfg GPUAlerts, since, now time.Time) (kind, key string) {
	switch {
	case ep.State == analyze.Firing, !since.IsZero() && ep.FiredAt.After(since) && ep.State == analyze.Resolved:
		return kindGPUFiring, ep.key
	case ep.State == analyze.AlertNoData && ep.Rule.AlertOnNoData:
		return kindGPUNoData, ep.key + ":no-data"
	case ep.State == analyze.Resolved && cfg.Resolved && !now.Before(ep.End.Add(ep.Rule.For)):
		return kindGPUResolved, ep.key + ":resolved"
	}
	return "", ""
}

// episodes joins the report's alerts into episodes, keyed, and keeps their spans for the next
// check.
func (a *gpuAlerts) episodes(ctx context.Context, rep analyze.AlertReport, now time.Time) ([]episode, error) {
	byRS := map[string][]analyze.Alert{}
	for _, al := range rep.Alerts {
		rs := ruleSeries(al.Rule.Name, al.Series)
		byRS[rs] = append(byRS[rs], al)
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	carry := map[string][]span{}
	var eps []episode
	windowStart := now.Add(-a.window).Truncate(time.Minute)
	for _, rs := range slices.Sorted(maps.Keys(byRS)) {
		alerts := byRS[rs]
		slices.SortFunc(alerts, func(x, y analyze.Alert) int { return x.Start.Compare(y.Start) })
		var spans []span
		for _, al := range alerts {
			s, err := a.place(ctx, rs, al, spans, windowStart)
			if err != nil {
				return nil, err
			}
			if n := len(spans); n > 0 && spans[n-1].key == s.key {
				spans[n-1].end = al.End
				eps[len(eps)-1].Alert = al
				continue
			}
			spans = append(spans, s)
			eps = append(eps, episode{Alert: al, key: s.key})
		}
		carry[rs] = spans
	}
	a.carry = carry
	return eps, nil
}

// place returns the span alert al belongs to: the previous one in this check, or the
// previous check's, whose condition it continues or comes back to within the rule's For; a
// delivered episode it continues from before the window; else a new one keyed by its first
// firing minute.
func (a *gpuAlerts) place(ctx context.Context, rs string, al analyze.Alert, spans []span, windowStart time.Time) (span, error) {
	continues := func(s span) bool { return !s.start.After(al.Start) && al.Start.Before(s.end.Add(al.Rule.For)) }
	if n := len(spans); n > 0 && continues(spans[n-1]) {
		return spans[n-1], nil
	}
	if len(spans) == 0 {
		prev := a.carry[rs]
		for i := len(prev) - 1; i >= 0; i-- {
			if continues(prev[i]) {
				return span{key: prev[i].key, start: prev[i].start, end: al.End}, nil
			}
		}
		if !al.Start.After(windowStart) {
			key, err := a.deliveredWhile(ctx, rs, windowStart, al)
			if err != nil || key != "" {
				return span{key: key, start: al.Start, end: al.End}, err
			}
		}
	}
	return span{key: rs + ":" + al.FiredAt.UTC().Format("20060102T1504Z"), start: al.Start, end: al.End}, nil
}

// deliveredWhile returns the key of the episode of rs last delivered to any target that
// alert al, which has held since the window's start from, continues; "" when there is none.
// A firing sent at or after from, and before al's end plus its NoDataAfter (a later episode
// must hold its For after al ends before it fires), is al's: its condition held when it was
// sent and has held since. One sent before from is al's if the series' minutes since then,
// evaluated again, show the condition holding from before it was sent until al's end.
func (a *gpuAlerts) deliveredWhile(ctx context.Context, rs string, from time.Time, al analyze.Alert) (string, error) {
	ds, err := a.store.Deliveries(ctx, gpucost.DeliveryFilter{KeyPrefix: rs + ":"})
	if err != nil {
		return "", fmt.Errorf("read the GPU alerts delivered for %s: %w", rs, err)
	}
	until := al.End.Add(al.Rule.NoDataAfter())
	for i := len(ds) - 1; i >= 0; i-- {
		d := ds[i]
		switch {
		case !d.OK || d.Kind != kindGPUFiring || !d.At.Before(until):
			continue
		case !d.At.Before(from):
			return d.Key, nil
		}
		held, err := a.heldSince(ctx, al, d.At)
		if err != nil || !held {
			return "", err
		}
		return d.Key, nil
	}
	return "", nil
}

// heldSince evaluates al's rule again on al's series from its For before sent to al's end, and
// reports whether one episode, flaps joined as the check joins them, held from before sent to
// there.
func (a *gpuAlerts) heldSince(ctx context.Context, al analyze.Alert, sent time.Time) (bool, error) {
	from := sent.Add(-al.Rule.For - time.Minute).Truncate(time.Minute)
	ev, err := analyze.EvaluateAlerts([]analyze.Rule{al.Rule}, al.End.Add(time.Minute), tdp)
	if err != nil {
		return false, err
	}
	g, key := al.Series.GPU, al.Series.Key()
	f := gpucost.RollupFilter{From: from, To: al.End, Hosts: []string{g.Host}, GPUs: []string{g.UUID}}
	err = a.store.ScanRollups(ctx, time.Minute, f, func(r *gpucost.Rollup) error {
		if r.Series.Key() == key {
			ev.Add(r)
		}
		return nil
	})
	if err != nil {
		return false, fmt.Errorf("read %s/%s's minutes since %s: %w", g.Host, g.UUID, from.Format(time.RFC3339), err)
	}
	alerts := ev.Result().Alerts
	slices.SortFunc(alerts, func(x, y analyze.Alert) int { return x.Start.Compare(y.Start) })
	var end time.Time // of the episode held since before sent, flaps joined; zero before it
	for _, x := range alerts {
		switch {
		case end.IsZero() && x.Start.Before(sent):
			end = x.End
		case !end.IsZero() && x.Start.Before(end.Add(al.Rule.For)):
			end = x.End
		case !end.IsZero():
			return false, nil // a break longer than a flap: a new episode since
		}
	}
	return !end.IsZero() && !end.Before(al.End), nil
}

// tdp returns a model's board power from the catalog's datasheets, as the alerts view reads it.
func tdp(model string) (float64, bool) {
	spec, ok := catalog.Spec(query.NormalizeModel(model))
	return spec.TDPW, ok && spec.TDPW > 0
}

// ruleSeries names a rule on a series in keys: "gpu-alert:gpu_underutilized:node-a/GPU-1", with
// a hash of the series' labels where it has any.
func ruleSeries(rule string, s gpucost.Series) string {
	k := "gpu-alert:" + rule + ":" + s.GPU.Host + "/" + s.GPU.UUID
	if l := s.Labels.String(); l != "" {
		sum := sha256.Sum256([]byte(l))
		k += "/" + hex.EncodeToString(sum[:4])
	}
	return k
}

// item is one episode event in a message.
type item struct {
	episode
	key string
}

// messages returns the grouped messages target lacks: per rule and kind, the episode events
// whose key the delivery log has not seen delivered to it. A resolved episode is sent only
// where its firing was.
func (a *gpuAlerts) messages(ctx context.Context, eps []episode, target string, since, now time.Time) ([]gpuMessage, error) {
	groups := map[[2]string][]item{}
	for _, ep := range eps {
		kind, key := ep.event(a.cfg, since, now)
		if kind == "" || a.cfg.Quiet[ep.Rule.Name] {
			continue
		}
		done, err := a.store.Delivered(ctx, key, target)
		if err == nil && !done && kind == kindGPUResolved {
			var fired bool
			fired, err = a.store.Delivered(ctx, ep.key, target)
			done = !fired
		}
		if err != nil {
			return nil, fmt.Errorf("check the delivery log for %s to %s: %w", key, target, err)
		}
		if !done {
			g := [2]string{ep.Rule.Name, kind}
			groups[g] = append(groups[g], item{ep, key})
		}
	}
	var out []gpuMessage
	for _, g := range slices.SortedFunc(maps.Keys(groups), func(x, y [2]string) int {
		return cmp.Or(cmp.Compare(x[0], y[0]), cmp.Compare(x[1], y[1]))
	}) {
		out = append(out, a.message(g[1], groups[g], now))
	}
	return out, nil
}

// gpuMessage is one grouped message and the episode keys it carries.
type gpuMessage struct {
	notify.Message
	keys []string
}

// message words the events of one rule and kind: "gpu_underutilized firing on 80 GPUs", naming
// the first MaxGPUs by how far past the threshold they went and counting the rest. Its key hashes
// the events', so replicas building the same message send it once.
func (a *gpuAlerts) message(kind string, items []item, now time.Time) gpuMessage {
	rule := items[0].Rule
	slices.SortFunc(items, func(x, y item) int {
		if x.Worst != y.Worst {
			if rule.Above == (x.Worst > y.Worst) {
				return -1
			}
			return 1
		}
		return cmp.Compare(gpuName(x.Series), gpuName(y.Series))
	})
	m := gpuMessage{Message: notify.Message{Kind: kind, Severity: notify.Severity(rule.Severity), At: now}}
	h := sha256.New()
	for _, it := range slices.SortedFunc(slices.Values(items), func(x, y item) int { return cmp.Compare(x.key, y.key) }) {
		m.keys = append(m.keys, it.key)
		h.Write([]byte(it.key + "\n"))
	}
	m.Key = fmt.Sprintf("gpu-alerts:%s:%s:%x", rule.Name, kind, h.Sum(nil)[:8])
	gpus := "1 GPU"
	if len(items) > 1 {
		gpus = fmt.Sprintf("%d GPUs", len(items))
	}
	var state string
	switch kind {
	case kindGPUFiring:
		state = "firing on " + gpus
	case kindGPUNoData:
		state = "no data from " + gpus
	default:
		state, m.Severity = "resolved on "+gpus, notify.SeverityInfo
	}
	m.Subject = fmt.Sprintf("GPU alert %s %s", rule.Name, state)
	maxGPUs := cmp.Or(a.cfg.MaxGPUs, DefaultAlertGPUs)
	var lines, names []string
	for i, it := range items {
		if i == maxGPUs {
			lines = append(lines, fmt.Sprintf("- and %d more", len(items)-maxGPUs))
			break
		}
		names = append(names, gpuName(it.Series))
		line := "- " + gpuName(it.Series) + ": " + it.Evidence
		if from := now.Add(-a.window).Truncate(time.Minute); !it.Start.After(from) && it.State != analyze.AlertNoData {
			line += fmt.Sprintf(" (it held before %s too: a check reads the last %s)", from.Format("2006-01-02 15:04 UTC"), a.window)
		}
		lines = append(lines, line)
	}
	m.Text = fmt.Sprintf("%s (%s, %s): %s %s.\n%s", rule.Summary, rule.Expr(), rule.Severity, rule.Name, state, strings.Join(lines, "\n"))
	more := ""
	if len(items) > len(names) {
		more = fmt.Sprintf(" and %d more", len(items)-len(names))
	}
	m.Fields = []notify.Field{{Name: "Rule", Value: rule.Name}, {Name: "Condition", Value: rule.Expr()},
		{Name: "State", Value: state}, {Name: "GPUs", Value: strings.Join(names, ", ") + more}}
	return m
}

// gpuName names a series' GPU for people: "node-a GPU 3 (NVIDIA A100-SXM4-80GB)", a MIG
// instance with its profile, a GPU without an index by its UUID.
func gpuName(s gpucost.Series) string {
	g := s.GPU
	name := g.Host + " " + g.UUID
	if g.Index >= 0 && g.UUID != "" && g.Parent == "" {
		name = fmt.Sprintf("%s GPU %d", g.Host, g.Index)
	}
	if g.Profile != "" {
		name += " " + g.Profile
	}
	if pod := s.Labels[gpucost.LabelPod]; pod != "" {
		name += " pod " + pod
	}
	if g.Model != "" {
		name += " (" + g.Model + ")"
	}
	return name
}

// deliver sends m to target through the delivery log; once sent, each episode event it
// carries is logged as delivered to target under its own key, as the attempt that sent it.
func (a *gpuAlerts) deliver(ctx context.Context, m gpuMessage, target string) error {
	log := &lastLog{DeliveryLog: a.store}
	d := &notify.Dispatcher{Targets: a.targets, Log: log, MaxAttempts: alertAttempts,
		Backoff: notify.Backoff{Base: alertBackoff}, Logger: a.log, Now: a.now}
	if err := d.Notify(ctx, m.Message, target); err != nil {
		return fmt.Errorf("send GPU alert %s: %w", m.Key, err)
	}
	sent, ok := log.last()
	if !ok || !sent.OK {
		return nil // already delivered, by another replica
	}
	for _, k := range m.keys {
		rec := sent
		rec.Key = k
		if err := a.store.RecordDelivery(ctx, rec); err != nil {
			return fmt.Errorf("log GPU alert %s as delivered to %s: %w", k, target, err)
		}
	}
	return nil
}

// lastLog records attempts in a delivery log and keeps the last one.
type lastLog struct {
	notify.DeliveryLog
	mu   sync.Mutex
	rec  gpucost.Delivery
	seen bool
}

// RecordDelivery stores d in the log and remembers it.
func (l *lastLog) RecordDelivery(ctx context.Context, d gpucost.Delivery) error {
	l.mu.Lock()
	l.rec, l.seen = d, true
	l.mu.Unlock()
	return l.DeliveryLog.RecordDelivery(ctx, d)
}

func (l *lastLog) last() (gpucost.Delivery, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.rec, l.seen
}
