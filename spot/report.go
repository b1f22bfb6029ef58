package spot

import (
	"slices"
	"time"

	"github.com/gpucost/gpucost"
)

// JobReport sums up a job's life over all the machines it ran on, from its events.
type JobReport struct {
	Job    string `json:"job"`
	Status string `json:"status"` // done, interrupted, failed, sync-failed, vanished (no exit recorded) or stopped
	Runs   int    `json:"runs"`   // runner starts, one per machine (or per resubmission)

	Wall       time.Duration `json:"wall_ns"`       // first event to last
	Billable   time.Duration `json:"billable_ns"`   // machine time: each run's start to its exit
	Running    time.Duration `json:"running_ns"`    // the command's own running time
	Productive time.Duration `json:"productive_ns"` // Running less LostWork
	LostWork   time.Duration `json:"lost_work_ns"`  // from the last checkpoint before each interruption or crash to it
	SyncTime   time.Duration `json:"sync_ns"`       // time spent in checkpoint syncs (they overlap with running)
	NoticeTime time.Duration `json:"notice_ns"`     // from termination notices to the runner's exit

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
	ckpt := checkpointTimes(events)
	var odPrice gpucost.Money
	for _, run := range groupRuns(events) {
		rep.Runs++
		s := summarizeRun(run, ckpt)
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
	rep.Productive = max(rep.Running-rep.LostWork, 0)
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
	billable, running, lost, syncTime, noticeTime time.Duration
	restarts, interruptions, crashes, syncs       int
	syncFailures                                  int
	syncBytes                                     int64
	status                                        string
	price, onDemand                               gpucost.Money
	hasPrice, hasOnDemand                         bool
}

func (rep *JobReport) add(s runSummary) {
	rep.Billable += s.billable
	rep.Running += s.running
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

// checkpointTimes lists, in event order, when each stored checkpoint was stored and when the
// command wrote it.
func checkpointTimes(events []Event) []Event {
	var out []Event
	for _, ev := range events {
		if ev.Kind == EventSync && ev.CheckpointTime != nil && ev.Error == "" {
			out = append(out, ev)
		}
	}
	return out
}

// savedBy returns the write time of the newest checkpoint stored by time t.
func savedBy(ckpt []Event, t time.Time) (time.Time, bool) {
	var at time.Time
	for _, ev := range ckpt {
		if ev.Time.After(t) {
			break
		}
		if ev.CheckpointTime.After(at) {
			at = *ev.CheckpointTime
		}
	}
	return at, !at.IsZero()
}

// lostWork is the work between the command's (re)start at from and an interruption at t that
// no checkpoint stored by settled holds.
func lostWork(ckpt []Event, from, t, settled time.Time) time.Duration {
	saved, ok := savedBy(ckpt, settled)
	if !ok || saved.Before(from) {
		saved = from
	}
	return max(t.Sub(saved), 0)
}

// summarizeRun reads one runner process's events.
func summarizeRun(run []Event, ckpt []Event) runSummary {
	var s runSummary
	start, last := run[0].Time, run[len(run)-1].Time
	s.billable = last.Sub(start)
	s.status = "vanished"
	var childFrom, noticeAt time.Time
	running := false
	stop := func(t time.Time) {
		if running {
			s.running += t.Sub(childFrom)
			running = false
		}
	}
	for _, ev := range run {
		if p, ok, od, okOD := ev.Prices(); ok || okOD {
			s.price, s.hasPrice = p, s.hasPrice || ok
			s.onDemand, s.hasOnDemand = od, s.hasOnDemand || okOD
		}
		switch ev.Kind {
		case EventStart, EventRestart:
			childFrom, running = ev.Time, true
			if ev.Kind == EventRestart {
				s.restarts++
			}
		case EventCrash:
			s.crashes++
			s.lost += lostWork(ckpt, childFrom, ev.Time, nextSettled(run, ev.Time))
			stop(ev.Time)
		case EventNotice:
			if ev.NoticeKind == "terminate" && noticeAt.IsZero() {
				noticeAt = ev.Time
				s.interruptions++
				s.lost += lostWork(ckpt, childFrom, ev.Time, last)
				stop(ev.Time)
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
			stop(ev.Time)
			s.status = exitStatusName(ev.ExitCode)
		}
	}
	if !noticeAt.IsZero() {
		s.noticeTime = last.Sub(noticeAt)
	}
	if running { // no exit: the machine vanished, or the run is still going
		s.interruptions++
		s.lost += lostWork(ckpt, childFrom, last, last)
		stop(last)
	}
	return s
}

// nextSettled returns when the handling of a crash at t ended: the next restart or exit, whose
// sync has stored what the crashed command left.
func nextSettled(run []Event, t time.Time) time.Time {
	for _, ev := range run {
		if ev.Time.After(t) && (ev.Kind == EventRestart || ev.Kind == EventExit) {
			return ev.Time
		}
	}
	return run[len(run)-1].Time
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
