package demo

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/spot"
)

// spotRun is one machine of a demo spot job: from its start to its end, hours before the load's
// End, and whether a terminate notice ended it.
type spotRun struct {
	from, to    float64
	interrupted bool
}

// spotJob is a demo spot job: where its machines ran and each run.
type spotJob struct {
	name, instanceType, zone string
	price, onDemand          string
	runs                     []spotRun
}

// spotJobs are the demo's spot jobs, checkpointing every hour. llm-finetune on g5.12xlarge in
// us-east-1a is interrupted 6 times in 45.2 instance-hours, 3 of them in 5.2 instance-hours in
// the last 6 hours (0.58 an instance-hour, enough for the interruption alert); batch-embed on
// g6e.2xlarge in us-east-1b once in 40, and eval-sweep on g5.12xlarge in us-east-1c not at all
// in 24.
var spotJobs = []spotJob{
	{"llm-finetune", "g5.12xlarge", "us-east-1a", "2.20", "5.672", []spotRun{
		{72, 60, true}, {59, 41, true}, {40, 30, true}, {6, 4, true}, {3.9, 2.5, true}, {2.4, 1, true}, {0.9, 0.5, false}}},
	{"batch-embed", "g6e.2xlarge", "us-east-1b", "0.90", "2.242", []spotRun{
		{96, 76, true}, {75, 55, false}}},
	{"eval-sweep", "g5.12xlarge", "us-east-1c", "2.05", "5.672", []spotRun{
		{50, 38, false}, {30, 18, false}}},
}

// SpotJobEvents returns the events gpucost run would have stored for the demo's spot jobs in the
// days before the load's End: each run's start, a checkpoint sync every whole hour, a terminate
// notice and the command's stop 90 s later where it was interrupted, and the runner's exit.
func (l Load) SpotJobEvents() []spot.Event {
	var out []spot.Event
	for _, j := range spotJobs {
		for i, r := range j.runs {
			out = append(out, l.runEvents(j, i, r)...)
		}
	}
	return out
}

func (l Load) runEvents(j spotJob, i int, r spotRun) []spot.Event {
	at := func(h float64) time.Time { return l.End.Add(-time.Duration(h * float64(time.Hour))).UTC() }
	host := fmt.Sprintf("%s-%d", j.name, i+1)
	base := spot.Event{Job: j.name, Run: host + "@" + at(r.from).Format(time.RFC3339), Host: host, Cloud: "aws",
		InstanceType: j.instanceType, Region: "us-east-1", Zone: j.zone, Spot: true, Price: j.price, OnDemand: j.onDemand, Currency: "USD"}
	ev := func(kind string, t time.Time) spot.Event {
		e := base
		e.Kind, e.Time = kind, t
		return e
	}
	start := ev(spot.EventStart, at(r.from))
	start.Attempt = 1
	evs := []spot.Event{start}
	end := at(r.to)
	for t := start.Time.Add(time.Hour); t.Before(end); t = t.Add(time.Hour) {
		s := ev(spot.EventSync, t.Add(40*time.Second))
		s.Reason, s.Files, s.Uploaded, s.Bytes, s.Seconds = "periodic", 3, 3, 12<<30, 40
		ct := t
		s.CheckpointTime, s.Checkpoint = &ct, "step-"+t.Format("20060102T1504")
		evs = append(evs, s)
	}
	code := spot.ExitDone
	if r.interrupted {
		n := ev(spot.EventNotice, end.Add(-2*time.Minute))
		deadline := end
		n.Source, n.NoticeKind, n.Deadline = "imds", "terminate", &deadline
		stop := ev(spot.EventStop, n.Time.Add(90*time.Second))
		evs = append(evs, n, stop)
		code = spot.ExitInterrupted
	}
	exit := ev(spot.EventExit, end)
	exit.ExitCode = &code
	return append(evs, exit)
}

// spotWriters is how many events WriteSpotJobs stores at once: a file store syncs each one
// to disk, and the syncs overlap.
const spotWriters = 16

// WriteSpotJobs stores the demo's spot job events in store, as gpucost run does, several at a
// time, and returns how many it wrote.
func (l Load) WriteSpotJobs(ctx context.Context, store gpucost.ObjectStore) (int, error) {
	evs := l.SpotJobEvents()
	next := make(chan spot.Event)
	errs := make([]error, spotWriters)
	var wg sync.WaitGroup
	for i := range spotWriters {
		wg.Go(func() {
			for ev := range next {
				if errs[i] == nil {
					errs[i] = spot.PutEvent(ctx, store, ev)
				}
			}
		})
	}
	for _, ev := range evs {
		next <- ev
	}
	close(next)
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return 0, err
		}
	}
	return len(evs), nil
}
