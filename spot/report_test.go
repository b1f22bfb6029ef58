package spot_test

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"math"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/file"
	"github.com/gpucost/gpucost/spot"
)

// twoMachineJob is a job interrupted on one machine by a notice and finished on a second after a
// crash:
//
//	A 0:00 start · 0:10 sync (written 0:09) · 0:15 notice · 0:15:20 sync (written 0:15:10) · 0:15:30 exit 75
//	B 0:20 start · 0:30 crash · 0:30:01 sync (written 0:25) · 0:30:02 restart · 0:40 exit 0
func twoMachineJob() []spot.Event {
	t0 := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	at := func(d time.Duration) time.Time { return t0.Add(d) }
	ptr := func(d time.Duration) *time.Time { t := at(d); return &t }
	code := func(c int) *int { return &c }
	a := func(ev spot.Event) spot.Event {
		ev.Job, ev.Run, ev.Host, ev.Price, ev.OnDemand, ev.Spot = "j", "a", "a", "0.4", "1.212", true
		return ev
	}
	b := func(ev spot.Event) spot.Event { ev = a(ev); ev.Run, ev.Host = "b", "b"; return ev }
	m := time.Minute
	return []spot.Event{
		a(spot.Event{Kind: spot.EventStart, Time: at(0)}),
		a(spot.Event{Kind: spot.EventSync, Time: at(10 * m), Seconds: 2, Bytes: 1000, CheckpointTime: ptr(9 * m), Manifest: "x"}),
		a(spot.Event{Kind: spot.EventNotice, NoticeKind: "terminate", Time: at(15 * m)}),
		a(spot.Event{Kind: spot.EventSync, Time: at(15*m + 20*time.Second), Seconds: 3, Bytes: 500, CheckpointTime: ptr(15*m + 10*time.Second), Manifest: "y"}),
		a(spot.Event{Kind: spot.EventExit, Time: at(15*m + 30*time.Second), ExitCode: code(spot.ExitInterrupted)}),
		b(spot.Event{Kind: spot.EventStart, Time: at(20 * m)}),
		b(spot.Event{Kind: spot.EventCrash, Time: at(30 * m), Status: code(1)}),
		b(spot.Event{Kind: spot.EventSync, Time: at(30*m + time.Second), Seconds: 1, Bytes: 200, CheckpointTime: ptr(25 * m), Manifest: "z"}),
		b(spot.Event{Kind: spot.EventRestart, Time: at(30*m + 2*time.Second)}),
		b(spot.Event{Kind: spot.EventExit, Time: at(40 * m), ExitCode: code(spot.ExitDone)}),
	}
}

func TestSummarize(t *testing.T) {
	got := spot.Summarize("j", twoMachineJob())
	checks := []struct {
		name      string
		got, want any
	}{
		{"Status", got.Status, "done"},
		{"Runs", got.Runs, 2},
		{"Wall", got.Wall, 40 * time.Minute},
		{"Billable", got.Billable, 35*time.Minute + 30*time.Second},
		{"Running", got.Running, 34*time.Minute + 58*time.Second},
		{"LostWork", got.LostWork, 5 * time.Minute}, // the crash at 0:30 back to the checkpoint written at 0:25
		{"Productive", got.Productive, 29*time.Minute + 58*time.Second},
		{"SyncTime", got.SyncTime, 6 * time.Second},
		{"NoticeTime", got.NoticeTime, 30 * time.Second},
		{"Restarts", got.Restarts, 1},
		{"Interruptions", got.Interruptions, 1},
		{"Crashes", got.Crashes, 1},
		{"SyncBytes", got.SyncBytes, int64(1700)},
		// 15.5 min and 20 min at $0.40/h: $0.103333333 + $0.133333333.
		{"Cost", got.Cost, gpucost.USD(236_666_666)},
		// 1,798 productive seconds at $1.212/h.
		{"OnDemand", got.OnDemand, gpucost.USD(605_326_667)},
		{"Savings", got.Savings, gpucost.USD(368_660_001)},
		{"SavingsPct", math.Round(got.SavingsPct*1e9) / 1e9, 11.25}, // 1 − 35.5/40
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("Summarize(two machines).%s = %v, want %v", c.name, c.got, c.want)
		}
	}
}

func TestSummarizeVanishedRun(t *testing.T) {
	evs := twoMachineJob()[:2] // machine A lost without notice after its first sync
	got := spot.Summarize("j", evs)
	if got.Status != "vanished" || got.Interruptions != 1 || got.LostWork != time.Minute {
		t.Errorf("Summarize(vanished) = status %q, %d interruptions, lost %v; want vanished, 1, 1m (sync at 0:10 held work to 0:09)",
			got.Status, got.Interruptions, got.LostWork)
	}
	if none := spot.Summarize("j", nil); none.Runs != 0 || none.Priced {
		t.Errorf("Summarize(no events) = %+v", none)
	}
}

func TestEventsRoundTrip(t *testing.T) {
	s, err := file.New(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	evs := twoMachineJob()
	for _, ev := range evs {
		if err := spot.PutEvent(ctx, s, ev); err != nil {
			t.Fatal(err)
		}
	}
	objectPut(t, s, "j/events/0000000000000000001-bad.json", []byte(`{"job":"j"`))
	objectPut(t, s, "other/events/0000000000000000001-h.json", []byte(`{"job":"other","kind":"start","time":"2025-03-01T00:00:00Z"}`))
	got, skipped, err := spot.ReadEvents(ctx, s, "j", slog.New(slog.DiscardHandler))
	if err != nil || skipped != 1 || len(got) != len(evs) {
		t.Fatalf("ReadEvents = %d events, %d skipped, %v; want %d, 1 skipped", len(got), skipped, err, len(evs))
	}
	if a, b := spot.Summarize("j", got), spot.Summarize("j", evs); a != b {
		t.Errorf("report after a store round trip = %+v, want %+v", a, b)
	}
	jobs, err := spot.Jobs(ctx, s)
	if err != nil || len(jobs) != 2 || jobs[0] != "j" || jobs[1] != "other" {
		t.Errorf("Jobs = %q, %v; want [j other]", jobs, err)
	}
}

func objectPut(t *testing.T, s gpucost.ObjectStore, key string, b []byte) {
	t.Helper()
	if err := s.Put(context.Background(), key, bytes.NewReader(b), int64(len(b))); err != nil {
		t.Fatal(err)
	}
}

func FuzzParseEvent(f *testing.F) {
	for _, ev := range twoMachineJob() {
		b, _ := json.Marshal(ev)
		f.Add(b)
	}
	f.Add([]byte(`{"job":"j","kind":"sync","time":"2025-03-01T00:00:00Z","seconds":1e308,"bytes":-1}`))
	f.Add([]byte(`{"job":"j","kind":"exit","time":"0001-01-01T00:00:00Z"}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		ev, err := spot.ParseEvent(b)
		if err != nil {
			return
		}
		if ev.Job == "" || ev.Kind == "" || ev.Time.IsZero() {
			t.Fatalf("ParseEvent(%q) = %+v without job, kind or time", b, ev)
		}
		// Any parsed events: no panic, and the job accounting's invariants hold.
		for _, evs := range [][]spot.Event{{ev, ev}, append(twoMachineJob(), ev), append(noticeStopCrashJob(), ev)} {
			rep := spot.Summarize(ev.Job, evs)
			if rep.Productive < 0 || rep.LostWork < 0 || rep.Productive+rep.LostWork != rep.Running {
				t.Fatalf("Summarize(… %q) = productive %v, lost %v, running %v; want both ≥ 0, summing to running", b, rep.Productive, rep.LostWork, rep.Running)
			}
		}
	})
}

// noticeStopCrashJob is three runs that old event logs summed wrongly:
//
//	a 0:00 start · 0:05 sync (written 0:04) · 0:10 notice · 0:10:07 stop · 0:10:08 sync (written 0:10:06) · 0:10:10 exit 75
//	b 0:20 start · 0:22 sync (written 0:21) · 0:25 crash · 0:25:01 notice in the restart backoff · 0:25:03 exit 75
//	c 0:30 start · 0:31 sync (written 0:33 by a clock ahead of the runner's) · 0:35 crash · 0:35:01 exit 70
func noticeStopCrashJob() []spot.Event {
	t0 := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	at := func(d time.Duration) time.Time { return t0.Add(d) }
	ptr := func(d time.Duration) *time.Time { t := at(d); return &t }
	code := func(c int) *int { return &c }
	in := func(run string, ev spot.Event) spot.Event {
		ev.Job, ev.Run, ev.Host = "j", run, run
		return ev
	}
	m, s := time.Minute, time.Second
	return []spot.Event{
		in("a", spot.Event{Kind: spot.EventStart, Time: at(0)}),
		in("a", spot.Event{Kind: spot.EventSync, Time: at(5 * m), CheckpointTime: ptr(4 * m), Manifest: "1"}),
		in("a", spot.Event{Kind: spot.EventNotice, NoticeKind: "terminate", Time: at(10 * m)}),
		in("a", spot.Event{Kind: spot.EventStop, Time: at(10*m + 7*s), Status: code(75)}),
		in("a", spot.Event{Kind: spot.EventSync, Time: at(10*m + 8*s), CheckpointTime: ptr(10*m + 6*s), Manifest: "2"}),
		in("a", spot.Event{Kind: spot.EventExit, Time: at(10*m + 10*s), ExitCode: code(spot.ExitInterrupted)}),
		in("b", spot.Event{Kind: spot.EventStart, Time: at(20 * m)}),
		in("b", spot.Event{Kind: spot.EventSync, Time: at(22 * m), CheckpointTime: ptr(21 * m), Manifest: "3"}),
		in("b", spot.Event{Kind: spot.EventCrash, Time: at(25 * m), Status: code(1)}),
		in("b", spot.Event{Kind: spot.EventNotice, NoticeKind: "terminate", Time: at(25*m + s)}),
		in("b", spot.Event{Kind: spot.EventExit, Time: at(25*m + 3*s), ExitCode: code(spot.ExitInterrupted)}),
		in("c", spot.Event{Kind: spot.EventStart, Time: at(30 * m)}),
		in("c", spot.Event{Kind: spot.EventSync, Time: at(31 * m), CheckpointTime: ptr(33 * m), Manifest: "4"}),
		in("c", spot.Event{Kind: spot.EventCrash, Time: at(35 * m), Status: code(1)}),
		in("c", spot.Event{Kind: spot.EventExit, Time: at(35*m + s), ExitCode: code(spot.ExitFailed)}),
	}
}

// TestSummarizeAccounting checks docs/architecture.md "Job accounting" on noticeStopCrashJob:
// a's command ran until its stop, and saved a checkpoint on the notice, so it lost nothing; b's
// notice came while no command ran, so it loses nothing beyond the crash; c's
// checkpoint cannot have been written after the sync that stored it.
func TestSummarizeAccounting(t *testing.T) {
	got := spot.Summarize("j", noticeStopCrashJob())
	m, s := time.Minute, time.Second
	for _, c := range []struct {
		name      string
		got, want any
	}{
		{"Running", got.Running, 10*m + 7*s + 5*m + 5*m},
		{"Productive", got.Productive, 10*m + 7*s + 1*m + 1*m},
		{"LostWork", got.LostWork, 4*m + 4*m},
		{"Interruptions", got.Interruptions, 2},
		{"Crashes", got.Crashes, 2},
		{"Status", got.Status, "failed"},
	} {
		if c.got != c.want {
			t.Errorf("Summarize(notice, stop, crash).%s = %v, want %v", c.name, c.got, c.want)
		}
	}
}
