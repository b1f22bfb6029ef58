package enforce

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/gpucost/gpucost"
)

// KeepTag exempts a resource from idle and off-hours policies whatever they say: a tag or
// label gpucost/keep: "true" (Kubernetes labels allow the slash; EC2, GCE and Azure keep it as
// a tag or label key as written, GCE as gpucost_keep).
const KeepTag = "gpucost/keep"

// keepTags are the spellings of KeepTag providers allow.
var keepTags = []string{KeepTag, "gpucost_keep", "gpucost-keep"}

// MinCoverage is the share of an idle window's minutes that must hold samples from every GPU of
// a resource before the resource can be called idle: a source that stopped reporting is "no
// data", never idle.
const MinCoverage = 0.9

// IdleRule is an idle policy's trigger: every GPU of a resource below Below percent
// utilisation in every minute of the last For.
type IdleRule struct {
	Below float64
	For   time.Duration
}

// String is the rule as people read it: "every GPU < 5% for 1h0m0s".
func (r IdleRule) String() string {
	return fmt.Sprintf("every GPU < %g%% for %s", r.Below, shortDuration(r.For))
}

// GPUActivity is one GPU's recent telemetry, as idle policies read it from the store: where it
// reported from (host, and the pod labels of Kubernetes workloads) and the mean utilisation of
// each minute that held samples, oldest first.
type GPUActivity struct {
	Host    string            `json:"host"`
	UUID    string            `json:"uuid"`
	Labels  map[string]string `json:"labels,omitempty"`
	Minutes []MinuteUtil      `json:"minutes"`
}

// MinuteUtil is one minute's mean GPU utilisation, percent.
type MinuteUtil struct {
	At   time.Time `json:"at"`
	Util float64   `json:"util"`
}

// Idle states of a resource.
const (
	StateIdle   = "idle"
	StateBusy   = "busy"
	StateNoData = "no data"
)

// IdleVerdict is what an idle rule found of one resource's GPUs over the window before now.
type IdleVerdict struct {
	State    string           `json:"state"` // StateIdle, StateBusy or StateNoData
	GPUs     int              `json:"gpus"`  // GPUs joined to the resource
	Window   gpucost.Duration `json:"window_s"`
	Covered  int              `json:"covered_minutes"` // the fewest minutes with samples of any GPU
	MaxUtil  float64          `json:"max_util"`
	MeanUtil float64          `json:"mean_util"`
	Last     time.Time        `json:"last_sample"` // the latest sample of any GPU
	Why      string           `json:"why"`
}

// JudgeIdle applies rule to a resource's GPUs at now over [now−For, now). It is idle only when
// there are GPUs, each held samples in at least MinCoverage of the window's minutes, and every
// minute's mean was below the threshold. JudgeIdle is pure.
func JudgeIdle(rule IdleRule, gpus []*GPUActivity, now time.Time) IdleVerdict {
	v := IdleVerdict{GPUs: len(gpus), Window: gpucost.Duration(rule.For), Covered: math.MaxInt}
	from := now.Add(-rule.For)
	want := int(rule.For / time.Minute)
	if len(gpus) == 0 {
		v.State, v.Covered, v.Why = StateNoData, 0, "no GPU telemetry joins this resource (by host name, inventory or pod labels)"
		return v
	}
	var sum float64
	var n int
	for _, g := range gpus {
		covered := 0
		for _, m := range g.Minutes {
			if m.At.After(v.Last) {
				v.Last = m.At
			}
			if m.At.Before(from) || !m.At.Before(now) {
				continue
			}
			covered++
			sum += m.Util
			n++
			v.MaxUtil = max(v.MaxUtil, m.Util)
		}
		v.Covered = min(v.Covered, covered)
	}
	if n > 0 {
		v.MeanUtil = sum / float64(n)
	}
	switch {
	case float64(v.Covered) < MinCoverage*float64(want):
		v.State = StateNoData
		v.Why = fmt.Sprintf("%d of %d minutes reported in the last %s", v.Covered, want, shortDuration(rule.For))
		if !v.Last.IsZero() {
			v.Why += ", last sample " + v.Last.UTC().Format("2006-01-02 15:04 UTC")
		}
	case v.MaxUtil >= rule.Below:
		v.State = StateBusy
		v.Why = fmt.Sprintf("a GPU reached %.1f%% in the last %s", v.MaxUtil, shortDuration(rule.For))
	default:
		v.State = StateIdle
		v.Why = fmt.Sprintf("%d GPUs below %g%% for %s: mean %.1f%%, max %.1f%% over %d minutes with samples",
			v.GPUs, rule.Below, shortDuration(rule.For), v.MeanUtil, v.MaxUtil, v.Covered)
	}
	return v
}

// JoinGPUs returns the GPUs that report from r: those whose host is one of r's hosts, its id
// or its name; for a Kubernetes workload, those whose pod (label pod) belongs to it in its
// namespace. JoinGPUs is pure.
func JoinGPUs(r *Resource, acts []GPUActivity) []*GPUActivity {
	var out []*GPUActivity
	for i := range acts {
		a := &acts[i]
		if r.isK8s() {
			pod, ns := a.Labels["pod"], a.Labels["namespace"]
			if ns == r.Namespace && r.Name != "" && ownsPod(r, pod) {
				out = append(out, a)
			}
			continue
		}
		if a.Host != "" && (slices.Contains(r.Hosts, a.Host) || a.Host == r.ID || a.Host == r.Name) {
			out = append(out, a)
		}
	}
	return out
}

// ownsPod reports whether a pod's name is one the workload's controller gives its pods:
// NAME-ORDINAL for a StatefulSet, NAME-HASH-SUFFIX for a Deployment.
func ownsPod(r *Resource, pod string) bool {
	rest, ok := strings.CutPrefix(pod, r.Name+"-")
	if !ok || rest == "" {
		return false
	}
	if r.Kind == KindStatefulSet {
		return strings.Trim(rest, "0123456789") == ""
	}
	return strings.Count(rest, "-") == 1
}

// keep reports whether tags carry KeepTag set to true.
func keep(tags map[string]string) bool {
	for _, k := range keepTags {
		if strings.EqualFold(strings.TrimSpace(tags[k]), "true") {
			return true
		}
	}
	return false
}

// shortDuration writes d as 60m, 2h, 1h30m.
func shortDuration(d time.Duration) string {
	s := d.String()
	s = strings.TrimSuffix(s, "0s")
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}
