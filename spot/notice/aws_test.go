package notice_test

import (
	"testing"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/spot/notice"
	"github.com/gpucost/gpucost/spot/notice/noticetest"
)

var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

func TestAWSRebalanceThenTerminate(t *testing.T) {
	imds := noticetest.NewAWS(t)
	clk := newClock(t0)
	out, _ := watching(t, &notice.AWS{Endpoint: imds.URL, Poll: fastPoll, Now: clk.Now})

	none(t, out, 30*time.Millisecond) // 404 on both paths: nothing to say
	imds.IssueRebalance(t0)
	n := next(t, out)
	if n.Kind != notice.Rebalance || n.Source != "aws" || !n.Deadline.IsZero() || !n.Seen.Equal(t0) {
		t.Errorf("after IssueRebalance: notice %+v, want a rebalance from aws seen at %v, no deadline", n, t0)
	}
	at := t0.Add(2 * time.Minute)
	imds.IssueSpotAction("terminate", at)
	n = next(t, out)
	if n.Kind != notice.Terminate || !n.Deadline.Equal(at) || n.Detail != "spot instance-action: terminate at 2026-03-01T12:02:00Z" {
		t.Errorf("after IssueSpotAction: notice %+v, want terminate with deadline %v", n, at)
	}
	none(t, out, 30*time.Millisecond) // each notice once, though both stay up
	imds.IssueSpotAction("stop", at.Add(time.Minute))
	if n = next(t, out); n.Kind != notice.Terminate || n.Detail != "spot instance-action: stop at 2026-03-01T12:03:00Z" {
		t.Errorf("after a changed instance-action: notice %+v, want a new terminate for the stop", n)
	}
	if got := imds.TokenRequests(); got != 1 {
		t.Errorf("token requests = %d, want 1 (one 6 h token serves every poll)", got)
	}
}

func TestAWSTokenRefreshBeforeExpiry(t *testing.T) {
	imds := noticetest.NewAWS(t)
	clk := newClock(t0)
	watching(t, &notice.AWS{Endpoint: imds.URL, Poll: fastPoll, Now: clk.Now})
	eventually(t, "first token", func() bool { return imds.TokenRequests() == 1 })
	clk.Advance(5 * time.Hour) // under 90% of 6 h: keep the token
	time.Sleep(30 * time.Millisecond)
	if got := imds.TokenRequests(); got != 1 {
		t.Fatalf("token requests after 5 h = %d, want 1", got)
	}
	clk.Advance(30 * time.Minute) // 5.5 h: past 90%, refresh before it lapses
	eventually(t, "token refreshed at 5.5 h", func() bool { return imds.TokenRequests() == 2 })
	if got := imds.Unauthorized(); got != 0 {
		t.Errorf("401s = %d, want 0: the token is refreshed before it expires", got)
	}
}

func TestAWSReauthenticatesAfter401(t *testing.T) {
	imds := noticetest.NewAWS(t)
	out, _ := watching(t, &notice.AWS{Endpoint: imds.URL, Poll: fastPoll})
	eventually(t, "first token", func() bool { return imds.TokenRequests() == 1 })
	imds.ExpireTokens()
	eventually(t, "new token after 401", func() bool { return imds.TokenRequests() == 2 })
	if imds.Unauthorized() == 0 {
		t.Error("no 401 was served, so re-authentication was not tested")
	}
	imds.IssueSpotAction("terminate", t0)
	if n := next(t, out); n.Kind != notice.Terminate {
		t.Errorf("after re-authentication: notice %+v, want terminate", n)
	}
}

func TestAWSMalformedReportedOnce(t *testing.T) {
	imds := noticetest.NewAWS(t)
	log, logs := newLog()
	out, _ := watching(t, &notice.AWS{Endpoint: imds.URL, Poll: fastPoll, Log: log})
	imds.SetInstanceAction(`{"action": "terminate", "time": `)
	none(t, out, 50*time.Millisecond)
	if got := logs.count("malformed instance-action JSON"); got != 1 {
		t.Errorf("malformed document logged %d times in 10 polls, want once; log:\n%s", got, logs)
	}
	imds.SetInstanceAction(`{"action": "reboot", "time": "2017-09-18T08:22:00Z"}`)
	eventually(t, "bad action logged", func() bool { return logs.count(`action \"reboot\" is not terminate`) == 1 })
	imds.IssueSpotAction("hibernate", t0)
	if n := next(t, out); n.Kind != notice.Terminate || !n.Deadline.Equal(t0) {
		t.Errorf("after the document was fixed: notice %+v, want terminate at %v", n, t0)
	}
}

func TestAWSUnreachableKeepsWatching(t *testing.T) {
	imds := noticetest.NewAWS(t)
	url := imds.URL
	imds.Close()
	log, logs := newLog()
	out, errc := watching(t, &notice.AWS{Endpoint: url, Poll: fastPoll, Log: log})
	none(t, out, 50*time.Millisecond)
	select {
	case err := <-errc:
		t.Fatalf("Watch returned %v for an unreachable endpoint; want it to keep polling", err)
	default:
	}
	if got := logs.count("get IMDSv2 token"); got != 1 {
		t.Errorf("unreachable endpoint logged %d times, want once; log:\n%s", got, logs)
	}
}

func TestAWSBadSettings(t *testing.T) {
	for _, tc := range []struct {
		name string
		w    notice.AWS
	}{
		{"endpoint without scheme", notice.AWS{Endpoint: "169.254.169.254"}},
		{"endpoint not a URL", notice.AWS{Endpoint: "http://[::1"}},
		{"TTL over 6 h", notice.AWS{TokenTTL: 7 * time.Hour}},
		{"TTL under 1 s", notice.AWS{TokenTTL: time.Millisecond}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.w.Watch(t.Context(), make(chan notice.Notice))
			if gpucost.ErrorCode(err) != gpucost.EInvalid {
				t.Errorf("Watch(%+v) = %v, want an invalid-input error", tc.w, err)
			}
		})
	}
}
