package notice_test

import (
	"strings"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/spot/notice"
	"github.com/gpucost/gpucost/spot/notice/noticetest"
)

func TestAzurePreemptAndAck(t *testing.T) {
	se := noticetest.NewAzure(t, "gpu-worker-7")
	az := &notice.Azure{URL: se.URL, Poll: fastPoll} // VMName from compute/name
	out, _ := watching(t, az)
	none(t, out, 30*time.Millisecond)
	id := se.Preempt()
	n := next(t, out)
	if n.Kind != notice.Terminate || n.Source != "azure" || n.ID != id {
		t.Fatalf("after Preempt: notice %+v, want terminate from azure with ID %s", n, id)
	}
	if d := n.Deadline.Sub(time.Now()); d < 25*time.Second || d > 31*time.Second {
		t.Errorf("deadline %v is %v away, want NotBefore, 30 s after the event was scheduled", n.Deadline, d)
	}
	none(t, out, 30*time.Millisecond)
	if got := se.Acks(); len(got) != 0 {
		t.Fatalf("acknowledged %q before Ack was called", got)
	}
	if err := az.Ack(t.Context(), n.ID); err != nil {
		t.Fatalf("Ack(%s) = %v", n.ID, err)
	}
	want := `{"StartRequests":[{"EventId":"` + id + `"}]}`
	if got := se.Acks(); len(got) != 1 || got[0] != want {
		t.Errorf("ack bodies = %q, want [%s]", got, want)
	}
	none(t, out, 30*time.Millisecond) // the started event is not a new notice
}

func TestAzureOnlyThisVM(t *testing.T) {
	se := noticetest.NewAzure(t, "worker-1")
	out, _ := watching(t, &notice.Azure{URL: se.URL, VMName: "Worker-1", Poll: fastPoll})
	se.ScheduleEvent(notice.ScheduledEvent{EventType: "Preempt", Resources: []string{"worker-2"}, NotBefore: "Mon, 19 Sep 2016 18:29:47 GMT"})
	se.ScheduleEvent(notice.ScheduledEvent{EventType: "Reboot", Resources: []string{"worker-1"}, NotBefore: "Mon, 19 Sep 2016 18:29:47 GMT"})
	none(t, out, 50*time.Millisecond)
	id := se.ScheduleEvent(notice.ScheduledEvent{EventType: "Terminate", Resources: []string{"worker-0", "worker-1"},
		EventStatus: "Scheduled", NotBefore: "Mon, 19 Sep 2016 18:29:47 GMT", EventSource: "User", Description: "deleted"})
	n := next(t, out)
	wantDeadline := time.Date(2016, 9, 19, 18, 29, 47, 0, time.UTC)
	if n.ID != id || !n.Deadline.Equal(wantDeadline) || !strings.HasPrefix(n.Detail, "Terminate event "+id) {
		t.Errorf("Terminate for this VM (name in another case): notice %+v, want ID %s deadline %v", n, id, wantDeadline)
	}
	none(t, out, 30*time.Millisecond)
}

func TestAzureNoNotBefore(t *testing.T) {
	se := noticetest.NewAzure(t, "vm")
	clk := newClock(t0)
	out, _ := watching(t, &notice.Azure{URL: se.URL, Poll: fastPoll, Now: clk.Now})
	se.ScheduleEvent(notice.ScheduledEvent{EventType: "Preempt", Resources: []string{"vm"}, EventStatus: "Started"})
	if n := next(t, out); !n.Deadline.Equal(t0.Add(30 * time.Second)) {
		t.Errorf("Preempt without NotBefore: deadline %v, want Seen + 30 s = %v", n.Deadline, t0.Add(30*time.Second))
	}
}

func TestAzureMalformedReportedOnce(t *testing.T) {
	se := noticetest.NewAzure(t, "vm")
	log, logs := newLog()
	out, _ := watching(t, &notice.Azure{URL: se.URL, VMName: "vm", Poll: fastPoll, Log: log})
	se.SetDocument(`{"DocumentIncarnation": 3, "Events": [{"EventId": 7}]}`)
	none(t, out, 50*time.Millisecond)
	if got := logs.count("malformed scheduled events JSON"); got != 1 {
		t.Errorf("malformed document logged %d times, want once; log:\n%s", got, logs)
	}
	se.SetDocument("")
	se.Preempt()
	if n := next(t, out); n.Kind != notice.Terminate {
		t.Errorf("after the document was fixed: notice %+v, want terminate", n)
	}
}

func TestAzureAckErrors(t *testing.T) {
	se := noticetest.NewAzure(t, "vm")
	az := &notice.Azure{URL: se.URL}
	if err := az.Ack(t.Context(), ""); gpucost.ErrorCode(err) != gpucost.EInvalid {
		t.Errorf("Ack(\"\") = %v, want an invalid-input error", err)
	}
	se.Close()
	if err := az.Ack(t.Context(), "x"); gpucost.ErrorCode(err) != gpucost.EUnavailable {
		t.Errorf("Ack to a closed endpoint = %v, want an unavailable error", err)
	}
	bad := &notice.Azure{URL: "169.254.169.254/metadata/scheduledevents"}
	if err := bad.Watch(t.Context(), make(chan notice.Notice)); gpucost.ErrorCode(err) != gpucost.EInvalid {
		t.Errorf("Watch with URL %q = %v, want an invalid-input error", bad.URL, err)
	}
}

func TestMergedAck(t *testing.T) {
	se := noticetest.NewAzure(t, "vm")
	m := notice.Merge(&notice.Signal{}, &notice.Azure{URL: se.URL, VMName: "vm"})
	a, ok := m.(notice.Acker)
	if !ok {
		t.Fatal("Merge(…) is not an Acker")
	}
	if err := a.Ack(t.Context(), "e1"); err != nil {
		t.Fatalf("merged Ack = %v", err)
	}
	if got := se.Acks(); len(got) != 1 || got[0] != `{"StartRequests":[{"EventId":"e1"}]}` {
		t.Errorf("ack bodies through Merge = %q", got)
	}
}
