package enforce

import (
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
)

func idlePolicies(t *testing.T) []Policy {
	t.Helper()
	data, err := os.ReadFile("testdata/idle.yaml")
	if err != nil {
		t.Fatal(err)
	}
	ps, err := Load("idle.yaml", data, nil)
	if err != nil {
		t.Fatalf("Load(idle.yaml) = %v", err)
	}
	return ps
}

func TestLoadIdleAndSchedule(t *testing.T) {
	ps := idlePolicies(t)
	i, s := ps[0], ps[1]
	if i.Idle == nil || i.Idle.Below != 5 || i.Idle.For != time.Hour || i.MinAge != 2*time.Hour || !i.DryRun || i.IsSpotCap() || !i.PerResource() {
		t.Errorf("idle-notebooks = %+v", i)
	}
	if got, want := i.Trigger(), "idle: every GPU < 5% for 1h"; got != want {
		t.Errorf("Trigger() = %q, want %q", got, want)
	}
	if s.Schedule == nil || len(s.Schedule.Off) != 2 || s.Schedule.Zone.String() != "Europe/Berlin" || len(s.Schedule.Holidays) != 1 || s.DryRun {
		t.Errorf("dev-off-hours = %+v", s)
	}
	if got, want := s.Trigger(), "schedule: off Mon-Fri 20:00-08:00; Sat-Sun 00:00-24:00 Europe/Berlin, holidays 2026-12-25"; got != want {
		t.Errorf("Trigger() = %q, want %q", got, want)
	}
}

func TestLoadIdleErrors(t *testing.T) {
	cases := []struct{ name, yaml, want string }{
		{"two triggers", "policies:\n  - name: a\n    idle: {below: 5%, for: 60m}\n    max_spot_instances: 2\n    actions: [stop]\n",
			"x.yaml line 2: policies[0]: give one trigger"},
		{"below missing", "policies:\n  - name: a\n    idle: {for: 60m}\n    actions: [stop]\n", "x.yaml line 3: policies[0].idle: below is missing"},
		{"for bad", "policies:\n  - name: a\n    idle: {below: 5%, for: an hour}\n    actions: [stop]\n", `policies[0].idle: for: "an hour" is not a duration; write it as 60m or 2h`},
		{"for short", "policies:\n  - name: a\n    idle: {below: 5%, for: 1m}\n    actions: [stop]\n", "for: 1m is out of range: use whole minutes from 5m to 168h"},
		{"below 0", "policies:\n  - name: a\n    idle: {below: 0, for: 60m}\n    actions: [stop]\n", "below: 0 is out of range"},
		{"only notify", "policies:\n  - name: a\n    idle: {below: 5%, for: 60m}\n    actions: [notify]\n    notify: [x]\n", "policies[0].actions: an idle or off-hours policy stops or scales down"},
		{"bad days", "policies:\n  - name: a\n    schedule: {off: \"Weekdays 20:00-08:00\"}\n    actions: [stop]\n", `x.yaml line 3: policies[0].schedule: off: "Weekdays": days are Mon`},
		{"bad hour", "policies:\n  - name: a\n    schedule: {off: \"Mon-Fri 25:00-08:00\"}\n    actions: [stop]\n", `"25:00" is not a time of day`},
		{"bad zone", "policies:\n  - name: a\n    schedule: {off: \"daily 20:00-08:00\", zone: Mars/Olympus}\n    actions: [stop]\n", `zone: "Mars/Olympus" is not a time zone`},
		{"bad holiday", "policies:\n  - name: a\n    schedule: {off: \"daily 20:00-08:00\", holidays: [25.12.2026]}\n    actions: [stop]\n", `holidays: "25.12.2026" is not a date`},
		{"min_age alone", "policies:\n  - name: a\n    max_spot_instances: 2\n    min_age: 2h\n    actions: [stop]\n", "policies[0].min_age: min_age goes with idle and schedule policies"},
		{"unknown field", "policies:\n  - name: a\n    idle: {below: 5%, for: 60m, above: 3}\n    actions: [stop]\n", "above"},
	}
	for _, c := range cases {
		_, err := Load("x.yaml", []byte(c.yaml), nil)
		if err == nil || !strings.Contains(err.Error(), c.want) || gpucost.ErrorCode(err) != gpucost.EInvalid {
			t.Errorf("%s: Load = %v, want an EInvalid error containing %q", c.name, err, c.want)
		}
	}
}

func TestScheduleAt(t *testing.T) {
	berlin, _ := time.LoadLocation("Europe/Berlin")
	s := idlePolicies(t)[1].Schedule
	at := func(s string) time.Time {
		tm, err := time.ParseInLocation("2006-01-02 15:04", s, berlin)
		if err != nil {
			panic(err)
		}
		return tm
	}
	cases := []struct {
		at, until string // until "" means on
	}{
		{"2026-11-23 07:59", "2026-11-23 08:00"}, // Monday's early hours are off
		{"2026-11-23 08:00", ""},
		{"2026-11-23 19:59", ""},
		{"2026-11-23 20:00", "2026-11-24 08:00"},
		{"2026-11-27 21:30", "2026-11-30 08:00"}, // Friday night through the weekend
		{"2026-11-28 12:00", "2026-11-30 08:00"},
		{"2026-12-24 21:00", "2026-12-28 08:00"}, // Christmas Day, a Friday, is a holiday and joins the weekend
	}
	for _, c := range cases {
		off, until := s.At(at(c.at))
		if c.until == "" {
			if off {
				t.Errorf("At(%s) = off until %v, want on", c.at, until)
			}
			continue
		}
		if !off {
			t.Errorf("At(%s) = on, want off until %s", c.at, c.until)
			continue
		}
		if want := at(c.until); !until.Equal(want) {
			t.Errorf("At(%s) = off until %v, want %v", c.at, until.In(berlin), want)
		}
	}
}

// minutes returns a GPU's activity: util for each minute of [from, to).
func minutes(host, uuid string, labels map[string]string, from, to time.Time, util func(time.Time) float64) GPUActivity {
	a := GPUActivity{Host: host, UUID: uuid, Labels: labels}
	for t := from; t.Before(to); t = t.Add(time.Minute) {
		a.Minutes = append(a.Minutes, MinuteUtil{At: t, Util: util(t)})
	}
	return a
}

func TestEvaluateIdle(t *testing.T) {
	now := time.Date(2026, 11, 23, 14, 0, 0, 0, time.UTC)
	old, from := now.Add(-10*time.Hour), now.Add(-2*time.Hour)
	hourly := gpucost.USD(1_212_000_000)
	vm := func(id, host string, launched time.Time, tags map[string]string) Resource {
		all := map[string]string{"namespace": "notebooks"}
		for k, v := range tags {
			all[k] = v
		}
		return Resource{Kind: KindEC2, ID: id, Provider: "aws", Region: "us-east-1", InstanceType: "g5.2xlarge", Count: 1, GPUs: 1,
			State: "running", Running: true, Launched: launched, Tags: all, Hosts: []string{host}, Hourly: &hourly}
	}
	low := func(time.Time) float64 { return 1 }
	s := Snapshot{Now: now, Resources: []Resource{
		vm("i-idle", "nb-01", old, nil),
		vm("i-busy", "nb-02", old, nil),
		vm("i-silent", "nb-03", old, nil),
		vm("i-young", "nb-04", now.Add(-time.Hour), nil),
		vm("i-keep", "nb-05", old, map[string]string{KeepTag: "true"}),
		{Kind: KindStatefulSet, ID: "notebooks/jupyter", Name: "jupyter", Namespace: "notebooks", Count: 1, GPUs: 1, State: "1 replicas",
			Running: true, Launched: old, Tags: map[string]string{"app": "jupyter"}},
		vm("i-batch", "nb-07", old, nil),
	}, Activity: []GPUActivity{
		minutes("nb-01", "GPU-1", nil, from, now, low),
		minutes("nb-02", "GPU-2", nil, from, now, func(t time.Time) float64 {
			if t.Equal(now.Add(-10 * time.Minute)) {
				return 30
			}
			return 0
		}),
		minutes("nb-03", "GPU-3", nil, from, now.Add(-30*time.Minute), low),
		minutes("nb-04", "GPU-4", nil, from, now, low),
		minutes("nb-05", "GPU-5", nil, from, now, low),
		minutes("k8s-node-1", "GPU-6", map[string]string{"namespace": "notebooks", "pod": "jupyter-0"}, from, now, low),
		minutes("nb-07", "GPU-7", nil, from, now, low),
	}, Busy: map[string]string{"nb-07": "gpucost run job train-3 is mid-batch"}}
	pol := idlePolicies(t)[:1]
	p := Evaluate(pol, s, true)
	if len(p.Policies) != 1 {
		t.Fatalf("Evaluate gave %d policy results", len(p.Policies))
	}
	r := p.Policies[0]
	if want := "2 of 7 running resources in scope idle (every GPU < 5% for 1h); 1 busy, 1 without data"; r.Reason != want || !r.Triggered || !r.DryRun {
		t.Errorf("result = %+v, want reason %q, triggered, dry run", r, want)
	}
	if want := []string{"i-keep"}; !reflect.DeepEqual(r.Exempt, want) {
		t.Errorf("exempt = %v, want %v", r.Exempt, want)
	}
	wantSkipped := []string{"ec2-instance i-young: launched 1h ago, under min_age 2h", "ec2-instance i-batch: mid-batch on nb-07: gpucost run job train-3 is mid-batch"}
	if !reflect.DeepEqual(r.Skipped, wantSkipped) {
		t.Errorf("skipped = %q, want %q", r.Skipped, wantSkipped)
	}
	var got []string
	for _, a := range p.Actions {
		id := strings.Join(a.Targets, ",") + "→" + strings.Join(a.Evidence.Resources, ",")
		if a.Resource != nil {
			id = a.Resource.ID
		}
		got = append(got, a.Action+" "+id)
	}
	want := []string{"notify ops-slack→i-idle,notebooks/jupyter", "stop i-idle", "scale-to-zero notebooks/jupyter"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("actions = %q, want %q", got, want)
	}
	stop, scale := p.Actions[1], p.Actions[2]
	if v := stop.Evidence.Idle; v == nil || v.State != StateIdle || v.Covered != 60 || v.MaxUtil != 1 || v.GPUs != 1 || *stop.Evidence.Hourly != hourly || stop.GPUs != 1 {
		t.Errorf("stop evidence = %+v", stop.Evidence)
	}
	if scale.Size != 1 || scale.Evidence.Idle == nil || scale.Evidence.Idle.GPUs != 1 {
		t.Errorf("scale-to-zero = %+v, want size 1 and one joined GPU", scale)
	}
	if got, want := stop.Summary(), "idle 1h: 1 GPUs mean 1.0% max 1.0%; matched namespace=notebooks"; got != want {
		t.Errorf("Summary() = %q, want %q", got, want)
	}
}

func TestJudgeIdleNoData(t *testing.T) {
	now := time.Date(2026, 11, 23, 14, 0, 0, 0, time.UTC)
	rule := IdleRule{Below: 5, For: time.Hour}
	zero := func(time.Time) float64 { return 0 }
	cases := []struct {
		name string
		gpus []GPUActivity
		want string
	}{
		{"none joined", nil, StateNoData},
		{"stopped reporting", []GPUActivity{minutes("h", "G", nil, now.Add(-3*time.Hour), now.Add(-2*time.Hour), zero)}, StateNoData},
		{"54 of 60 minutes", []GPUActivity{minutes("h", "G", nil, now.Add(-54*time.Minute), now, zero)}, StateIdle},
		{"53 of 60 minutes", []GPUActivity{minutes("h", "G", nil, now.Add(-53*time.Minute), now, zero)}, StateNoData},
		{"one of two GPUs silent", []GPUActivity{minutes("h", "G", nil, now.Add(-time.Hour), now, zero), {Host: "h", UUID: "G2"}}, StateNoData},
		{"at the threshold", []GPUActivity{minutes("h", "G", nil, now.Add(-time.Hour), now, func(time.Time) float64 { return 5 })}, StateBusy},
	}
	for _, c := range cases {
		var ptrs []*GPUActivity
		for i := range c.gpus {
			ptrs = append(ptrs, &c.gpus[i])
		}
		if got := JudgeIdle(rule, ptrs, now); got.State != c.want {
			t.Errorf("%s: JudgeIdle = %s (%s), want %s", c.name, got.State, got.Why, c.want)
		}
	}
}

func TestScheduleStopsAndRestores(t *testing.T) {
	berlin, _ := time.LoadLocation("Europe/Berlin")
	pol := idlePolicies(t)[1:]
	hourly := gpucost.USD(2_000_000_000)
	dev := Resource{Kind: KindGCE, ID: "proj/europe-west4-a/dev-1", Name: "dev-1", Provider: "gcp", GPUs: 4, Count: 1, State: "RUNNING", Running: true,
		Tags: map[string]string{"env": "dev"}, Hourly: &hourly}
	night := time.Date(2026, 11, 23, 21, 0, 0, 0, berlin)
	p := Evaluate(pol, Snapshot{Now: night, Resources: []Resource{dev}}, true)
	if len(p.Actions) != 1 || p.Actions[0].Action != ActStop || p.Actions[0].DryRun || p.Actions[0].Resource.ID != dev.ID {
		t.Fatalf("at night: actions = %+v, want one stop carried out", p.Actions)
	}
	if until := p.Actions[0].Evidence.OffUntil; until == nil || !until.Equal(time.Date(2026, 11, 24, 8, 0, 0, 0, berlin)) {
		t.Errorf("off until %v, want Tuesday 08:00 Berlin", until)
	}
	stopped := p.Actions[0]
	stopped.Result = ResultDone
	log := []LogEntry{{ID: 41, At: night, Action: stopped}}
	morning := time.Date(2026, 11, 24, 8, 5, 0, 0, berlin)
	dev.Running, dev.State = false, "TERMINATED"
	p = Evaluate(pol, Snapshot{Now: morning, Resources: []Resource{dev}, InForce: InForce(log)}, true)
	if len(p.Actions) != 1 || p.Actions[0].Action != ActStart || p.Actions[0].Undoes != 41 || p.Actions[0].Resource.ID != dev.ID {
		t.Fatalf("in the morning: actions = %+v, want a start undoing 41", p.Actions)
	}
	started := p.Actions[0]
	started.Result = ResultDone
	log = append(log, LogEntry{ID: 42, At: morning, Action: started})
	if got := InForce(log); len(got) != 0 {
		t.Errorf("InForce after the start = %+v, want none", got)
	}
	av := AvoidedHours(log, morning.Add(48*time.Hour))
	if len(av) != 1 || av[0].InForce || av[0].Hours != 11+5.0/60 || av[0].GPUHours != 4*av[0].Hours || av[0].Cost != gpucost.USD(22_166_666_667) {
		t.Errorf("AvoidedHours = %+v, want 11h05m, 44.33 GPU-hours, USD 22.17", av)
	}
}

func TestReverseRefuses(t *testing.T) {
	ref := &Ref{Kind: KindDeployment, ID: "ns/d"}
	cases := []struct {
		name string
		a    Action
		want string
	}{
		{"dry run", Action{Policy: "p", Action: ActScaleToZero, Resource: ref, DryRun: true, Result: ResultPlanned, Size: 2}, "changed nothing"},
		{"failed", Action{Policy: "p", Action: ActStop, Resource: ref, Result: ResultFailed}, "changed nothing"},
		{"no size", Action{Policy: "p", Action: ActScaleToZero, Resource: ref, Result: ResultDone}, "without recording its size"},
		{"tag", Action{Policy: "p", Action: ActTag, Resource: ref, Result: ResultDone}, "only stop and scale-to-zero are undone"},
	}
	for _, c := range cases {
		if _, err := Reverse(LogEntry{ID: 7, Action: c.a}); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: Reverse = %v, want an error containing %q", c.name, err, c.want)
		}
	}
	a, err := Reverse(LogEntry{ID: 7, Action: Action{Policy: "p", Action: ActScaleToZero, Resource: ref, Result: ResultDone, Size: 3}})
	if err != nil || a.Action != ActScaleBack || a.Size != 3 || a.Undoes != 7 {
		t.Errorf("Reverse(scale-to-zero of 3) = %+v, %v", a, err)
	}
}

func TestBusyHosts(t *testing.T) {
	now := time.Date(2026, 11, 23, 14, 0, 0, 0, time.UTC)
	zero := func(time.Time) float64 { return 0 }
	acts := []GPUActivity{
		minutes("train-1", "GPU-a", map[string]string{"job": "pretrain-7b"}, now.Add(-time.Hour), now, zero),
		minutes("train-2", "GPU-b", map[string]string{"job": "old-run"}, now.Add(-5*time.Hour), now.Add(-3*time.Hour), zero),
		minutes("nb-1", "GPU-c", map[string]string{"pod": "jupyter-0"}, now.Add(-time.Hour), now, zero),
	}
	got := BusyHosts(acts, now.Add(-time.Hour), now)
	want := map[string]string{"train-1": "job pretrain-7b holds GPU GPU-a (telemetry label job)"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("BusyHosts = %v, want %v (a job label reported in the window only)", got, want)
	}
}

// TestReplay: over one day, a machine idle 00:00–09:00 and 18:00–24:00 and busy between; an
// idle policy of 60m stops it after the first hour of each idle run (8 h + 5 h), an off-hours
// policy of weekday nights 18:00–09:00 in each held minute of its window (15 h); the saving is
// the stopped share of the $730 month.
func TestReplay(t *testing.T) {
	day := time.Date(2026, 11, 23, 0, 0, 0, 0, time.UTC) // a Monday
	n := 24 * 60
	tr := Trace{Host: "nb-01", UUID: "GPU-1", From: day, Reported: make([]bool, n), Idle: make([]bool, n)}
	for i := range n {
		tr.Reported[i] = true
		tr.Idle[i] = i < 9*60 || i >= 18*60
	}
	quiet := Trace{Host: "nb-02", UUID: "GPU-2", From: day, Reported: make([]bool, n), Idle: make([]bool, n)}
	res := []Resource{
		{Kind: KindEC2, ID: "i-1", GPUs: 1, Hosts: []string{"nb-01"}, Tags: map[string]string{"namespace": "notebooks"}},
		{Kind: KindEC2, ID: "i-2", GPUs: 1, Hosts: []string{"nb-02"}, Tags: map[string]string{"namespace": "notebooks"}},
		{Kind: KindEC2, ID: "i-keep", GPUs: 1, Hosts: []string{"nb-01"}, Tags: map[string]string{"namespace": "notebooks", KeepTag: "true"}},
	}
	monthly := map[string]gpucost.Money{"i-1": gpucost.USD(730_000_000_000)}
	idle := Policy{Name: "idle", Idle: &IdleRule{Below: 5, For: time.Hour}}
	off := Policy{Name: "off", Schedule: &Schedule{Off: []Window{mustWindow(t, "Mon-Fri 18:00-09:00")}}}
	cases := []struct {
		pol             Policy
		stopped, saving float64
	}{
		{idle, 13, 730 * 13.0 / 24},
		{off, 15, 730 * 15.0 / 24},
	}
	for _, c := range cases {
		got := Replay(c.pol, res, []Trace{tr, quiet}, monthly)
		if len(got) != 1 || got[0].Resource.ID != "i-1" {
			t.Fatalf("Replay(%s) = %+v, want i-1 only (i-2 never reported, i-keep is exempt)", c.pol.Name, got)
		}
		r := got[0]
		if r.HeldHours != 24 || r.StoppedHours != c.stopped || r.GPUHours != c.stopped || !r.Priced || r.Monthly != gpucost.USD(int64(c.saving*1e9+0.5)) {
			t.Errorf("Replay(%s) = %+v, want 24 h held, %v h stopped, $%.2f a month", c.pol.Name, r, c.stopped, c.saving)
		}
	}
}

func mustWindow(t *testing.T, s string) Window {
	t.Helper()
	w, err := ParseWindow(s)
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// FuzzParseWindow: whatever a policies file holds, ParseWindow either refuses it or gives a
// window that At can step through without looping.
func FuzzParseWindow(f *testing.F) {
	for _, s := range []string{"Mon-Fri 20:00-08:00", "Sat,Sun 00:00-24:00", "daily 19:00-07:00", "Fri-Mon 23:59-00:01", "x", "Mon 24:00-01:00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		w, err := ParseWindow(s)
		if err != nil {
			return
		}
		if w.From < 0 || w.From >= 1440 || w.To < 0 || w.To > 1440 || w.From == w.To {
			t.Fatalf("ParseWindow(%q) = %+v", s, w)
		}
		sch := Schedule{Off: []Window{w}}
		sch.At(time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC))
	})
}

// TestExampleIdlePolicies: the example file the docs and gpucost enforce's help point to loads.
func TestExampleIdlePolicies(t *testing.T) {
	ps, err := ReadFile("../examples/policies/idle.yaml", nil)
	if err != nil {
		t.Fatalf("ReadFile(examples/policies/idle.yaml) = %v", err)
	}
	if len(ps) != 2 || ps[0].Idle == nil || ps[1].Schedule == nil {
		t.Errorf("examples/policies/idle.yaml = %+v, want an idle and an off-hours policy", ps)
	}
}

// TestIdleNotification: an idle policy's notify action alerts once a day with the rule and the
// machines it stops.
func TestIdleNotification(t *testing.T) {
	at := time.Date(2026, 11, 23, 3, 0, 0, 0, time.UTC)
	a := Action{Policy: "idle-notebooks", Action: ActNotify, Targets: []string{"ops-slack"}, DryRun: true,
		Evidence: Evidence{Rule: "idle: every GPU < 5% for 1h", Reason: "2 of 8 running resources in scope idle", Resources: []string{"i-1", "i-2"}}}
	m := Message(a, at)
	if m.Key != "policy:idle-notebooks:2026-11-23" || m.Subject != "Policy idle-notebooks triggered: idle: every GPU < 5% for 1h" ||
		!strings.Contains(m.Text, "would act (dry run) on 2 resources: i-1, i-2") {
		t.Errorf("Message = %+v", m)
	}
}

// TestReverseSageMaker: a SageMaker scale-to-zero is reversed by a scale-back carrying the
// recorded copy and instance counts; one logged without them is refused with what to run.
func TestReverseSageMaker(t *testing.T) {
	ref := &Ref{Kind: KindSageMaker, ID: "chat", Region: "us-east-1"}
	done := Action{Policy: "off", Action: ActScaleToZero, Resource: ref, Result: ResultDone, Size: 3, Components: []string{"a"},
		Copies: map[string]int{"a": 2}, Variants: map[string]int{"AllTraffic": 3}}
	got, err := Reverse(LogEntry{ID: 7, Action: done})
	if err != nil || got.Action != ActScaleBack || got.Undoes != 7 || !reflect.DeepEqual(got.Copies, done.Copies) || !reflect.DeepEqual(got.Variants, done.Variants) {
		t.Errorf("Reverse(scale-to-zero chat) = %+v, %v; want a scale-back with copies a=2 and AllTraffic=3", got, err)
	}
	if w, want := got.what(), "scale sagemaker-endpoint chat back to a 2 copies on AllTraffic 3 instances"; w != want {
		t.Errorf("what() = %q, want %q", w, want)
	}
	old := done
	old.Copies, old.Variants = nil, nil
	if _, err := Reverse(LogEntry{ID: 8, Action: old}); err == nil || !strings.Contains(err.Error(), "update-inference-component-runtime-config") {
		t.Errorf("Reverse(scale-to-zero without counts) = %v, want a refusal naming the command to run", err)
	}
}
