package wal

import (
	"fmt"
	"sync"
	"testing"
)

// BenchmarkAppend appends posts of 8 samples (one host's GPUs, as an agent sends them) from
// 1 and 64 concurrent writers, each append waiting for its fsync, on the disk of the test's
// temporary directory. It reports samples/s and how many appends shared each fsync (group
// commit); one op is one append.
func BenchmarkAppend(b *testing.B) {
	for _, writers := range []int{1, 16, 64} {
		b.Run(fmt.Sprintf("writers=%d", writers), func(b *testing.B) {
			l, _, err := Open(b.TempDir(), Options{}, nil)
			if err != nil {
				b.Fatal(err)
			}
			defer l.Close()
			post := samples("node", 8)
			b.SetBytes(int64(len(appendRecord(nil, post))))
			var wg sync.WaitGroup
			next := make(chan struct{})
			b.ResetTimer()
			for range writers {
				wg.Go(func() {
					for range next {
						if _, err := l.Append(post); err != nil {
							b.Error(err)
						}
					}
				})
			}
			for range b.N {
				next <- struct{}{}
			}
			close(next)
			wg.Wait()
			b.StopTimer()
			b.ReportMetric(float64(8*b.N)/b.Elapsed().Seconds(), "samples/s")
			b.ReportMetric(float64(b.N)/float64(max(l.commits, 1)), "appends/fsync")
		})
	}
}
