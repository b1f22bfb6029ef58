package wal

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
)

var t0 = time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC)

// samples returns n samples of host's GPUs, one second apart, the i-th with utilisation i.
func samples(host string, n int) []gpucost.Sample {
	out := make([]gpucost.Sample, n)
	for i := range out {
		s := gpucost.NewSample(t0.Add(time.Duration(i)*time.Second), gpucost.GPU{
			UUID: fmt.Sprintf("GPU-%s-%d", host, i%4), Host: host, Model: "NVIDIA H100 80GB HBM3", Index: i % 4})
		s.Util, s.MemUsedMiB, s.MemTotalMiB = float64(i), 1024, 81559
		if i%2 == 0 {
			s.Labels = gpucost.Labels{"namespace": "ml", "pod": fmt.Sprintf("train-%d", i)}
		}
		out[i] = s
	}
	return out
}

type replayed struct {
	pos     []int64
	samples [][]gpucost.Sample
}

func (r *replayed) add(pos int64, s []gpucost.Sample) error {
	r.pos, r.samples = append(r.pos, pos), append(r.samples, s)
	return nil
}

func open(t testing.TB, dir string, opts Options) (*Log, *replayed, ReplayStats) {
	t.Helper()
	var r replayed
	l, st, err := Open(dir, opts, r.add)
	if err != nil {
		t.Fatalf("Open(%s): %v", dir, err)
	}
	return l, &r, st
}

// equalSamples compares samples as the writer reads them: NaN equals NaN.
func equalSamples(a, b []gpucost.Sample) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		x, y := a[i], b[i]
		if !x.Time.Equal(y.Time) || x.GPU != y.GPU || !reflect.DeepEqual(x.Labels, y.Labels) {
			return false
		}
		for _, p := range [][2]float64{{x.Util, y.Util}, {x.MemUsedMiB, y.MemUsedMiB}, {x.MemTotalMiB, y.MemTotalMiB},
			{x.PowerW, y.PowerW}, {x.TempC, y.TempC}, {x.SMActive, y.SMActive}, {x.SMOccupancy, y.SMOccupancy},
			{x.GrEngineActive, y.GrEngineActive}} {
			if math.Float64bits(p[0]) != math.Float64bits(p[1]) {
				return false
			}
		}
	}
	return true
}

func TestLogReplaysWhatWasAppended(t *testing.T) {
	dir := t.TempDir()
	l, r, _ := open(t, dir, Options{SegmentBytes: 4096})
	if len(r.samples) != 0 {
		t.Fatalf("Open of an empty directory replayed %d records", len(r.samples))
	}
	var want [][]gpucost.Sample
	var pos []int64
	for i := range 20 {
		batch := samples(fmt.Sprint("node-", i), 1+i)
		p, err := l.Append(batch)
		if err != nil {
			t.Fatal(err)
		}
		want, pos = append(want, batch), append(pos, p)
	}
	l.Close()
	_, r, st := open(t, dir, Options{SegmentBytes: 4096})
	if st.Segments < 2 || st.Records != 20 || st.TornBytes != 0 {
		t.Errorf("Open after 20 appends to 4 KiB segments: %+v; want 20 records in several segments, nothing torn", st)
	}
	if !reflect.DeepEqual(r.pos, pos) {
		t.Errorf("replayed positions %v; want %v", r.pos, pos)
	}
	for i := range want {
		if i >= len(r.samples) || !equalSamples(r.samples[i], want[i]) {
			t.Fatalf("record %d replayed as %+v; want %+v", i, r.samples[i], want[i])
		}
	}
}

// TestLogDropsATornTail cuts the last record short at every length, and damages it in other
// ways a crash can: Open must replay exactly the records before it, never a misread one, cut
// the tail off, and append after it.
func TestLogDropsATornTail(t *testing.T) {
	whole := filepath.Join(t.TempDir(), "whole")
	l, _, _ := open(t, whole, Options{})
	first, second := samples("a", 3), samples("b", 5)
	l.Append(first)
	p2, _ := l.Append(second)
	l.Close()
	seg := filepath.Join(whole, segment{}.name())
	data, err := os.ReadFile(seg)
	if err != nil {
		t.Fatal(err)
	}
	flip := func(i int) []byte { d := append([]byte(nil), data...); d[i] ^= 0x10; return d }
	cases := map[string][]byte{
		"zeros after":          append(append([]byte(nil), data[:p2]...), make([]byte, 64)...),
		"length flipped":       flip(int(p2)),
		"checksum flipped":     flip(int(p2) + 5),
		"payload flipped":      flip(len(data) - 3),
		"huge length":          append(append([]byte(nil), data[:p2]...), 0xff, 0xff, 0xff, 0x7f, 1, 2, 3, 4, 5),
		"garbage after record": append(append([]byte(nil), data...), 0x03, 0, 0, 0, 9, 9),
	}
	for n := int(p2); n < len(data); n++ {
		cases[fmt.Sprintf("cut at %d of %d", n, len(data))] = data[:n]
	}
	for name, body := range cases {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, segment{}.name()), body, 0o600); err != nil {
				t.Fatal(err)
			}
			l, r, st := open(t, dir, Options{})
			wantRecords, wantTorn := 1, int64(len(body))-p2
			if name == "garbage after record" {
				wantRecords, wantTorn = 2, 6
			}
			if len(r.samples) != wantRecords || !equalSamples(r.samples[0], first) || st.TornBytes != wantTorn {
				t.Fatalf("Open replayed %d records (%+v), torn %d bytes; want %d intact and %d torn", len(r.samples), st, st.TornBytes, wantRecords, wantTorn)
			}
			third := samples("c", 2)
			if _, err := l.Append(third); err != nil {
				t.Fatal(err)
			}
			l.Close()
			_, r, st = open(t, dir, Options{})
			if len(r.samples) != wantRecords+1 || !equalSamples(r.samples[wantRecords], third) || st.TornBytes != 0 {
				t.Errorf("after appending past the cut tail: %d records, %+v; want %d, the last the appended one, nothing torn", len(r.samples), st, wantRecords+1)
			}
		})
	}
}

func TestLogGroupCommitsConcurrentAppends(t *testing.T) {
	dir := t.TempDir()
	l, _, _ := open(t, dir, Options{SegmentBytes: 64 << 10})
	const writers, each = 16, 50
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			for i := range each {
				if _, err := l.Append(samples(fmt.Sprintf("w%d-%d", w, i), 4)); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	l.Close()
	_, r, st := open(t, dir, Options{SegmentBytes: 64 << 10})
	if st.Records != writers*each || st.Samples != writers*each*4 || st.TornBytes != 0 {
		t.Errorf("after %d concurrent appends: %+v; want all replayed", writers*each, st)
	}
	for i := 1; i < len(r.pos); i++ {
		if r.pos[i] <= r.pos[i-1] {
			t.Fatalf("positions out of order: %v", r.pos)
		}
	}
}

func TestLogRefusesWhenFullAndReleases(t *testing.T) {
	dir := t.TempDir()
	one := samples("a", 10)
	recLen := int64(len(appendRecord(nil, one)))
	l, _, _ := open(t, dir, Options{MaxBytes: 3 * recLen, SegmentBytes: 2 * recLen})
	var pos []int64
	for range 3 {
		p, err := l.Append(one)
		if err != nil {
			t.Fatal(err)
		}
		pos = append(pos, p)
	}
	if _, err := l.Append(one); gpucost.ErrorCode(err) != gpucost.EUnavailable {
		t.Fatalf("Append to a full log = %v; want an unavailable error (HTTP 503)", err)
	}
	// Releasing the first record frees nothing: its segment holds the second too.
	if err := l.Release(pos[1]); err != nil || l.Size() != 3*recLen {
		t.Errorf("Release(%d) = %v, size %d; want nil and all %d bytes kept", pos[1], err, l.Size(), 3*recLen)
	}
	if err := l.Release(pos[2]); err != nil || l.Size() != recLen {
		t.Errorf("Release(%d) = %v, size %d; want the first segment removed, %d bytes left", pos[2], err, l.Size(), recLen)
	}
	if _, err := l.Append(one); err != nil {
		t.Errorf("Append after a release: %v", err)
	}
	if err := l.Release(l.End()); err != nil || l.Size() != 0 {
		t.Errorf("Release(End) = %v, size %d; want nothing left", err, l.Size())
	}
	l.Close()
	_, r, st := open(t, dir, Options{})
	if len(r.samples) != 0 || st.TornBytes != 0 {
		t.Errorf("Open after releasing everything replayed %d records, %+v; want none", len(r.samples), st)
	}
}

func TestLogRefusesASecondUser(t *testing.T) {
	dir := t.TempDir()
	l, _, _ := open(t, dir, Options{})
	defer l.Close()
	if _, _, err := Open(dir, Options{}, (&replayed{}).add); gpucost.ErrorCode(err) != gpucost.EInvalid {
		t.Errorf("Open of a log in use = %v; want an invalid error naming --wal", err)
	}
}

// FuzzOpen opens a log whose one segment holds a valid record followed by arbitrary bytes, as
// a damaged disk might leave it: Open must not fail or panic, must replay the valid record,
// and must replay from the rest only records that decode, cutting the remainder off.
func FuzzOpen(f *testing.F) {
	valid := appendRecord(nil, samples("a", 3))
	f.Add([]byte{})
	f.Add(valid)
	f.Add(valid[:len(valid)-1])
	f.Add(make([]byte, 40))
	f.Fuzz(func(t *testing.T, tail []byte) {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, segment{}.name()), append(append([]byte(nil), valid...), tail...), 0o600); err != nil {
			t.Fatal(err)
		}
		var r replayed
		l, st, err := Open(dir, Options{}, r.add)
		if err != nil {
			// A tail that passes its checksum but does not decode is refused, naming the record.
			if gpucost.ErrorCode(err) != gpucost.EInvalid {
				t.Fatalf("Open: %v", err)
			}
			return
		}
		defer l.Close()
		if len(r.samples) == 0 || !equalSamples(r.samples[0], samples("a", 3)) {
			t.Fatalf("Open replayed %d records; want the valid one first", len(r.samples))
		}
		info, err := os.Stat(filepath.Join(dir, segment{}.name()))
		if err != nil {
			t.Fatal(err)
		}
		if got := info.Size() + st.TornBytes; got != int64(len(valid)+len(tail)) {
			t.Errorf("segment is %d bytes after cutting %d torn; want %d in all", info.Size(), st.TornBytes, len(valid)+len(tail))
		}
	})
}
