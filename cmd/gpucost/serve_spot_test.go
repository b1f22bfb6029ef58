package main

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gpucost/gpucost/file"
	"github.com/gpucost/gpucost/notify"
	"github.com/gpucost/gpucost/server"
	"github.com/gpucost/gpucost/spot"
)

// burstEnd is when the spot burst writeSpotBurst stores ends.
var burstEnd = time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)

// writeSpotBurst stores a jobs store where job llm-finetune, on g5.12xlarge spot in us-east-1a,
// was interrupted three times in the 3 hours before burstEnd (runs of an hour each, interrupted
// at their end), and job eval ran 10 hours on g5.12xlarge in us-east-1c without interruption.
func writeSpotBurst(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	store, err := file.New(dir)
	if err != nil {
		t.Fatal(err)
	}
	put := func(job, run, zone string, from time.Time, hours float64, interrupted bool) {
		base := spot.Event{Job: job, Run: run, Host: run, Cloud: "aws", InstanceType: "g5.12xlarge", Region: "us-east-1", Zone: zone,
			Spot: true, Price: "2.10", OnDemand: "5.672"}
		end := from.Add(time.Duration(hours * float64(time.Hour)))
		start, exit := base, base
		start.Kind, start.Time = spot.EventStart, from
		code := spot.ExitDone
		evs := []spot.Event{start}
		if interrupted {
			n := base
			n.Kind, n.Time, n.NoticeKind = spot.EventNotice, end.Add(-2*time.Minute), "terminate"
			evs = append(evs, n)
			code = spot.ExitInterrupted
		}
		exit.Kind, exit.Time, exit.ExitCode = spot.EventExit, end, &code
		for _, ev := range append(evs, exit) {
			if err := spot.PutEvent(context.Background(), store, ev); err != nil {
				t.Fatal(err)
			}
		}
	}
	for i, run := range []string{"ft1", "ft2", "ft3"} {
		put("llm-finetune", run, "us-east-1a", burstEnd.Add(time.Duration(i-3)*time.Hour), 1, true)
	}
	put("eval", "ev1", "us-east-1c", burstEnd.Add(-10*time.Hour), 10, false)
	return dir
}

// spotHook is a webhook target that records the messages it is sent.
type spotHook struct {
	mu   sync.Mutex
	msgs []notify.Message
}

func (h *spotHook) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var m notify.Message
	body, _ := io.ReadAll(r.Body)
	json.Unmarshal(body, &m)
	h.mu.Lock()
	h.msgs = append(h.msgs, m)
	h.mu.Unlock()
}

func (h *spotHook) received() []notify.Message {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]notify.Message(nil), h.msgs...)
}

// spotServer is gpucost serve with --jobs-store, a webhook target and, when rules is not
// empty, --rules; its clock reads now, and checks counts the interruption checks run.
type spotServer struct {
	hook   *spotHook
	now    atomic.Pointer[time.Time]
	checks atomic.Int64
}

func (s *spotServer) setNow(t time.Time) { s.now.Store(&t) }

// serveSpot starts the server over a fresh store and returns it with a function that stops it.
func serveSpot(t *testing.T, jobs, rules string, now time.Time) (*spotServer, func()) {
	t.Helper()
	s := &spotServer{hook: &spotHook{}}
	s.setNow(now)
	hookSrv := httptest.NewServer(s.hook)
	dir := t.TempDir()
	e := liveEnv(filepath.Join(dir, "gpucost.db"), &lockedBuffer{}, func(string) string { return "" })
	e.now = func() time.Time { return *s.now.Load() }
	db, err := e.openDB(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	o := serveOptions{flush: 100 * time.Millisecond, checkEvery: 20 * time.Millisecond, viewsEvery: time.Minute, maxBill: 1 << 20,
		jobsStore: jobs, targets: map[string]notify.Target{"ops": &notify.Webhook{URL: hookSrv.URL, Secret: "k"}}}
	o.alerts.flags.file = rules
	if err := o.alerts.load(); err != nil {
		t.Fatal(err)
	}
	so, err := e.serverOptions(db, o)
	if err != nil {
		t.Fatal(err)
	}
	if so.SpotAlerts == nil {
		t.Fatal("serverOptions with --jobs-store and --targets set no interruption check")
	}
	check := so.SpotAlerts
	so.SpotAlerts = func(ctx context.Context, now time.Time) ([]notify.Message, error) {
		defer s.checks.Add(1)
		return check(ctx, now)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- server.Run(ctx, db, ln, so) }()
	return s, func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("serve: %v", err)
		}
		db.Close()
		hookSrv.Close()
	}
}

// waitChecks waits until n more interruption checks have run (one a second: the server's
// shortest --check-every); with n ≥ 2 one started after any change to the clock.
func (s *spotServer) waitChecks(t *testing.T, n int64) {
	t.Helper()
	target := s.checks.Load() + n
	waitFor(t, func() bool { return s.checks.Load() >= target }, "interruption checks")
}

// TestServeSpotInterruptionAlert runs gpucost serve over a jobs store with an interruption
// burst: one alert reaches the webhook, naming the pool, the job and the quiet pool to move
// to, however many checks see it, also two hours on, the same episode; a check 8 hours on, the
// window quiet, sends nothing more.
func TestServeSpotInterruptionAlert(t *testing.T) {
	jobs := writeSpotBurst(t)
	s, stop := serveSpot(t, jobs, "", burstEnd)
	defer stop()
	waitFor(t, func() bool { return len(s.hook.received()) >= 1 }, "the interruption alert")
	s.waitChecks(t, 2)
	s.setNow(burstEnd.Add(2 * time.Hour)) // the window still holds the 3 interruptions: the same episode
	s.waitChecks(t, 2)
	s.setNow(burstEnd.Add(8 * time.Hour)) // quiet
	s.waitChecks(t, 2)
	got := s.hook.received()
	if len(got) != 1 {
		t.Fatalf("the webhook got %d alerts over the checks; want 1: %+v", len(got), got)
	}
	m := got[0]
	wantKey := "spot-interruptions:aws g5.12xlarge us-east-1/us-east-1a:2026-11-20T09:58:00Z"
	if m.Key != wantKey || m.Kind != "spot.interruptions" {
		t.Errorf("alert key %q kind %q, want %q spot.interruptions", m.Key, m.Kind, wantKey)
	}
	for _, want := range []string{"had 3 in 3.0 instance-hours", "hitting llm-finetune", "Move to aws g5.12xlarge us-east-1/us-east-1c"} {
		if !strings.Contains(m.Text, want) {
			t.Errorf("alert text lacks %q:\n%s", want, m.Text)
		}
	}
}

// TestServeSpotQuiet: a window without the burst, and the burst under a rules file that asks
// for 4 interruptions, send nothing however many checks run.
func TestServeSpotQuiet(t *testing.T) {
	jobs := writeSpotBurst(t)
	rules := writeFile(t, t.TempDir(), "rules.yaml", "rules:\n  - name: spot_interruptions\n    min_interruptions: 4\n")
	for _, c := range []struct {
		name, rules string
		now         time.Time
	}{
		{"8 hours after the burst", "", burstEnd.Add(8 * time.Hour)},
		{"min_interruptions 4", rules, burstEnd},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, stop := serveSpot(t, jobs, c.rules, c.now)
			defer stop()
			s.waitChecks(t, 3)
			if got := s.hook.received(); len(got) != 0 {
				t.Errorf("the webhook got %d alerts; want none: %+v", len(got), got)
			}
		})
	}
}
