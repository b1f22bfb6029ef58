package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/plan"
	"go.yaml.in/yaml/v3"
)

// servingFileYAML is a --serving file: the serving pools to size by their request counts.
type servingFileYAML struct {
	Pools []servingPoolYAML `yaml:"pools"`
}

type servingPoolYAML struct {
	Namespace      string          `yaml:"namespace"`
	SLO            string          `yaml:"slo"`
	ServiceTime    string          `yaml:"service_time"`
	BatchProfile   string          `yaml:"batch_profile"`
	Concurrency    *int            `yaml:"concurrency"`
	GPUsPerReplica *int            `yaml:"gpus_per_replica"`
	Requests       string          `yaml:"requests"`
	Prometheus     *promSourceYAML `yaml:"prometheus"`
}

type promSourceYAML struct {
	URL   string `yaml:"url"`
	Query string `yaml:"query"`
}

// servingPool is one pool of a --serving file, checked: how it serves and where its request
// counts come from (a file, or a Prometheus range query).
type servingPool struct {
	Namespace      string
	Quantile       float64
	SLO            time.Duration
	ServiceTime    time.Duration
	Profile        *plan.LatencyProfile
	ProfileFile    string
	Concurrency    int
	GPUsPerReplica int
	Requests       string // a path, resolved against the --serving file's folder
	PromURL        string
	PromQuery      string
	Line           int // the pool's line in the file
}

var servingUnknownRE = regexp.MustCompile(`^line (\d+): field (\S+) not found in type \S*?\.?(\w+)$`)

var servingFieldsOf = map[string]string{
	"servingFileYAML": "pools",
	"servingPoolYAML": "namespace, slo, service_time, batch_profile, concurrency, gpus_per_replica, requests, prometheus",
	"promSourceYAML":  "url, query",
}

// parseServingPools reads a --serving file's pools; name is the file's path, for messages and
// to resolve the paths in it. Every mistake is an EInvalid error naming the file, the line and
// the field and saying what would work. Files the pools name (batch profiles) are read here;
// request counts are read later, over the period.
func parseServingPools(name string, data []byte) ([]servingPool, error) {
	var f servingFileYAML
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&f); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, gpucost.Errorf(gpucost.EInvalid, "%s: no pools: want a list under pools:, each with namespace, slo, service_time and requests", name)
		}
		return nil, servingYAMLError(name, err)
	}
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		return nil, servingYAMLError(name, err)
	}
	if len(f.Pools) == 0 {
		return nil, gpucost.Errorf(gpucost.EInvalid, "%s:%d: pools: empty; list at least one pool", name, yamlLineOf(&root, "pools"))
	}
	out := make([]servingPool, 0, len(f.Pools))
	for i, py := range f.Pools {
		bad := func(field, format string, args ...any) error {
			path, where := []string{"pools", strconv.Itoa(i)}, fmt.Sprintf("pools[%d]", i)
			if field != "" {
				path, where = append(path, strings.Split(field, ".")...), where+"."+field
			}
			return gpucost.Errorf(gpucost.EInvalid, "%s:%d: %s: %s", name, yamlLineOf(&root, path...), where, fmt.Sprintf(format, args...))
		}
		p, err := py.pool(filepath.Dir(name), bad)
		if err != nil {
			return nil, err
		}
		p.Line = yamlLineOf(&root, "pools", strconv.Itoa(i))
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
func (py servingPoolYAML) pool(dir string, bad func(field, format string, args ...any) error) (servingPool, error) {
	p := servingPool{Namespace: strings.TrimSpace(py.Namespace), Concurrency: 1, GPUsPerReplica: 1}
	if p.Namespace == "" {
		return p, bad("namespace", "missing; give the namespace of the pool's serving machines, such as namespace: serving")
	}
	if py.SLO == "" {
		return p, bad("slo", "missing; give the latency objective, such as slo: p99=200ms")
	}
	var err error
	if p.Quantile, p.SLO, err = parseSLO(py.SLO); err != nil {
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
func (py servingPoolYAML) service(p *servingPool, dir string, bad func(field, format string, args ...any) error) error {
	if py.ServiceTime == "" && py.BatchProfile == "" {
		return bad("service_time", "missing; give the mean time one replica takes per request, such as service_time: 30ms, or batch_profile: profile.csv")
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
		p.ProfileFile = resolvePath(dir, py.BatchProfile)
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
			p.ServiceTime = prof.Service(1)
			if p.ServiceTime >= p.SLO {
				return bad("batch_profile", "one request takes %v by the profile, not below the SLO's %v: raise the SLO above it", p.ServiceTime, p.SLO)
			}
		}
	}
	return nil
}

// source checks requests and prometheus: exactly one of them.
func (py servingPoolYAML) source(p *servingPool, dir string, bad func(field, format string, args ...any) error) error {
	switch {
	case py.Requests == "" && py.Prometheus == nil:
		return bad("requests", "missing; give a request log or timestamp,rate CSV (requests: requests.csv), or prometheus: {url: ..., query: ...}")
	case py.Requests != "" && py.Prometheus != nil:
		return bad("prometheus", "give either requests or prometheus, not both")
	case py.Requests != "":
		p.Requests = resolvePath(dir, py.Requests)
		return nil
	}
	u, err := url.Parse(strings.TrimSpace(py.Prometheus.URL))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return bad("prometheus.url", "%q: give the server's address, such as http://prometheus:9090", py.Prometheus.URL)
	}
	if strings.TrimSpace(py.Prometheus.Query) == "" {
		return bad("prometheus.query", `missing; give a query for the pool's requests per second, such as sum(rate(vllm:request_success_total{namespace="serving"}[1h]))`)
	}
	p.PromURL, p.PromQuery = u.String(), py.Prometheus.Query
	return nil
}

// resolvePath returns path as given when absolute, else relative to dir.
func resolvePath(dir, path string) string {
	path = strings.TrimSpace(path)
	if filepath.IsAbs(path) {
		return path
	}
	return filepath.Join(dir, path)
}

// servingYAMLError turns a YAML decoding error into one that names the file and line and, for
// a misspelt field, the fields that would work.
func servingYAMLError(name string, err error) error {
	var te *yaml.TypeError
	if !errors.As(err, &te) {
		msg := strings.TrimPrefix(err.Error(), "yaml: ")
		if l, rest, ok := strings.Cut(strings.TrimPrefix(msg, "line "), ": "); ok && strings.HasPrefix(msg, "line ") {
			return gpucost.Errorf(gpucost.EInvalid, "%s:%s: %s; check the indentation and brackets there", name, l, rest)
		}
		return gpucost.Errorf(gpucost.EInvalid, "%s: %s", name, msg)
	}
	msgs := make([]string, 0, len(te.Errors))
	for _, e := range te.Errors {
		if m := servingUnknownRE.FindStringSubmatch(e); m != nil {
			e = fmt.Sprintf("%s:%s: unknown field %q; known fields here: %s", name, m[1], m[2], servingFieldsOf[m[3]])
		} else if l, rest, ok := strings.Cut(strings.TrimPrefix(e, "line "), ": "); ok && strings.HasPrefix(e, "line ") {
			e = fmt.Sprintf("%s:%s: %s", name, l, strings.ReplaceAll(rest, "!!", ""))
		} else {
			e = name + ": " + strings.ReplaceAll(e, "!!", "")
		}
		msgs = append(msgs, e)
	}
	return gpucost.Errorf(gpucost.EInvalid, "%s", strings.Join(msgs, "; "))
}

// yamlLineOf returns the line of the node at path in a YAML document (map keys and list
// indexes), or of the deepest node on the path that exists.
func yamlLineOf(root *yaml.Node, path ...string) int {
	n := root
	if n.Kind == yaml.DocumentNode && len(n.Content) > 0 {
		n = n.Content[0]
	}
	line := n.Line
	for _, p := range path {
		next := yamlChild(n, p)
		if next == nil {
			break
		}
		n, line = next, next.Line
	}
	return line
}

func yamlChild(n *yaml.Node, key string) *yaml.Node {
	switch n.Kind {
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i].Value == key {
				return n.Content[i+1]
			}
		}
	case yaml.SequenceNode:
		if i, err := strconv.Atoi(key); err == nil && i >= 0 && i < len(n.Content) {
			return n.Content[i]
		}
	}
	return nil
}
