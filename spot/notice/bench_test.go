package notice_test

import (
	"context"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/gpucost/gpucost/spot/notice"
	"github.com/gpucost/gpucost/spot/notice/noticetest"
)

// BenchmarkNoticeLatency measures the time from a fake endpoint starting to report a notice to
// the Notice arriving on the channel, at the runner's 1 s poll and the 5 s default. The notice is
// fired at a random moment of the poll cycle, so the mean is the latency a job sees. Target:
// under 1 s at a 1 s poll. Run with -benchtime=Nx: each iteration takes about one poll.
func BenchmarkNoticeLatency(b *testing.B) {
	for _, poll := range []time.Duration{time.Second, 5 * time.Second} {
		b.Run("aws/poll="+poll.String(), func(b *testing.B) {
			benchLatency(b, poll, func(tb testing.TB) (notice.Watcher, func()) {
				imds := noticetest.NewAWS(tb)
				return &notice.AWS{Endpoint: imds.URL, Poll: poll}, func() { imds.IssueSpotAction("terminate", time.Now().Add(2*time.Minute)) }
			})
		})
		b.Run("azure/poll="+poll.String(), func(b *testing.B) {
			benchLatency(b, poll, func(tb testing.TB) (notice.Watcher, func()) {
				se := noticetest.NewAzure(tb, "vm")
				return &notice.Azure{URL: se.URL, VMName: "vm", Poll: poll}, func() { se.Preempt() }
			})
		})
	}
	b.Run("gcp/long-poll", func(b *testing.B) {
		benchLatency(b, time.Second, func(tb testing.TB) (notice.Watcher, func()) {
			md := noticetest.NewGCP(tb)
			return &notice.GCP{Host: md.Host, Poll: 5 * time.Second}, md.Preempt
		})
	})
}

// benchLatency starts a fresh fake and watcher per iteration, fires the notice at a random
// point of the first poll cycle and reports the mean and worst latency.
func benchLatency(b *testing.B, poll time.Duration, setup func(testing.TB) (notice.Watcher, func())) {
	var total, worst time.Duration
	n := 0
	for b.Loop() {
		n++
		b.StopTimer()
		w, fire := setup(b)
		ctx, cancel := context.WithCancel(context.Background())
		out := make(chan notice.Notice, 1)
		go w.Watch(ctx, out)
		time.Sleep(100*time.Millisecond + rand.N(poll))
		b.StartTimer()
		start := time.Now()
		fire()
		<-out
		lat := time.Since(start)
		cancel()
		total += lat
		worst = max(worst, lat)
	}
	b.ReportMetric(total.Seconds()*1000/float64(n), "ms-mean")
	b.ReportMetric(worst.Seconds()*1000, "ms-max")
}
