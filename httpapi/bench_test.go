package httpapi

import (
	"context"
	"fmt"
	"net/http"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/telemetry/wal"
)

// BenchmarkIngest measures ingest as a fleet of 10,000 GPUs sends it: 1,250 hosts with 8 GPUs,
// each host posting its 8 samples (gzip'd, as the agent does) once per 10 s period, over
// loopback into a real SQLite store through a Queue and the rollup writer, flushed every 5 s,
// as gpucost serve does. One op is one period of the whole fleet.
//
//   - realtime: the posts of a period spread evenly over 10 s of wall time (run with -benchtime=3x);
//   - flat-out: the posts of a period as fast as 16 clients can send them;
//   - burst10x: ten periods' posts (12,500) at once from 64 clients.
//
// Each reports p50 and p99 request latency and samples/s, and checks that the store's minute
// rollups hold every sample sent. Each runs without and with a write-ahead log (wal=on: a post
// is answered once its samples are fsync'd, as gpucost serve does), on the disk of the test's
// temporary directory.
func BenchmarkIngest(b *testing.B) {
	cases := []struct {
		name    string
		periods int // per op, sent together
		clients int
		paced   bool
	}{
		{"realtime", 1, 16, true},
		{"flat-out", 1, 16, false},
		{"burst10x", 10, 64, false},
	}
	for _, c := range cases {
		for _, withWAL := range []bool{false, true} {
			name := fmt.Sprintf("gpus=10000/%s/wal=%s", c.name, map[bool]string{false: "off", true: "on"}[withWAL])
			b.Run(name, func(b *testing.B) { benchIngest(b, 1250, 8, c.periods, c.clients, c.paced, withWAL) })
		}
	}
}

func benchIngest(b *testing.B, hosts, gpus, periods, clients int, paced, withWAL bool) {
	f := newFixture(b)
	queue := &Queue{Next: f.writer}
	if withWAL {
		f.writer.DropStored = true
		log, _, err := wal.Open(filepath.Join(b.TempDir(), "wal"), wal.Options{}, func(int64, []gpucost.Sample) error { return nil })
		if err != nil {
			b.Fatal(err)
		}
		defer log.Close()
		queue.WAL = log
	}
	f.srv.Log, f.srv.Ingest = nil, queue
	f.ts.Config.Handler = f.srv.Handler()
	ctx, stop := context.WithCancel(context.Background())
	var flushing sync.WaitGroup
	flushing.Go(func() { queue.Run(ctx) })
	flushing.Go(func() {
		t := time.NewTicker(5 * time.Second)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				if err := f.writer.Flush(ctx); err != nil && ctx.Err() == nil {
					b.Error(err)
				}
			}
		}
	})
	f.ts.Client().Transport.(*http.Transport).MaxIdleConnsPerHost = clients
	client := &Client{URL: f.ts.URL, Token: f.secrets[gpucost.RoleIngest], HTTP: f.ts.Client()}
	start := testNow.Add(-30 * 24 * time.Hour)
	templates := testSamples(hosts, gpus, 1, start)

	var (
		mu        sync.Mutex
		latencies []time.Duration
		sent      int
	)
	b.ResetTimer()
	began := time.Now()
	for op := range b.N {
		jobs := make(chan [2]int) // period, host
		var wg sync.WaitGroup
		for range clients {
			wg.Go(func() {
				batch := make([]gpucost.Sample, gpus)
				for j := range jobs {
					period, host := j[0], j[1]
					copy(batch, templates[host*gpus:(host+1)*gpus])
					for i := range batch {
						batch[i].Time = start.Add(time.Duration(period) * 10 * time.Second)
					}
					t0 := time.Now()
					resp, err := client.PostSamples(context.Background(), batch)
					took := time.Since(t0)
					if err != nil || resp.Accepted != gpus {
						b.Errorf("post: %+v, %v", resp, err)
						continue
					}
					mu.Lock()
					latencies = append(latencies, took)
					sent += resp.Accepted
					mu.Unlock()
				}
			})
		}
		opStart := time.Now()
		for p := range periods {
			for h := range hosts {
				if paced {
					due := opStart.Add(time.Duration(h) * 10 * time.Second / time.Duration(hosts))
					time.Sleep(time.Until(due))
				}
				jobs <- [2]int{op*periods + p, h}
			}
		}
		close(jobs)
		wg.Wait()
	}
	elapsed := time.Since(began)
	b.StopTimer()
	stop()
	flushing.Wait()
	if stored := f.storedSamples(b); stored != sent {
		b.Errorf("store holds %d samples; %d were sent", stored, sent)
	}
	slices.Sort(latencies)
	pct := func(p float64) float64 {
		return float64(latencies[int(p*float64(len(latencies)-1))].Microseconds()) / 1000
	}
	b.ReportMetric(pct(0.50), "p50-ms")
	b.ReportMetric(pct(0.99), "p99-ms")
	b.ReportMetric(float64(sent)/elapsed.Seconds(), "samples/s")
	b.ReportMetric(0, "ns/op")
	if testing.Verbose() {
		fmt.Printf("%s: %d posts, %d samples, all stored\n", b.Name(), len(latencies), sent)
	}
}
