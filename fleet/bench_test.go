package fleet

import (
	"context"
	"fmt"
	"testing"

	"github.com/gpucost/gpucost"
)

// BenchmarkBuild builds the snapshot of a week of a 1,000-GPU fleet: 168,000 hour rollups
// priced by 7,000 daily bill lines.
func BenchmarkBuild(b *testing.B) {
	f := &fakeStore{}
	for h := range 1000 {
		host := fmt.Sprintf("h%04d", h)
		for d := range 7 {
			f.line(host, day1.AddDate(0, 0, d), 24, 240e9, gpucost.Labels{"team": "t"})
		}
		f.hours(host, gpucost.Labels{"namespace": fmt.Sprint("ns", h%10)}, day1, 7*24, float64(h%100))
	}
	p := Period{Start: day1, End: day1.AddDate(0, 0, 7)}
	ns, _ := ParseDimension("namespace")
	b.ResetTimer()
	for b.Loop() {
		s, err := Build(context.Background(), f, fakeCatalog{}, Options{Period: p})
		if err != nil {
			b.Fatal(err)
		}
		if g := s.Group(ns, nil); len(g) != 10 {
			b.Fatalf("%d groups", len(g))
		}
	}
}
