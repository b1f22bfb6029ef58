package httpapi

import (
	"context"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
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
	CostUSD  float64 // effective (amortised) cost of the team's use
	IdleUSD  float64 // idle capacity of the team's GPUs, kept apart
	GPUHours float64 // used GPU-hours
}

// FleetFunc computes the fleet series as of now; gpucost serve reads them with the reports'
// code.
type FleetFunc func(ctx context.Context, now time.Time) (FleetMetrics, error)

// metrics are the server's Prometheus collectors, one registry per Server.
type metrics struct {
	reg          *prometheus.Registry
	requests     *prometheus.CounterVec
	duration     *prometheus.HistogramVec
	samples      *prometheus.CounterVec
	authFailures *prometheus.CounterVec
	fleet        *fleetCache
}

func (s *Server) newMetrics() *metrics {
	m := &metrics{reg: prometheus.NewRegistry()}
	m.requests = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "gpucost_http_requests_total",
		Help: "HTTP requests served, by route (method and path pattern; \"other\" for unknown paths) and status code.",
	}, []string{"route", "code"})
	m.duration = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "gpucost_http_request_duration_seconds",
		Help:    "Time to serve an HTTP request, by route.",
		Buckets: []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10},
	}, []string{"route"})
	m.samples = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "gpucost_ingest_samples_total",
		Help: "Samples pushed to POST /api/v1/samples, by result: accepted (queued for the store), skipped (failed validation) or refused (the queue was full; the agent retries).",
	}, []string{"result"})
	m.authFailures = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "gpucost_auth_failures_total",
		Help: "Requests refused by token authentication, by reason: missing, invalid (unknown or revoked), forbidden (the role does not allow the endpoint) or throttled (the source failed too many token checks).",
	}, []string{"reason"})
	for _, r := range []string{"accepted", "skipped", "refused"} {
		m.samples.WithLabelValues(r)
	}
	for _, r := range []string{"missing", "invalid", "forbidden", "throttled"} {
		m.authFailures.WithLabelValues(r)
	}
	m.reg.MustRegister(m.requests, m.duration, m.samples, m.authFailures,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	if s.QueueDepth != nil {
		depth := s.QueueDepth
		m.reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "gpucost_ingest_queue_samples",
			Help: "Samples accepted and waiting to be handed to the rollup writer.",
		}, func() float64 { return float64(depth()) }))
	}
	if s.FlushErrors != nil {
		flushErrors := s.FlushErrors
		m.reg.MustRegister(prometheus.NewCounterFunc(prometheus.CounterOpts{
			Name: "gpucost_writer_flush_errors_total",
			Help: "Writes of ingested samples to the store that failed; the writer keeps the samples and retries.",
		}, func() float64 { return float64(flushErrors()) }))
	}
	if s.Fleet != nil {
		every := s.FleetEvery
		if every <= 0 {
			every = DefaultFleetEvery
		}
		m.fleet = newFleetCache(s.Fleet, every, s)
		m.reg.MustRegister(m.fleet)
	}
	return m
}

// instrument counts and times the requests of one route. It reads the status the request log
// recorded, so it must run inside logRequests.
func (m *metrics) instrument(route string, next http.Handler) http.Handler {
	requests := m.requests.MustCurryWith(prometheus.Labels{"route": route})
	duration := m.duration.WithLabelValues(route)
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
			requests.WithLabelValues(strconv.Itoa(status)).Inc()
		}()
		next.ServeHTTP(w, r)
		panicked = false
	})
}

// authFailed counts a refused token.
func (s *Server) authFailed(reason string) {
	if s.metrics != nil {
		s.metrics.authFailures.WithLabelValues(reason).Inc()
	}
}

// ingested counts the samples of one push.
func (s *Server) ingested(result string, n int) {
	if s.metrics != nil && n > 0 {
		s.metrics.samples.WithLabelValues(result).Add(float64(n))
	}
}

// serveMetrics serves the registry in the Prometheus text format, first recomputing the fleet
// series if they are older than FleetEvery.
func (s *Server) serveMetrics(w http.ResponseWriter, r *http.Request) {
	if s.metrics.fleet != nil {
		s.metrics.fleet.refresh(r.Context())
	}
	promhttp.HandlerFor(s.metrics.reg, promhttp.HandlerOpts{ErrorLog: slogPrinter{s}}).ServeHTTP(w, r)
}

// slogPrinter hands promhttp's errors to the server's log.
type slogPrinter struct{ s *Server }

func (p slogPrinter) Println(v ...any) { p.s.Log.Error("serve /metrics", "err", v) }

// fleetCache holds the last fleet series and describes them to Prometheus.
type fleetCache struct {
	compute FleetFunc
	every   time.Duration
	srv     *Server

	mu        sync.Mutex // held while computing, so concurrent scrapes compute once
	tried     time.Time  // the last computation's start
	last      FleetMetrics
	ok        time.Time // the last successful computation's start
	failures  float64
	took      float64
	namespace [4]*prometheus.Desc
	team      [3]*prometheus.Desc
	health    [3]*prometheus.Desc
}

func newFleetCache(f FleetFunc, every time.Duration, s *Server) *fleetCache {
	ns, team := []string{"namespace"}, []string{"team"}
	return &fleetCache{compute: f, every: every, srv: s,
		namespace: [4]*prometheus.Desc{
			prometheus.NewDesc("gpucost_gpu_hours", "GPU-hours reported by the namespace's GPUs over the last hour.", ns, nil),
			prometheus.NewDesc("gpucost_gpu_idle_hours", "Idle GPU-hours (minutes below the idle threshold) of the namespace over the last hour.", ns, nil),
			prometheus.NewDesc("gpucost_gpu_idle_ratio", "Share of the namespace's GPU-hours that were idle over the last hour, 0–1.", ns, nil),
			prometheus.NewDesc("gpucost_gpu_utilization_ratio", "Mean GPU utilisation of the namespace over the last hour, 0–1.", ns, nil),
		},
		team: [3]*prometheus.Desc{
			prometheus.NewDesc("gpucost_cost_usd", "Month-to-date effective (amortised) spend of the team from the stored bill, US dollars, idle capacity apart.", team, nil),
			prometheus.NewDesc("gpucost_idle_cost_usd", "Month-to-date cost of the team's idle GPU capacity from the stored bill, US dollars.", team, nil),
			prometheus.NewDesc("gpucost_used_gpu_hours", "Month-to-date GPU-hours the team used, from the stored bill and telemetry.", team, nil),
		},
		health: [3]*prometheus.Desc{
			prometheus.NewDesc("gpucost_fleet_metrics_last_success_timestamp_seconds", "When the gpucost_* fleet series were last computed from the store (Unix time); 0 before the first success.", nil, nil),
			prometheus.NewDesc("gpucost_fleet_metrics_errors_total", "Computations of the fleet series from the store that failed; the previous values are kept.", nil, nil),
			prometheus.NewDesc("gpucost_fleet_metrics_duration_seconds", "Time the last computation of the fleet series took.", nil, nil),
		},
	}
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

// Describe sends the descriptors of every fleet series.
func (c *fleetCache) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range c.namespace {
		ch <- d
	}
	for _, d := range c.team {
		ch <- d
	}
	for _, d := range c.health {
		ch <- d
	}
}

// Collect sends the cached fleet series.
func (c *fleetCache) Collect(ch chan<- prometheus.Metric) {
	c.mu.Lock()
	defer c.mu.Unlock()
	g := prometheus.GaugeValue
	for _, n := range c.last.Namespaces {
		ch <- prometheus.MustNewConstMetric(c.namespace[0], g, n.GPUHours, n.Namespace)
		ch <- prometheus.MustNewConstMetric(c.namespace[1], g, n.IdleGPUHours, n.Namespace)
		if n.GPUHours > 0 {
			ch <- prometheus.MustNewConstMetric(c.namespace[2], g, n.IdleGPUHours/n.GPUHours, n.Namespace)
		}
		if n.UtilMean == n.UtilMean { // not NaN
			ch <- prometheus.MustNewConstMetric(c.namespace[3], g, n.UtilMean/100, n.Namespace)
		}
	}
	for _, t := range c.last.Teams {
		ch <- prometheus.MustNewConstMetric(c.team[0], g, t.CostUSD, t.Team)
		ch <- prometheus.MustNewConstMetric(c.team[1], g, t.IdleUSD, t.Team)
		ch <- prometheus.MustNewConstMetric(c.team[2], g, t.GPUHours, t.Team)
	}
	var ok float64
	if !c.ok.IsZero() {
		ok = float64(c.ok.UnixNano()) / 1e9
	}
	ch <- prometheus.MustNewConstMetric(c.health[0], g, ok)
	ch <- prometheus.MustNewConstMetric(c.health[1], prometheus.CounterValue, c.failures)
	ch <- prometheus.MustNewConstMetric(c.health[2], g, c.took)
}
