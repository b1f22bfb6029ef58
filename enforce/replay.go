package enforce

import (
	"context"
	"fmt"
	"time"

	"github.com/gpucost/gpucost"
)

// Trace is one GPU's minutes over a period, for replaying idle and off-hours policies: which
// minutes reported samples and which of those were idle, below the threshold ReadTraces was
// given.
type Trace struct {
	Host, UUID string
	Labels     map[string]string
	From       time.Time // minute 0
	Reported   []bool
	Idle       []bool
}

// ReadTraces reads the store's minute rollups of [from, to) as one Trace per GPU (host and
// UUID), a minute idle when its mean utilisation is below below.
func ReadTraces(ctx context.Context, st gpucost.RollupStore, below float64, from, to time.Time) ([]Trace, error) {
	from, to = from.UTC().Truncate(time.Minute), to.UTC().Truncate(time.Minute)
	n := int(to.Sub(from) / time.Minute)
	if n <= 0 {
		return nil, nil
	}
	var out []Trace
	at := map[[2]string]int{}
	err := st.ScanRollups(ctx, time.Minute, gpucost.RollupFilter{From: from, To: to}, func(r *gpucost.Rollup) error {
		i := int(r.Start.Sub(from) / time.Minute)
		if r.Samples == 0 || i < 0 || i >= n {
			return nil
		}
		k := [2]string{r.Series.GPU.Host, r.Series.GPU.UUID}
		j, ok := at[k]
		if !ok {
			j = len(out)
			at[k] = j
			out = append(out, Trace{Host: k[0], UUID: k[1], From: from, Reported: make([]bool, n), Idle: make([]bool, n)})
		}
		t := &out[j]
		t.Labels = map[string]string(r.Series.Labels)
		t.Reported[i], t.Idle[i] = true, r.UtilMean() < below
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read GPU telemetry to replay the policies: %w", err)
	}
	return out, nil
}

// Replayed is what a policy would have kept from running on one resource had it run through
// a period: the minutes the resource was held (any GPU reporting) and the minutes it would
// have been stopped.
type Replayed struct {
	Policy       string        `json:"policy"`
	Resource     Ref           `json:"resource"`
	HeldHours    float64       `json:"held_hours"`
	StoppedHours float64       `json:"stopped_hours"`
	GPUHours     float64       `json:"gpu_hours"` // StoppedHours × the resource's GPUs
	Monthly      gpucost.Money `json:"monthly_saving"`
	Priced       bool          `json:"priced"`
}

// Replay runs an idle or off-hours policy over the period of traces, minute by minute, for
// each resource in scope that is not exempt (launch times, min_age and batches are not
// replayed): an idle policy stops a resource once every GPU has reported and been idle for
// the policy's for, until a GPU works or stops reporting (when someone would start it again);
// an off-hours policy stops it in each held minute of its off windows. The saving is the
// stopped share of the held hours × the resource's monthly cost (monthly, by resource id;
// unpriced when absent). Replay is pure.
func Replay(pol Policy, resources []Resource, traces []Trace, monthly map[string]gpucost.Money) []Replayed {
	lines := make([]*gpucost.CostLine, len(resources))
	gpus := map[*gpucost.CostLine]bool{}
	for i := range resources {
		lines[i] = resources[i].Line()
		gpus[lines[i]] = resources[i].GPUs > 0
	}
	m := matcher(gpus)
	acts := make([]GPUActivity, len(traces))
	index := map[*GPUActivity]int{}
	for i, t := range traces {
		acts[i] = GPUActivity{Host: t.Host, UUID: t.UUID, Labels: t.Labels}
		index[&acts[i]] = i
	}
	var out []Replayed
	for i := range resources {
		r := &resources[i]
		if !m.Matches(pol.Scope, lines[i]) || keep(r.Tags) || pol.exempt(r.Tags) != nil {
			continue
		}
		var mine []*Trace
		for _, a := range JoinGPUs(r, acts) {
			mine = append(mine, &traces[index[a]])
		}
		if len(mine) == 0 {
			continue
		}
		held, stopped := replayMinutes(pol, mine)
		if held == 0 {
			continue
		}
		rp := Replayed{Policy: pol.Name, Resource: r.ref(), HeldHours: float64(held) / 60, StoppedHours: float64(stopped) / 60}
		rp.GPUHours = rp.StoppedHours * float64(max(r.GPUs, len(mine)))
		if mo, ok := monthly[r.ID]; ok && held > 0 {
			rp.Monthly, rp.Priced = mo.MulFloat(float64(stopped)/float64(held)), true
		}
		out = append(out, rp)
	}
	return out
}

// replayMinutes counts the minutes the GPUs were held and those the policy would have stopped.
func replayMinutes(pol Policy, ts []*Trace) (held, stopped int) {
	run := 0
	need := 0
	if pol.Idle != nil {
		need = int(pol.Idle.For / time.Minute)
	}
	for i := range ts[0].Reported {
		any, all, idle := false, true, true
		for _, t := range ts {
			any = any || t.Reported[i]
			all = all && t.Reported[i]
			idle = idle && t.Idle[i]
		}
		if !any {
			run = 0
			continue
		}
		held++
		if pol.Schedule != nil {
			if pol.Schedule.offAt(ts[0].From.Add(time.Duration(i) * time.Minute).In(pol.Schedule.zone())) {
				stopped++
			}
			continue
		}
		if !all || !idle {
			run = 0
			continue
		}
		run++
		if run > need {
			stopped++
		}
	}
	return held, stopped
}
