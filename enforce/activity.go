package enforce

import (
	"context"
	"fmt"
	"time"

	"github.com/gpucost/gpucost"
)

// ReadActivity reads the GPU telemetry of [from, to) that idle policies judge: the store's
// minute rollups, one GPUActivity per GPU (host and UUID) with the labels of its latest minute
// and each minute's mean utilisation, in the store's order: by series, then time (a GPU whose
// labels changed has one run of minutes per series). Minutes without samples are left out.
func ReadActivity(ctx context.Context, st gpucost.RollupStore, from, to time.Time) ([]GPUActivity, error) {
	var out []GPUActivity
	var labelled []time.Time // when each GPU's Labels were seen
	at := map[[2]string]int{}
	err := st.ScanRollups(ctx, time.Minute, gpucost.RollupFilter{From: from, To: to}, func(r *gpucost.Rollup) error {
		if r.Samples == 0 {
			return nil
		}
		k := [2]string{r.Series.GPU.Host, r.Series.GPU.UUID}
		i, ok := at[k]
		if !ok {
			i = len(out)
			at[k] = i
			out = append(out, GPUActivity{Host: k[0], UUID: k[1]})
			labelled = append(labelled, time.Time{})
		}
		a := &out[i]
		if !r.Start.Before(labelled[i]) {
			a.Labels, labelled[i] = map[string]string(r.Series.Labels), r.Start
		}
		a.Minutes = append(a.Minutes, MinuteUtil{At: r.Start.UTC(), Util: r.UtilMean()})
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read GPU telemetry for idle policies: %w", err)
	}
	return out, nil
}

// Lookback returns how far back before now the policies' idle rules look: the longest for, or
// zero when no policy is an idle policy.
func Lookback(policies []Policy) time.Duration {
	var d time.Duration
	for _, p := range policies {
		if p.Idle != nil {
			d = max(d, p.Idle.For)
		}
	}
	return d
}

// UsageStore is what idle and off-hours policies read from the store: GPU telemetry and the
// inventory that ties billed resources to telemetry hosts (gpucost.Store is one).
type UsageStore interface {
	gpucost.RollupStore
	gpucost.InventoryStore
}

// UsageSnapshot adds to snap what idle and off-hours policies read: the store's inventory
// hosts joined to the live resources, the GPU telemetry of the policies' look-back before
// snap.Now and the stops and scale-downs in force from log. Without a live inventory (live
// false) it rehearses on the store's inventory instead (StoredResources), judged at the end of
// the stored telemetry when that is earlier than snap.Now. It returns notes for people. gpucost
// enforce and serve's check loop both build their snapshots with it, so they decide alike.
func UsageSnapshot(ctx context.Context, st UsageStore, log ActionLog, policies []Policy, snap *Snapshot, live bool) ([]string, error) {
	var notes []string
	inv, err := st.Inventory(ctx)
	if err != nil {
		return nil, fmt.Errorf("read the inventory for idle policies: %w", err)
	}
	if live {
		JoinInventory(snap.Resources, inv)
	} else {
		snap.Resources = append(snap.Resources, StoredResources(inv)...)
	}
	back := Lookback(policies)
	if back > 0 {
		from := snap.Now.Add(-back)
		if !live {
			from = from.Add(-2 * 24 * time.Hour) // to find where stored telemetry ends
		}
		acts, err := ReadActivity(ctx, st, from, snap.Now)
		if err != nil {
			return nil, err
		}
		snap.Activity = acts
		snap.Busy = BusyHosts(acts, snap.Now.Add(-back), snap.Now)
		if !live {
			fromTelemetry(snap.Resources, acts)
		}
		if last := lastMinute(acts); !live && !last.IsZero() && last.Add(time.Minute).Before(snap.Now) {
			snap.Now = last.Add(time.Minute)
			notes = append(notes, fmt.Sprintf("No live inventory (--aws-region, --gce-project, --azure-subscription, --kube-server): a rehearsal on the store's inventory of %d machines, "+
				"judged at %s, where its telemetry ends; nothing can be acted on.", len(inv), snap.Now.UTC().Format("2006-01-02 15:04 UTC")))
		} else if !live {
			notes = append(notes, fmt.Sprintf("No live inventory (--aws-region, --gce-project, --azure-subscription, --kube-server): a rehearsal on the store's inventory of %d machines; nothing can be acted on.", len(inv)))
		}
	}
	entries, err := log.Actions(ctx, gpucost.ActionFilter{})
	if err != nil {
		return nil, fmt.Errorf("read the action log for the stops in force: %w", err)
	}
	snap.InForce = InForce(entries)
	return notes, nil
}

// lastMinute is the latest minute of any GPU's activity.
func lastMinute(acts []GPUActivity) time.Time {
	var last time.Time
	for _, a := range acts {
		_, l := a.span()
		if l.After(last) {
			last = l
		}
	}
	return last
}

// span returns a's first and last minutes; zero times when it has none.
func (a *GPUActivity) span() (first, last time.Time) {
	for _, m := range a.Minutes {
		if first.IsZero() || m.At.Before(first) {
			first = m.At
		}
		if m.At.After(last) {
			last = m.At
		}
	}
	return first, last
}

// fromTelemetry completes stored resources from their GPUs' telemetry: the namespace label
// they reported with, as a namespace tag where there is none, so that scopes by namespace find
// them; and, as the launch time min_age reads, the first minute read (a lower bound on their
// age: they have run at least since then).
func fromTelemetry(resources []Resource, acts []GPUActivity) {
	for i := range resources {
		r := &resources[i]
		for _, a := range JoinGPUs(r, acts) {
			if ns := a.Labels["namespace"]; ns != "" && r.Tags["namespace"] == "" {
				r.Tags["namespace"] = ns
			}
			if first, _ := a.span(); !first.IsZero() && (r.Launched.IsZero() || first.Before(r.Launched)) {
				r.Launched = first
			}
		}
	}
}

// JobLabel is the telemetry label that says a job holds a GPU, as the store keeps it from the
// exporters (DCGM's job label, a Kubernetes job's pod labels). Idle and off-hours policies
// leave a machine alone while a GPU of it reports with one: the smallest signal of a batch in
// progress that the store already holds.
const JobLabel = "job"

// BusyHosts returns the hosts with a GPU that reported with a JobLabel in [from, to), with why:
// a job between batches (loading data, writing a checkpoint) leaves its GPUs idle for a while
// and must not be stopped. BusyHosts is pure.
func BusyHosts(acts []GPUActivity, from, to time.Time) map[string]string {
	out := map[string]string{}
	for _, a := range acts {
		job := a.Labels[JobLabel]
		if job == "" || a.Host == "" {
			continue
		}
		if _, last := a.span(); last.IsZero() || last.Before(from) || !last.Before(to) {
			continue
		}
		out[a.Host] = fmt.Sprintf("job %s holds GPU %s (telemetry label %s)", job, a.UUID, JobLabel)
	}
	return out
}
