package notice_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gpucost/gpucost/spot/notice"
)

func readTestdata(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestParseDocumented reads the documents as the providers' documentation shows them.
func TestParseDocumented(t *testing.T) {
	a, err := notice.ParseInstanceAction(readTestdata(t, "instance-action.json"))
	if want := (notice.InstanceAction{Action: "terminate", Time: time.Date(2017, 9, 18, 8, 22, 0, 0, time.UTC)}); err != nil || a != want {
		t.Errorf("ParseInstanceAction(instance-action.json) = %+v, %v; want %+v", a, err, want)
	}
	r, err := notice.ParseRebalance(readTestdata(t, "rebalance.json"))
	if want := time.Date(2020, 10, 27, 8, 22, 0, 0, time.UTC); err != nil || !r.Equal(want) {
		t.Errorf("ParseRebalance(rebalance.json) = %v, %v; want %v", r, err, want)
	}
	doc, err := notice.ParseScheduledEvents(readTestdata(t, "scheduledevents.json"))
	if err != nil || doc.DocumentIncarnation != 2 || len(doc.Events) != 2 {
		t.Fatalf("ParseScheduledEvents(scheduledevents.json) = %+v, %v; want incarnation 2 with 2 events", doc, err)
	}
	ev := doc.Events[0]
	if ev.EventId != "C7061BAC-AFDC-4513-B24B-AA5F13A16123" || ev.EventType != "Preempt" || len(ev.Resources) != 2 ||
		ev.NotBefore != "Mon, 11 Apr 2022 22:26:58 GMT" || ev.DurationInSeconds != -1 || ev.EventSource != "Platform" {
		t.Errorf("first event = %+v, want the documented Preempt", ev)
	}
	empty, err := notice.ParseScheduledEvents(readTestdata(t, "scheduledevents-empty.json"))
	if err != nil || len(empty.Events) != 0 {
		t.Errorf("ParseScheduledEvents(empty) = %+v, %v; want no events", empty, err)
	}
}

func TestParseErrors(t *testing.T) {
	for _, tc := range []struct {
		name, body, want string
		parse            func([]byte) error
	}{
		{"action truncated", `{"action":"terminate"`, "malformed instance-action JSON", parseAction},
		{"action unknown", `{"action":"reboot","time":"2017-09-18T08:22:00Z"}`, `action "reboot"`, parseAction},
		{"action time", `{"action":"stop","time":"18/09/2017"}`, `time "18/09/2017" is not an RFC 3339 time`, parseAction},
		{"rebalance empty", `{}`, `noticeTime "" is not an RFC 3339 time`, parseRebalance},
		{"rebalance array", `[]`, "malformed rebalance JSON", parseRebalance},
		{"events wrong type", `{"Events":{}}`, "malformed scheduled events JSON", parseEvents},
		{"event without id", `{"Events":[{"EventType":"Preempt"}]}`, "Events[0]: EventId and EventType are required", parseEvents},
		{"preempted lower case", "true", `"true", not TRUE or FALSE`, parsePreempted},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.parse([]byte(tc.body))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("parse(%q) = %v, want an error containing %q", tc.body, err, tc.want)
			}
		})
	}
}

func parseAction(b []byte) error    { _, err := notice.ParseInstanceAction(b); return err }
func parseRebalance(b []byte) error { _, err := notice.ParseRebalance(b); return err }
func parseEvents(b []byte) error    { _, err := notice.ParseScheduledEvents(b); return err }
func parsePreempted(b []byte) error { _, err := notice.ParsePreempted(b); return err }

func FuzzParseInstanceAction(f *testing.F) {
	f.Add(readTestdata(f, "instance-action.json"))
	f.Add([]byte(`{"action":"hibernate","time":"2026-01-01T00:00:00+02:00"}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		a, err := notice.ParseInstanceAction(b)
		if err == nil && (a.Time.Location() != time.UTC || a.Action == "") {
			t.Errorf("ParseInstanceAction(%q) = %+v: accepted without a UTC time and an action", b, a)
		}
	})
}

func FuzzParseRebalance(f *testing.F) {
	f.Add(readTestdata(f, "rebalance.json"))
	f.Fuzz(func(t *testing.T, b []byte) {
		if r, err := notice.ParseRebalance(b); err == nil && r.IsZero() && !strings.Contains(string(b), "0001") {
			t.Errorf("ParseRebalance(%q) = zero time without error", b)
		}
	})
}

func FuzzParseScheduledEvents(f *testing.F) {
	f.Add(readTestdata(f, "scheduledevents.json"))
	f.Add(readTestdata(f, "scheduledevents-empty.json"))
	f.Fuzz(func(t *testing.T, b []byte) {
		doc, err := notice.ParseScheduledEvents(b)
		if err != nil {
			return
		}
		for i, ev := range doc.Events {
			if ev.EventId == "" || ev.EventType == "" {
				t.Errorf("ParseScheduledEvents(%q): event %d %+v accepted without id or type", b, i, ev)
			}
		}
	})
}

func FuzzParsePreempted(f *testing.F) {
	f.Add([]byte("TRUE"))
	f.Add([]byte("FALSE\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		p, err := notice.ParsePreempted(b)
		if err == nil && p != (strings.TrimSpace(string(b)) == "TRUE") {
			t.Errorf("ParsePreempted(%q) = %v", b, p)
		}
	})
}
