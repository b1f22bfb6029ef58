package notice_test

import (
	"testing"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/spot/notice"
	"github.com/gpucost/gpucost/spot/notice/noticetest"
)

func TestGCPLongPoll(t *testing.T) {
	md := noticetest.NewGCP(t)
	clk := newClock(t0)
	// Poll is an hour: only a held wait_for_change request can deliver the change in time.
	out, _ := watching(t, &notice.GCP{Host: md.Host, Poll: time.Hour, LongPoll: 30 * time.Second, Now: clk.Now})
	eventually(t, "a held long poll", func() bool { _, lp := md.Requests(); return lp >= 1 })
	time.Sleep(20 * time.Millisecond) // let the long poll reach the server's hold
	md.Preempt()
	n := next(t, out)
	want := notice.Notice{Kind: notice.Terminate, Source: "gcp", Seen: t0, Deadline: t0.Add(30 * time.Second), Detail: "instance/preempted is TRUE"}
	if n != want {
		t.Errorf("after Preempt: notice %+v, want %+v", n, want)
	}
	none(t, out, 30*time.Millisecond)
	if all, lp := md.Requests(); all != 3 || lp != 2 {
		t.Errorf("requests = %d (%d long polls), want 3 (2): one plain read, the held poll, the next held poll", all, lp)
	}
}

func TestGCPAlreadyPreempted(t *testing.T) {
	md := noticetest.NewGCP(t)
	md.Preempt()
	out, _ := watching(t, &notice.GCP{Host: md.Host, Poll: time.Hour})
	if n := next(t, out); n.Kind != notice.Terminate || n.Deadline.Sub(n.Seen) != 30*time.Second {
		t.Errorf("preempted before Watch: notice %+v, want terminate with 30 s", n)
	}
}

func TestGCPFallsBackToPolling(t *testing.T) {
	md := noticetest.NewGCP(t)
	md.IgnoreWait(true)
	out, _ := watching(t, &notice.GCP{Host: md.Host, Poll: fastPoll, LongPoll: 30 * time.Second})
	eventually(t, "several polls", func() bool { all, _ := md.Requests(); return all >= 5 })
	md.Preempt()
	if n := next(t, out); n.Kind != notice.Terminate {
		t.Errorf("polling fallback: notice %+v, want terminate", n)
	}
	all, _ := md.Requests()
	time.Sleep(50 * time.Millisecond)
	after, _ := md.Requests()
	if after-all > 20 {
		t.Errorf("%d requests in 50 ms at a 5 ms poll: the watcher spins on a server that does not hold", after-all)
	}
}

func TestGCPRecoversFromFailures(t *testing.T) {
	md := noticetest.NewGCP(t)
	md.Fail(3)
	log, logs := newLog()
	out, _ := watching(t, &notice.GCP{Host: md.Host, Poll: fastPoll, LongPoll: 30 * time.Second, Log: log})
	eventually(t, "a long poll after the failures", func() bool { _, lp := md.Requests(); return lp >= 1 })
	time.Sleep(20 * time.Millisecond)
	md.Preempt()
	if n := next(t, out); n.Kind != notice.Terminate {
		t.Errorf("after 503s: notice %+v, want terminate", n)
	}
	if got := logs.count("HTTP 503"); got != 1 {
		t.Errorf("3 failed requests logged %d times, want once; log:\n%s", got, logs)
	}
}

func TestGCPMalformedThenPreempted(t *testing.T) {
	md := noticetest.NewGCP(t)
	log, logs := newLog()
	out, _ := watching(t, &notice.GCP{Host: md.Host, Poll: fastPoll, LongPoll: -1, Log: log})
	md.SetPreempted("<html>proxy error</html>")
	none(t, out, 50*time.Millisecond)
	if got := logs.count("not TRUE or FALSE"); got != 1 {
		t.Errorf("malformed value logged %d times, want once; log:\n%s", got, logs)
	}
	md.SetPreempted("TRUE\n")
	if n := next(t, out); n.Kind != notice.Terminate {
		t.Errorf("after TRUE: notice %+v, want terminate", n)
	}
	if _, lp := md.Requests(); lp != 0 {
		t.Errorf("LongPoll < 0 still sent %d wait_for_change requests", lp)
	}
}

func TestGCPBadHost(t *testing.T) {
	for _, host := range []string{"http://metadata.google.internal", "metadata/x", "[::1"} {
		err := (&notice.GCP{Host: host}).Watch(t.Context(), make(chan notice.Notice))
		if gpucost.ErrorCode(err) != gpucost.EInvalid {
			t.Errorf("GCP{Host: %q}.Watch = %v, want an invalid-input error", host, err)
		}
	}
}
