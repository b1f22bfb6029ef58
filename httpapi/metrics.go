package httpapi

import (
	"context"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/gpucost/gpucost/internal/promtext"
)

// DefaultFleetEvery is how long the gpucost_* series computed from the store are cached: a
// scrape recomputes them when they are older, so they are computed at most once a minute
// however often Prometheus scrapes, and never on the ingest path.
const DefaultFleetEvery = time.Minute

// fleetTimeout bounds one computation of the fleet series.
const fleetTimeout = 30 * time.Second

// FleetMetrics are the gpucost_* series a Prometheus user charts, computed from the store.
type FleetMetrics struct {
	// Namespaces is GPU use per Kubernetes namespace over the hour before the computation;
	// GPUs without a namespace are under "(none)".
	Namespaces []NamespaceUsage
	// Teams is the month-to-date spend per team from the stored bill, in US dollars; lines
	// without a team tag are under "(untagged)".
	Teams []TeamCost
}

// NamespaceUsage is one namespace's GPU use over the last hour.
type NamespaceUsage struct {
	Namespace    string
	GPUs         int
	GPUHours     float64
	IdleGPUHours float64
	UtilMean     float64 // percent, NaN when unknown
}

// TeamCost is one team's month-to-date spend in US dollars.
type TeamCost struct {
	Team     string
	CostUSD  float64 // cost less idle of the team (docs/architecture.md "Figures")
	IdleUSD  float64 // idle capacity of the team's GPUs, kept apart
	GPUHours float64 // used GPU-hours
}

// FleetFunc computes the fleet series as of now; gpucost serve reads them with the reports'
// code.
type FleetFunc func(ctx context.Context, now time.Time) (FleetMetrics, error)

// metrics are the server's Prometheus collectors, one registry per Server.
type metrics struct {
	reg          promtext.Registry
	requests     *promtext.CounterVec
	duration     *promtext.HistogramVec
	samples      *promtext.CounterVec
	authFailures *promtext.CounterVec
	fleet        *fleetCache
}

func (s *Server) newMetrics() *metrics {
	m := &metrics{}
	m.requests = promtext.NewCounterVec("gpucost_http_requests_total",
		"HTTP requests served, by route (method and path pattern; \"other\" for unknown paths) and status code.", "route", "code")
	m.duration = promtext.NewHistogramVec("gpucost_http_request_duration_seconds", "Time to serve an HTTP request, by route.",
		[]float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10}, "route")
	m.samples = promtext.NewCounterVec("gpucost_ingest_samples_total",
		"Samples pushed to POST /api/v1/samples, by result: accepted (queued for the store), skipped (failed validation) or refused (the queue was full; the agent retries).", "result")
	m.authFailures = promtext.NewCounterVec("gpucost_auth_failures_total",
		"Requests refused by token authentication, by reason: missing, invalid (unknown or revoked), forbidden (the role does not allow the endpoint) or throttled (the source failed too many token checks).", "reason")
	for _, r := range []string{"accepted", "skipped", "refused"} {
		m.samples.With(r)
	}
	for _, r := range []string{"missing", "invalid", "forbidden", "throttled"} {
		m.authFailures.With(r)
	}
	m.reg.Register(m.requests, m.duration, m.samples, m.authFailures, promtext.GoCollector(), promtext.ProcessCollector())
	if s.QueueDepth != nil {
		depth := s.QueueDepth
		m.reg.Register(promtext.GaugeFunc("gpucost_ingest_queue_samples",
			"Samples accepted and waiting to be handed to the rollup writer.", func() float64 { return float64(depth()) }))
	}
	if s.FlushErrors != nil {
		flushErrors := s.FlushErrors
		m.reg.Register(promtext.CounterFunc("gpucost_writer_flush_errors_total",
			"Writes of ingested samples to the store that failed; the writer keeps the samples and retries.", func() float64 { return float64(flushErrors()) }))
	}
	if s.BillSources != nil {
		m.reg.Register(billSourceMetrics(s.BillSources))
	}
	if s.Fleet != nil {
		every := s.FleetEvery
		if every <= 0 {
			every = DefaultFleetEvery
		}
		m.fleet = &fleetCache{compute: s.Fleet, every: every, srv: s}
		m.reg.Register(m.fleet)
	}
	return m
}

// instrument counts and times the requests of one route. It reads the status the request log
// recorded, so it must run inside logRequests.
func (m *metrics) instrument(route string, next http.Handler) http.Handler {
	duration := m.duration.With(route)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		rl, _ := r.Context().Value(requestLogKey{}).(*requestLog)
		panicked := true
		defer func() {
			duration.Observe(time.Since(start).Seconds())
			status := http.StatusOK
			if panicked {
				status = http.StatusInternalServerError
			} else if rl != nil && rl.status != 0 {
				status = rl.status
			}
			m.requests.With(route, strconv.Itoa(status)).Inc()
		}()
		next.ServeHTTP(w, r)
		panicked = false
	})
}

// authFailed counts a refused token.
func (s *Server) authFailed(reason string) {
	if s.metrics != nil {
		s.metrics.authFailures.With(reason).Inc()
	}
}

// ingested counts the samples of one push.
func (s *Server) ingested(result string, n int) {
	if s.metrics != nil && n > 0 {
		s.metrics.samples.With(result).Add(float64(n))
	}
}

// serveMetrics serves the registry in the Prometheus text format, first recomputing the fleet
// series if they are older than FleetEvery.
func (s *Server) serveMetrics(w http.ResponseWriter, r *http.Request) {
	if s.metrics.fleet != nil {
		s.metrics.fleet.refresh(r.Context())
	}
	s.metrics.reg.ServeHTTP(w, r)
}

// fleetCache holds the last fleet series and writes them on a scrape.
type fleetCache struct {
	compute FleetFunc
	every   time.Duration
	srv     *Server

	mu       sync.Mutex // held while computing, so concurrent scrapes compute once
	tried    time.Time  // the last computation's start
	last     FleetMetrics
	ok       time.Time // the last successful computation's start
	failures float64
	took     float64
}

// refresh recomputes the series when the last try is older than every. A failure is logged and
// counted, and the previous values stay.
func (c *fleetCache) refresh(ctx context.Context) {
	c.mu.Lock()
	defer c.mu.Unlock()
	now := c.srv.Now()
	if !c.tried.IsZero() && now.Sub(c.tried) < c.every {
		return
	}
	c.tried = now
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), fleetTimeout)
	defer cancel()
	start := time.Now()
	fm, err := c.compute(ctx, now)
	c.took = time.Since(start).Seconds()
	if err != nil {
		c.failures++
		c.srv.Log.Error("compute the gpucost_* metrics from the store; keeping the previous values", "err", err)
		return
	}
	c.last, c.ok = fm, now
}

// Collect writes the cached fleet series.
func (c *fleetCache) Collect(w *promtext.Writer) {
	c.mu.Lock()
	defer c.mu.Unlock()
	gauge := func(name, help string, each func(add func(v float64, labels ...string))) {
		w.Family(name, "gauge", help)
		each(func(v float64, labels ...string) { w.Sample(name, v, labels...) })
	}
	namespaces := func(value func(n NamespaceUsage) (float64, bool)) func(func(float64, ...string)) {
		return func(add func(float64, ...string)) {
			for _, n := range c.last.Namespaces {
				if v, ok := value(n); ok {
					add(v, "namespace", n.Namespace)
				}
			}
		}
	}
	teams := func(value func(t TeamCost) float64) func(func(float64, ...string)) {
		return func(add func(float64, ...string)) {
			for _, t := range c.last.Teams {
				add(value(t), "team", t.Team)
			}
		}
	}
	gauge("gpucost_gpu_hours", "GPU-hours reported by the namespace's GPUs over the last hour.",
		namespaces(func(n NamespaceUsage) (float64, bool) { return n.GPUHours, true }))
	gauge("gpucost_gpu_idle_hours", "Idle GPU-hours (held − used) of the namespace over the last hour.",
		namespaces(func(n NamespaceUsage) (float64, bool) { return n.IdleGPUHours, true }))
	gauge("gpucost_gpu_idle_ratio", "Share of the namespace's GPU-hours that were idle over the last hour, 0–1.",
		namespaces(func(n NamespaceUsage) (float64, bool) { return n.IdleGPUHours / n.GPUHours, n.GPUHours > 0 }))
	gauge("gpucost_gpu_utilization_ratio", "Mean GPU utilisation of the namespace over the last hour, 0–1.",
		namespaces(func(n NamespaceUsage) (float64, bool) { return n.UtilMean / 100, n.UtilMean == n.UtilMean })) // not NaN
	gauge("gpucost_cost_usd", "Month-to-date cost less idle of the team (its total cost − gpucost_idle_cost_usd) at the stored bill's prices, US dollars.",
		teams(func(t TeamCost) float64 { return t.CostUSD }))
	gauge("gpucost_idle_cost_usd", "Month-to-date cost of the team's idle GPU capacity from the stored bill, US dollars.",
		teams(func(t TeamCost) float64 { return t.IdleUSD }))
	gauge("gpucost_used_gpu_hours", "Month-to-date GPU-hours the team used, from the stored bill and telemetry.",
		teams(func(t TeamCost) float64 { return t.GPUHours }))
	var ok float64
	if !c.ok.IsZero() {
		ok = float64(c.ok.UnixNano()) / 1e9
	}
	w.Family("gpucost_fleet_metrics_last_success_timestamp_seconds", "gauge", "When the gpucost_* fleet series were last computed from the store (Unix time); 0 before the first success.")
	w.Sample("gpucost_fleet_metrics_last_success_timestamp_seconds", ok)
	w.Family("gpucost_fleet_metrics_errors_total", "counter", "Computations of the fleet series from the store that failed; the previous values are kept.")
	w.Sample("gpucost_fleet_metrics_errors_total", c.failures)
	w.Family("gpucost_fleet_metrics_duration_seconds", "gauge", "Time the last computation of the fleet series took.")
	w.Sample("gpucost_fleet_metrics_duration_seconds", c.took)
}
