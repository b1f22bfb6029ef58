// Package enforce keeps GPU spend to what a team approved: policies read from YAML ("budget X
// over 100% and the resource not approved → stop it", "at most 40 spot instances", "every GPU
// below 5% for 60m → stop it", "off Mon-Fri 20:00-08:00"), evaluated against budget statuses,
// the GPU telemetry and the live resource inventory into a Plan of actions, each with the
// policy, the resource and the evidence, and a Runner that carries the plan out (notify, tag,
// stop and start EC2, GCE and Azure VMs, scale SageMaker endpoints and Kubernetes Deployments
// and StatefulSets to zero and back) and logs every action, dry runs included; a stop or
// scale-down is undone by its Reverse.
//
// Policies are opt-in and dry-run by default: an action changes a resource only when its policy
// says dry_run: false and the caller applies the plan. Evaluate and CheckJob are pure: they read
// no clock and do no I/O; the adapters are packages enforce/aws, enforce/gce, enforce/azure
// and enforce/kube.
package enforce

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/gpucost/gpucost/budget"
)

// Actions a policy can take.
const (
	ActNotify      = "notify"        // alert the policy's notify targets, once per run, listing the resources
	ActTag         = "tag"           // set the policy's tags on each resource
	ActStop        = "stop"          // stop EC2 instances (StopInstances)
	ActScaleToZero = "scale-to-zero" // SageMaker endpoint inference components or a Kubernetes Deployment or StatefulSet to zero
	// The reverse actions, taken by an off-hours policy when its window ends and by gpucost
	// enforce undo: they are never listed in a policies file.
	ActStart     = "start"      // start a stopped VM
	ActScaleBack = "scale-back" // scale back to the size recorded when it was scaled to zero
)

// DefaultTagKey is the tag the tag action sets, to the policy's name, when the policy names no
// tags. Its characters are valid in EC2 and SageMaker tag keys and Kubernetes annotation keys.
const DefaultTagKey = "gpucost-policy"

// Policy is one rule: a trigger (a budget's spend or forecast over a share of its amount, or
// more spot instances than a cap) and the actions taken on the resources in scope that do not
// carry the exempting tags.
type Policy struct {
	Name     string
	Budget   string        // the budget whose spend triggers it; empty for a spot cap
	Over     float64       // percent of the budget's amount
	Forecast bool          // compare the period's forecast rather than the spend so far
	MaxSpot  int           // with Budget, Idle and Schedule empty: the most running spot instances allowed in scope
	Idle     *IdleRule     // an idle policy: acts on resources whose GPUs are all idle
	Schedule *Schedule     // an off-hours policy: acts in its off windows, restores after them
	MinAge   time.Duration // idle and off-hours policies leave resources younger than this alone
	Unless   map[string]string
	Scope    budget.Scope // the resources it acts on; a budget policy without one uses the budget's
	HasScope bool         // Scope was given
	Actions  []string     // in the order given
	Notify   []string     // notification target names, for ActNotify
	Tags     map[string]string
	DryRun   bool   // true unless the file says dry_run: false
	File     string // the file it was read from, for messages
	Line     int    // its line in File
}

// IsSpotCap reports whether p caps the spot instance count rather than watching a budget.
func (p Policy) IsSpotCap() bool { return p.Budget == "" && p.Idle == nil && p.Schedule == nil }

// PerResource reports whether p's trigger is judged resource by resource (idle and off-hours
// policies) rather than once for its scope (budgets and spot caps).
func (p Policy) PerResource() bool { return p.Idle != nil || p.Schedule != nil }

// Has reports whether p takes action a.
func (p Policy) Has(a string) bool { return slices.Contains(p.Actions, a) }

// Trigger describes p's trigger as people read it: "research-monthly actual ≥ 100%",
// "spot instances > 40".
func (p Policy) Trigger() string {
	switch {
	case p.Idle != nil:
		return "idle: " + p.Idle.String()
	case p.Schedule != nil:
		return "schedule: " + p.Schedule.String()
	}
	if p.IsSpotCap() {
		return fmt.Sprintf("spot instances > %d", p.MaxSpot)
	}
	measure := budget.KindActual
	if p.Forecast {
		measure = budget.KindForecast
	}
	return fmt.Sprintf("%s %s ≥ %g%%", p.Budget, measure, p.Over)
}

// tagsToSet returns the tags the tag action sets: the policy's, else DefaultTagKey = its name.
func (p Policy) tagsToSet() map[string]string {
	if len(p.Tags) > 0 {
		return p.Tags
	}
	return map[string]string{DefaultTagKey: p.Name}
}

// exempt returns the unless_tags a resource's tags carry, all of them, or nil when it is not
// exempt.
func (p Policy) exempt(tags map[string]string) map[string]string {
	if len(p.Unless) == 0 {
		return nil
	}
	for k, v := range p.Unless {
		if got, ok := tags[k]; !ok || got != v {
			return nil
		}
	}
	return p.Unless
}

// sortedKeys returns m's keys in order.
func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// formatTags writes tags as "k=v, k2=v2" in key order.
func formatTags(tags map[string]string) string {
	parts := make([]string, 0, len(tags))
	for _, k := range sortedKeys(tags) {
		parts = append(parts, k+"="+tags[k])
	}
	return strings.Join(parts, ", ")
}
