// Package serving reads recommend --serving: a YAML file of serving pools, each with its SLO,
// service time (or batch latency profile) and where its request counts come from — a request
// log, a timestamp,rate CSV or a Prometheus query — and averages each pool's requests over a
// period by hour of the week into recommend.ServingTraffic. recommend stays pure; this package
// does the reading.
package serving

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/internal/yamlerr"
	"github.com/gpucost/gpucost/plan"
	"github.com/gpucost/gpucost/traffic"
	"go.yaml.in/yaml/v3"
)

// fileYAML is a --serving file: the serving pools to size by their request counts.
type fileYAML struct {
	Pools []poolYAML `yaml:"pools"`
}

type poolYAML struct {
	Namespace      string          `yaml:"namespace"`
	SLO            string          `yaml:"slo"`
	ServiceTime    string          `yaml:"service_time"`
	ServiceCV      *float64        `yaml:"service_cv"`
	PrefillRate    float64         `yaml:"prefill_rate"`
	DecodeRate     float64         `yaml:"decode_rate"`
	BatchProfile   string          `yaml:"batch_profile"`
	Concurrency    *int            `yaml:"concurrency"`
	GPUsPerReplica *int            `yaml:"gpus_per_replica"`
	Requests       string          `yaml:"requests"`
	RequestsShape  string          `yaml:"requests_shape"`
	Prometheus     *promSourceYAML `yaml:"prometheus"`
}

type promSourceYAML struct {
	URL    string `yaml:"url"`
	Query  string `yaml:"query"`
	Tokens string `yaml:"tokens"`
}

// Pool is one pool of a --serving file, checked: how it serves and where its request
// counts come from (a file, or a Prometheus range query).
type Pool struct {
	Namespace   string
	Quantile    float64
	SLO         time.Duration
	ServiceTime time.Duration
	// Spread is how the service time varies: service_cv when given, constant when the service
	// time is the profile's batch of one, else exponential (plan.Spread's zero value).
	Spread plan.Spread
	// PrefillRate and DecodeRate are a replica's input and output tokens a second, when given:
	// they split the pool's cost of a million tokens between input and output.
	PrefillRate, DecodeRate float64
	Profile                 *plan.LatencyProfile
	ProfileFile             string
	Concurrency             int
	GPUsPerReplica          int
	Requests                string // a path, resolved against the --serving file's folder
	// RequestsShape is the requests file's shape when the file cannot tell it: requests, rates
	// or samples (traffic.ParseFormat); "" tells it from the file.
	RequestsShape traffic.Format
	PromURL       string
	PromQuery     string
	// PromTokens names the serving engine whose token counters (TokenCounters) the Prometheus
	// server holds for the pool's namespace, to price its tokens; "" reads none.
	PromTokens string
	Line       int // the pool's line in the file
}

var fieldsOf = map[string]string{
	"fileYAML":       "pools",
	"poolYAML":       "namespace, slo, service_time, service_cv, prefill_rate, decode_rate, batch_profile, concurrency, gpus_per_replica, requests, requests_shape, prometheus",
	"promSourceYAML": "url, query, tokens",
}

// ParsePools reads a --serving file's pools; name is the file's path, for messages and
// to resolve the paths in it. Every mistake is an EInvalid error naming the file, the line and
// the field and saying what would work. Files the pools name (batch profiles) are read here;
// request counts are read later, over the period.
func ParsePools(name string, data []byte) ([]Pool, error) {
	var f fileYAML
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&f); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, gpucost.Errorf(gpucost.EInvalid, "%s: no pools: want a list under pools:, each with namespace, slo, service_time and requests", name)
		}
		return nil, yamlerr.Decode(name, err, fieldsOf)
	}
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		return nil, yamlerr.Decode(name, err, fieldsOf)
	}
	if len(f.Pools) == 0 {
		return nil, gpucost.Errorf(gpucost.EInvalid, "%s line %d: pools: empty; list at least one pool", name, yamlerr.Line(&root, "pools"))
	}
	out := make([]Pool, 0, len(f.Pools))
	for i, py := range f.Pools {
		bad := func(field, format string, args ...any) error {
			path, where := []string{"pools", strconv.Itoa(i)}, fmt.Sprintf("pools[%d]", i)
			if field != "" {
				path, where = append(path, strings.Split(field, ".")...), where+"."+field
			}
			return gpucost.Errorf(gpucost.EInvalid, "%s line %d: %s: %s", name, yamlerr.Line(&root, path...), where, fmt.Sprintf(format, args...))
		}
		p, err := py.pool(filepath.Dir(name), bad)
		if err != nil {
			return nil, err
		}
		p.Line = yamlerr.Line(&root, "pools", strconv.Itoa(i))
		for _, o := range out {
			if o.Namespace == p.Namespace {
				return nil, bad("namespace", "%q is also the pool on line %d; give each namespace once", p.Namespace, o.Line)
			}
		}
		out = append(out, p)
	}
	return out, nil
}

// pool checks one pool's fields; dir is the folder paths are relative to.
func (py poolYAML) pool(dir string, bad func(field, format string, args ...any) error) (Pool, error) {
	p := Pool{Namespace: strings.TrimSpace(py.Namespace), Concurrency: 1, GPUsPerReplica: 1}
	if p.Namespace == "" {
		return p, bad("namespace", "missing; give the namespace of the pool's serving machines, such as namespace: serving")
	}
	if py.SLO == "" {
		return p, bad("slo", "missing; give the latency objective, such as slo: p99=200ms")
	}
	var err error
	if p.Quantile, p.SLO, err = plan.ParseSLO(py.SLO); err != nil {
		return p, bad("slo", "%q: use pNN=DURATION, such as p99=200ms or p99.9=1s", py.SLO)
	}
	if err := py.service(&p, dir, bad); err != nil {
		return p, err
	}
	for _, n := range []struct {
		field string
		v     *int
		to    *int
	}{{"concurrency", py.Concurrency, &p.Concurrency}, {"gpus_per_replica", py.GPUsPerReplica, &p.GPUsPerReplica}} {
		if n.v == nil {
			continue
		}
		if *n.v < 1 || *n.v > 4096 {
			return p, bad(n.field, "%d: give 1 to 4096", *n.v)
		}
		*n.to = *n.v
	}
	return p, py.source(&p, dir, bad)
}

// service checks service_time and batch_profile: one of them, or both (the profile then sizes
// batches and the service time the pool without them).
func (py poolYAML) service(p *Pool, dir string, bad func(field, format string, args ...any) error) error {
	if py.ServiceTime == "" && py.BatchProfile == "" {
		return bad("service_time", "missing; give the mean time one replica takes per request, such as service_time: 30ms, or batch_profile: profile.csv")
	}
	if py.PrefillRate < 0 || py.DecodeRate < 0 || (py.PrefillRate > 0) != (py.DecodeRate > 0) {
		return bad("prefill_rate", "%v and decode_rate %v: give both, the input and output tokens a second one replica sustains", py.PrefillRate, py.DecodeRate)
	}
	p.PrefillRate, p.DecodeRate = py.PrefillRate, py.DecodeRate
	if cv := py.ServiceCV; cv != nil {
		if *cv < 0 || *cv > 20 || math.IsNaN(*cv) {
			return bad("service_cv", "%v: give the service time's coefficient of variation, between 0 (constant) and 20; 1 is exponential", *cv)
		}
		defer func() { p.Spread = plan.Spread{CV: *cv, Source: "service_cv"} }()
	}
	if py.ServiceTime != "" {
		d, err := time.ParseDuration(strings.TrimSpace(py.ServiceTime))
		if err != nil || d <= 0 {
			return bad("service_time", "%q: give a duration such as 30ms or 1.5s", py.ServiceTime)
		}
		if d >= p.SLO {
			return bad("service_time", "%v is not below the SLO's %v: no queue keeps it; raise the SLO above %v or measure a faster service time", d, p.SLO, d)
		}
		p.ServiceTime = d
	}
	if py.BatchProfile != "" {
		p.ProfileFile = resolve(dir, py.BatchProfile)
		data, err := os.ReadFile(p.ProfileFile)
		if err != nil {
			return bad("batch_profile", "%v; give a CSV of batch_size,latency_ms, relative to the serving file", err)
		}
		prof, err := plan.ParseLatencyProfile(data)
		if err != nil {
			return bad("batch_profile", "%s: %v", p.ProfileFile, err)
		}
		p.Profile = &prof
		if p.ServiceTime == 0 {
			p.ServiceTime, p.Spread = prof.Service(1), plan.ProfileSpread
			if p.ServiceTime >= p.SLO {
				return bad("batch_profile", "one request takes %v by the profile, not below the SLO's %v: raise the SLO above it", p.ServiceTime, p.SLO)
			}
		}
	}
	return nil
}

// source checks requests and prometheus: exactly one of them.
func (py poolYAML) source(p *Pool, dir string, bad func(field, format string, args ...any) error) error {
	switch {
	case py.Requests == "" && py.Prometheus == nil:
		return bad("requests", "missing; give a request log or timestamp,rate CSV (requests: requests.csv), or prometheus: {url: ..., query: ...}")
	case py.Requests != "" && py.Prometheus != nil:
		return bad("prometheus", "give either requests or prometheus, not both")
	case py.Requests != "":
		p.Requests = resolve(dir, py.Requests)
		shape, err := traffic.ParseFormat(py.RequestsShape)
		if err != nil {
			return bad("requests_shape", "%v", err)
		}
		p.RequestsShape = shape
		return nil
	case py.RequestsShape != "":
		return bad("requests_shape", "applies to a requests file; a Prometheus query's series are summed")
	}
	u, err := url.Parse(strings.TrimSpace(py.Prometheus.URL))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return bad("prometheus.url", "%q: give the server's address, such as http://prometheus:9090", py.Prometheus.URL)
	}
	if strings.TrimSpace(py.Prometheus.Query) == "" {
		return bad("prometheus.query", `missing; give a query for the pool's requests per second, such as sum(rate(vllm:request_success_total{namespace="serving"}[1h]))`)
	}
	p.PromURL, p.PromQuery = u.String(), py.Prometheus.Query
	if t := strings.ToLower(strings.TrimSpace(py.Prometheus.Tokens)); t != "" {
		if _, ok := TokenCounters[t]; !ok {
			return bad("prometheus.tokens", "%q: give the serving engine whose token counters Prometheus holds: %s", py.Prometheus.Tokens, strings.Join(tokenServers(), ", "))
		}
		p.PromTokens = t
	}
	return nil
}

// resolve returns path as given when absolute, else relative to dir.
func resolve(dir, path string) string {
	path = strings.TrimSpace(path)
	if filepath.IsAbs(path) {
		return path
	}
	return filepath.Join(dir, path)
}
