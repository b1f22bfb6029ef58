package spot

import (
	"encoding/json"
	"slices"
	"time"

	"github.com/gpucost/gpucost"
)

// JobReport sums up a job's life over all the machines it ran on, from its events.
type JobReport struct {
	Job    string `json:"job"`
	Status string `json:"status"` // done, interrupted, failed, sync-failed, vanished (no exit recorded) or stopped
	Runs   int    `json:"runs"`   // runner starts, one per machine (or per resubmission)

	// The times are defined in docs/architecture.md "Job accounting"; Running = Productive +
	// LostWork.
	// JSON writes them in seconds (MarshalJSON).
	Wall       time.Duration `json:"-"` // first event to last
	Billable   time.Duration `json:"-"` // machine time: each run's start to its exit
	Running    time.Duration `json:"-"` // the command's own running time, to its exit after a notice
	Productive time.Duration `json:"-"` // training held by stored checkpoints
	LostWork   time.Duration `json:"-"` // from the last stored checkpoint to each interruption or crash
	SyncTime   time.Duration `json:"-"` // time spent in checkpoint syncs (they overlap with running)
	NoticeTime time.Duration `json:"-"` // from termination notices to the runner's exit

	Restarts      int   `json:"restarts"`
	Interruptions int   `json:"interruptions"` // termination notices and runs that vanished without an exit
	Crashes       int   `json:"crashes"`
	Syncs         int   `json:"syncs"`
	SyncBytes     int64 `json:"sync_bytes"`
	SyncFailures  int   `json:"sync_failures"`

	// Cost at the prices the runs recorded; Priced is false when a run had no price, and then
	// Cost covers only the priced runs.
	Cost   gpucost.Money `json:"cost"`
	Priced bool          `json:"priced"`
	// OnDemand is the productive time at the on-demand price of the job's instance type.
	OnDemand    gpucost.Money `json:"on_demand"`
	HasOnDemand bool          `json:"has_on_demand"`
	// Savings is OnDemand − Cost; SavingsPct is SageMaker's managed-spot figure, 1 − billable/total
	// time, with the job's wall time as the total.
	Savings    gpucost.Money `json:"savings"`
	SavingsPct float64       `json:"savings_pct"`
}

// Summarize builds the report of one job from its events in time order. It reads no clock: a run
// without an exit event ends at its last event.
func Summarize(job string, events []Event) JobReport {
	rep := JobReport{Job: job, Priced: true}
	if len(events) == 0 {
		rep.Priced = false
		return rep
	}
	events = slices.Clone(events)
	slices.SortStableFunc(events, func(a, b Event) int { return a.Time.Compare(b.Time) })
	rep.Wall = events[len(events)-1].Time.Sub(events[0].Time)
	var odPrice gpucost.Money
	for _, run := range groupRuns(events) {
		rep.Runs++
		s := summarizeRun(run)
		rep.add(s)
		if s.hasPrice {
			rep.Cost = addMoney(rep.Cost, s.price.MulFloat(s.billable.Hours()))
		} else {
			rep.Priced = false
		}
		if s.hasOnDemand && !rep.HasOnDemand {
			odPrice, rep.HasOnDemand = s.onDemand, true
		}
		rep.Status = s.status
	}
	if rep.HasOnDemand {
		rep.OnDemand = odPrice.MulFloat(rep.Productive.Hours())
		if rep.Cost.Currency == "" || rep.Cost.Currency == rep.OnDemand.Currency {
			rep.Savings = rep.OnDemand.Sub(rep.Cost)
		}
	}
	if rep.Wall > 0 {
		rep.SavingsPct = 100 * (1 - rep.Billable.Seconds()/rep.Wall.Seconds())
	}
	return rep
}

func addMoney(a, b gpucost.Money) gpucost.Money {
	if a.Currency == "" && a.Nanos == 0 {
		return b
	}
	return a.Add(b)
}

// runSummary is one run's share of a JobReport.
type runSummary struct {
	billable, running, productive, lost     time.Duration
	syncTime, noticeTime                    time.Duration
	restarts, interruptions, crashes, syncs int
	syncFailures                            int
	syncBytes                               int64
	status                                  string
	price, onDemand                         gpucost.Money
	hasPrice, hasOnDemand                   bool
}

func (rep *JobReport) add(s runSummary) {
	rep.Billable += s.billable
	rep.Running += s.running
	rep.Productive += s.productive
	rep.LostWork += s.lost
	rep.SyncTime += s.syncTime
	rep.NoticeTime += s.noticeTime
	rep.Restarts += s.restarts
	rep.Interruptions += s.interruptions
	rep.Crashes += s.crashes
	rep.Syncs += s.syncs
	rep.SyncFailures += s.syncFailures
	rep.SyncBytes += s.syncBytes
}

// groupRuns splits events by run, runs in the order they started.
func groupRuns(events []Event) [][]Event {
	index := map[string]int{}
	var runs [][]Event
	for _, ev := range events {
		i, ok := index[ev.Run]
		if !ok {
			i = len(runs)
			index[ev.Run] = i
			runs = append(runs, nil)
		}
		runs[i] = append(runs[i], ev)
	}
	return runs
}

// segment is one start of the command within a run: from its start or restart to its end.
type segment struct {
	from, end time.Time
	notice    time.Time // the terminate notice that ended it; zero if none did
	done      bool      // the command finished and its final checkpoint was stored
}

// lastStored returns the write time of the newest checkpoint seg's command wrote that a sync of
// the run stored, zero if none: written from its start to until, the next segment's start.
func (seg segment) lastStored(run []Event, until time.Time) time.Time {
	var saved time.Time
	for _, ev := range run {
		if ev.Kind != EventSync || ev.Error != "" || ev.CheckpointTime == nil {
			continue
		}
		at := *ev.CheckpointTime
		if at.After(ev.Time) { // a checkpoint is written before it is stored; another clock says otherwise
			at = ev.Time
		}
		if !at.Before(seg.from) && (until.IsZero() || at.Before(until)) && at.After(saved) {
			saved = at
		}
	}
	return saved
}

// productive returns how much of seg's running time is kept: all of it when the command
// finished or saved a checkpoint on the notice that was stored; else up to the write time of its
// last stored checkpoint.
func (seg segment) productive(run []Event, until time.Time) time.Duration {
	running := max(seg.end.Sub(seg.from), 0)
	saved := seg.lastStored(run, until)
	switch {
	case seg.done, !seg.notice.IsZero() && !saved.Before(seg.notice):
		return running
	case saved.IsZero():
		return 0
	}
	return min(max(saved.Sub(seg.from), 0), running)
}

// summarizeRun reads one runner process's events: docs/architecture.md "Job accounting".
func summarizeRun(run []Event) runSummary {
	var s runSummary
	start, last := run[0].Time, run[len(run)-1].Time
	s.billable = last.Sub(start)
	s.status = "vanished"
	var segs []segment
	var open *segment // the command's current start, until it ends
	var noticeAt time.Time
	end := func(t time.Time, done bool) {
		if open != nil {
			open.end, open.done = t, done
			segs = append(segs, *open)
			open = nil
		}
	}
	for i, ev := range run {
		if p, ok, od, okOD := ev.Prices(); ok || okOD {
			s.price, s.hasPrice = p, s.hasPrice || ok
			s.onDemand, s.hasOnDemand = od, s.hasOnDemand || okOD
		}
		switch ev.Kind {
		case EventStart, EventRestart:
			end(ev.Time, false)
			open = &segment{from: ev.Time}
			if ev.Kind == EventRestart {
				s.restarts++
			}
		case EventCrash:
			s.crashes++
			end(ev.Time, false)
		case EventNotice:
			if ev.NoticeKind == "terminate" && noticeAt.IsZero() {
				noticeAt = ev.Time
				s.interruptions++
				if open != nil {
					open.notice = ev.Time
					end(stopTime(run[i:], ev.Time), false)
				}
			}
		case EventSync:
			s.syncTime += time.Duration(ev.Seconds * float64(time.Second))
			if ev.Error != "" {
				s.syncFailures++
			} else {
				s.syncs++
				s.syncBytes += ev.Bytes
			}
		case EventExit:
			end(ev.Time, ev.ExitCode != nil && *ev.ExitCode == ExitDone)
			s.status = exitStatusName(ev.ExitCode)
		}
	}
	if open != nil { // no exit: the machine vanished, or the run is still going
		s.interruptions++
		end(last, false)
	}
	if !noticeAt.IsZero() {
		s.noticeTime = last.Sub(noticeAt)
	}
	s.account(run, segs)
	return s
}

// account adds the running, productive and lost time of the command's starts segs to s.
func (s *runSummary) account(run []Event, segs []segment) {
	for i, seg := range segs {
		var until time.Time
		if i+1 < len(segs) {
			until = segs[i+1].from
		}
		running, kept := max(seg.end.Sub(seg.from), 0), seg.productive(run, until)
		s.running += running
		s.productive += kept
		s.lost += running - kept
	}
}

// stopTime returns when the command signalled for the notice at the head of evs exited: the
// stop event's time, or, in the events of runners that did not record one, the notice's.
func stopTime(evs []Event, notice time.Time) time.Time {
	for _, ev := range evs {
		switch ev.Kind {
		case EventStop:
			return ev.Time
		case EventStart, EventRestart, EventExit:
			return notice
		}
	}
	return notice
}

func exitStatusName(code *int) string {
	if code == nil {
		return "stopped"
	}
	switch *code {
	case ExitDone:
		return "done"
	case ExitInterrupted:
		return "interrupted"
	case ExitFailed:
		return "failed"
	case ExitSyncFailed:
		return "sync-failed"
	}
	return "stopped"
}

// jobTimes are a JobReport's times as JSON writes them: seconds, under keys that end _s
// (docs/architecture.md "Output conventions").
type jobTimes struct {
	Wall       gpucost.Duration `json:"wall_s"`
	Billable   gpucost.Duration `json:"billable_s"`
	Running    gpucost.Duration `json:"running_s"`
	Productive gpucost.Duration `json:"productive_s"`
	LostWork   gpucost.Duration `json:"lost_work_s"`
	SyncTime   gpucost.Duration `json:"sync_s"`
	NoticeTime gpucost.Duration `json:"notice_s"`
}

// MarshalJSON writes the report with its times in seconds.
func (r JobReport) MarshalJSON() ([]byte, error) {
	type plain JobReport
	return json.Marshal(struct {
		plain
		jobTimes
	}{plain(r), jobTimes{gpucost.Duration(r.Wall), gpucost.Duration(r.Billable), gpucost.Duration(r.Running),
		gpucost.Duration(r.Productive), gpucost.Duration(r.LostWork), gpucost.Duration(r.SyncTime), gpucost.Duration(r.NoticeTime)}})
}

// UnmarshalJSON reads what MarshalJSON writes.
func (r *JobReport) UnmarshalJSON(b []byte) error {
	type plain JobReport
	var v struct {
		plain
		jobTimes
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	*r = JobReport(v.plain)
	t := v.jobTimes
	r.Wall, r.Billable, r.Running, r.Productive = t.Wall.D(), t.Billable.D(), t.Running.D(), t.Productive.D()
	r.LostWork, r.SyncTime, r.NoticeTime = t.LostWork.D(), t.SyncTime.D(), t.NoticeTime.D()
	return nil
}
