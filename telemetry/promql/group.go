package promql

import (
	"maps"
	"net"
	"slices"
	"strconv"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/telemetry/dcgmfields"
)

// grouper turns the series of one answer — one per metric and GPU — into one sample per GPU and
// instant.
type grouper struct {
	st       *Stats
	index    map[groupKey]int
	builders []dcgmfields.Builder
	keys     []groupKey
	rank     map[string]int // series key → order of first appearance
}

type groupKey struct {
	series string
	ms     int64
}

func (g *grouper) init(st *Stats) {
	g.st, g.index, g.rank = st, map[groupKey]int{}, map[string]int{}
}

// add takes the points of one series.
func (g *grouper) add(metric map[string]string, points []point) {
	g.st.Series++
	name := metric["__name__"]
	f := dcgmfields.Of(name)
	if !f.Read() {
		g.st.skip(name, "not a DCGM reading gpucost uses; series left out")
		return
	}
	gpu, labels, why := dcgmfields.Identify(maps.All(metric), hostOf(metric["instance"]))
	if why != "" {
		g.st.skip(name, why+"; series left out")
		return
	}
	key := gpucost.Series{GPU: gpu, Labels: labels}.Key()
	if _, ok := g.rank[key]; !ok {
		g.rank[key] = len(g.rank)
	}
	for _, p := range points {
		v, err := strconv.ParseFloat(p.v, 64)
		if err != nil {
			g.st.skip(name, "value "+strconv.Quote(p.v)+" at "+at(p.ms)+" is not a number; left out")
			continue
		}
		if why := f.Invalid(v); why != "" {
			g.st.skip(name, gpu.UUID+" at "+at(p.ms)+": "+why+"; reading left out")
			continue
		}
		k := groupKey{key, p.ms}
		i, ok := g.index[k]
		if !ok {
			i = len(g.builders)
			g.index[k] = i
			g.builders = append(g.builders, dcgmfields.NewBuilder(time.UnixMilli(p.ms).UTC(), gpu, labels))
			g.keys = append(g.keys, k)
		}
		if !g.builders[i].Set(f, v) {
			g.st.skip(name, gpu.UUID+" at "+at(p.ms)+": a second series for this reading; the first is kept")
		}
	}
}

// samples returns the samples, oldest first and in the order the GPUs first came.
func (g *grouper) samples() []gpucost.Sample {
	order := make([]int, len(g.builders))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int {
		ka, kb := g.keys[a], g.keys[b]
		if ka.ms != kb.ms {
			return compare(ka.ms, kb.ms)
		}
		return g.rank[ka.series] - g.rank[kb.series]
	})
	out := make([]gpucost.Sample, 0, len(order))
	for _, i := range order {
		s := g.builders[i].Sample()
		s.Labels = maps.Clone(s.Labels)
		out = append(out, s)
	}
	return out
}

func compare(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// hostOf returns the host of a Prometheus instance label ("10.0.0.5:9400"): the host of series
// without a Hostname label.
func hostOf(instance string) string {
	if host, _, err := net.SplitHostPort(instance); err == nil {
		return host
	}
	return instance
}

func at(ms int64) string { return time.UnixMilli(ms).UTC().Format(time.RFC3339Nano) }
