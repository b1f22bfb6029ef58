package present

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/plan"
	"github.com/gpucost/gpucost/queue"
)

func TestLatency(t *testing.T) {
	for _, c := range []struct {
		d    time.Duration
		want string
	}{
		{time.Duration(1<<63 - 1), "unstable"},
		{12340 * time.Millisecond, "12.3s"},
		{1234400 * time.Microsecond, "1.234s"},
		{30040 * time.Microsecond, "30ms"},
		{1260 * time.Microsecond, "1.3ms"},
	} {
		if got := Latency(c.d); got != c.want {
			t.Errorf("Latency(%v) = %q, want %q", c.d, got, c.want)
		}
	}
}

// TestCapacity: $/1k requests is cut to 9 characters, a rule of thumb that misses the SLO says
// NO in capitals, and a plan without a price leaves its cost empty.
func TestCapacity(t *testing.T) {
	per1000 := gpucost.USD(12_345_678) // $0.012345678
	perHour := gpucost.USD(3_000_000_000)
	lat := []plan.LatencyPoint{{Quantile: 0.5, Response: 30 * time.Millisecond}}
	r := plan.CapacityResult{Rate: 500, ServiceTime: 30 * time.Millisecond, Quantile: 0.99, SLO: 200 * time.Millisecond,
		Replicas: 3, GPUs: 3, Utilisation: 0.5, Latency: lat, PerHour: &perHour, Per1000Requests: &per1000,
		RuleOfThumb: plan.RuleOfThumbPlan{PerGPUQPS: 200, QPSSource: "given", Replicas: 2, GPUs: 2, Latency: lat}}
	got := Capacity(r)
	want := [][]string{
		{"Erlang C (M/M/c)", "3", "3", "50%", "30ms", "yes", "$3.00", "$0.012345"},
		{"rule of thumb (R4, 200 QPS/GPU given)", "2", "2", "0%", "30ms", "NO", "", ""},
	}
	if !slices.EqualFunc(got.Rows, want, slices.Equal) {
		t.Errorf("Capacity(…).Rows = %q, want %q", got.Rows, want)
	}
	if !strings.HasPrefix(got.Title, "500 requests/s at 30ms each, p99 ≤ 200ms, 0% headroom: 3 replicas") {
		t.Errorf("Capacity(…).Title = %q", got.Title)
	}
}

// TestAutoscaleNotes: the note under the table names the best policy, or what to change when
// none (with --compare all) or the one policy misses the SLO; the oracle has no gap.
func TestAutoscaleNotes(t *testing.T) {
	o := plan.AutoscaleOptions{Quantile: 0.99, SLO: time.Second}
	meets := plan.AutoscaleResult{Policy: "target-tracking", Attainment: 0.995, ReplicaHours: 10, GapReplicaHours: 0.25}
	misses := plan.AutoscaleResult{Policy: "step", Attainment: 0.9, ReplicaHours: 8}
	oracle := plan.AutoscaleResult{Policy: plan.Oracle, Attainment: 1, ReplicaHours: 8}
	for _, c := range []struct {
		name string
		runs []plan.AutoscaleResult
		all  bool
		want string // the last note; "" for none
	}{
		{"best of all", []plan.AutoscaleResult{misses, meets, oracle}, true, "Best policy that meets the SLO without hindsight: target-tracking, 10.00 replica-hours, +25.0% over the oracle, $0.00."},
		{"none of all", []plan.AutoscaleResult{misses, oracle}, true, "No policy meets p99 ≤ 1s over the trace: raise --min-replicas, lower --target, or shorten --provisioning."},
		{"one misses", []plan.AutoscaleResult{misses}, false, "step misses p99 ≤ 1s over the trace: raise --min-replicas, lower --target, or shorten --provisioning."},
		{"one meets", []plan.AutoscaleResult{meets}, false, ""},
	} {
		got := Autoscale(o, c.runs, c.all)
		last := ""
		if len(got.Notes) > 0 {
			last = got.Notes[len(got.Notes)-1]
		}
		if last != c.want {
			t.Errorf("%s: Autoscale(…).Notes ends %q, want %q", c.name, last, c.want)
		}
		for _, row := range got.Rows {
			if (row[0] == string(plan.Oracle)) != (row[2] == "—") {
				t.Errorf("%s: Autoscale(…) row %q: only the oracle has no gap", c.name, row)
			}
		}
	}
}

func TestCheckpointEmergency(t *testing.T) {
	for _, c := range []struct {
		em   plan.EmergencyCheckpoint
		want string
	}{
		{plan.EmergencyCheckpoint{Provider: "aws", Notice: 2 * time.Minute, Write: 45 * time.Second, WriteSource: "checkpoint time", Fits: true, Slack: 75 * time.Second},
			"Emergency checkpoint on aws's 2m0s notice: writing takes 45s (checkpoint time) — it fits, slack 1m15s."},
		{plan.EmergencyCheckpoint{Notice: 30 * time.Second, Write: 98 * time.Second, WriteSource: "size/bandwidth", Slack: -68 * time.Second},
			"Emergency checkpoint on 30s notice: writing takes 1m38s (size/bandwidth) — it does NOT fit, slack -1m8s."},
	} {
		got := Checkpoint(plan.CheckpointResult{Emergency: &c.em})
		if len(got.Notes) != 1 || got.Notes[0] != c.want {
			t.Errorf("Checkpoint(emergency %+v).Notes = %q, want [%q]", c.em, got.Notes, c.want)
		}
	}
}

func TestMIGMethodNote(t *testing.T) {
	for _, c := range []struct {
		r    plan.MIGResult
		want string
	}{
		{plan.MIGResult{Method: "exact", Optimal: true, GPUsNeeded: 3, LowerBound: 3}, "Method: exact (optimal; lower bound 3 GPUs)."},
		{plan.MIGResult{Method: "first-fit-decreasing", GPUsNeeded: 5, LowerBound: 4}, "Method: first-fit-decreasing (at most 1 GPUs above the optimum; lower bound 4 GPUs)."},
	} {
		if got := MIG(c.r).Notes; len(got) != 1 || got[0] != c.want {
			t.Errorf("MIG(%s, optimal %v).Notes = %q, want [%q]", c.r.Method, c.r.Optimal, got, c.want)
		}
	}
}

func TestQueueStatusETA(t *testing.T) {
	for _, c := range []struct {
		st   queue.Status
		want string
	}{
		{queue.Status{Done: 4}, "finished"},
		{queue.Status{Pending: 10, ETA: gpucost.Duration(90 * time.Second)}, "1m30s"},
		{queue.Status{InFlight: 1}, "unknown (nothing done in the last minute)"},
	} {
		if got := QueueStatus(c.st).Rows[0][5]; got != c.want {
			t.Errorf("QueueStatus(%+v) ETA = %q, want %q", c.st, got, c.want)
		}
	}
}

func TestLastLine(t *testing.T) {
	for in, want := range map[string]string{
		"":                     "",
		"one":                  "one",
		"first\nsecond\n\n":    "second",
		"Traceback\n  Error\n": "  Error",
	} {
		if got := LastLine(in); got != want {
			t.Errorf("LastLine(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestBatchingMarksTheBest: the best plan's row is marked and the quantile names its column.
func TestBatchingMarksTheBest(t *testing.T) {
	best := plan.BatchPlan{MaxBatchSize: 16, GPUs: 4, Service: 20 * time.Millisecond}
	r := plan.BatchingResult{Rate: 2000, Quantile: 0.99, SLO: 100 * time.Millisecond, Best: best,
		Plans: []plan.BatchPlan{{MaxBatchSize: 1, GPUs: 13}, best}}
	got := Batching(r)
	if got.Columns[7] != "Predicted p99" {
		t.Errorf("Batching(…).Columns[7] = %q, want %q", got.Columns[7], "Predicted p99")
	}
	for i, want := range []string{"", "← best"} {
		if mark := got.Rows[i][len(got.Rows[i])-1]; mark != want {
			t.Errorf("Batching(…) row %d mark = %q, want %q", i, mark, want)
		}
	}
}

// TestCommitBreakEven: the break-even month shows only when there is one.
func TestCommitBreakEven(t *testing.T) {
	for _, c := range []struct {
		month int
		rows  int
	}{{0, 12}, {7, 13}} {
		got := Commit(plan.CommitResult{BreakEvenMonth: c.month})
		if len(got.Rows) != c.rows {
			t.Errorf("Commit(break-even month %d) has %d rows, want %d", c.month, len(got.Rows), c.rows)
		}
		if c.month > 0 && got.Rows[len(got.Rows)-1][1] != "7" {
			t.Errorf("Commit(break-even month %d) last row = %q", c.month, got.Rows[len(got.Rows)-1])
		}
	}
}
