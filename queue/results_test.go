package queue

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// putSegment stores outputs, by item id, as one segment written at at, or fails the test.
func putSegment(t testing.TB, s gpucost.ObjectStore, at time.Time, ids []string, outputs []string) string {
	t.Helper()
	tasks := make([]*task, len(ids))
	outs := make([][]byte, len(ids))
	for i, id := range ids {
		tasks[i], outs[i] = &task{item: Item{ID: id}}, []byte(outputs[i])
	}
	data := encodeSegment(segmentHeader{Queue: "q", Worker: "test", Time: at}, tasks, outs)
	key := segmentKey(at)
	if err := s.Put(context.Background(), key, bytes.NewReader(data), int64(len(data))); err != nil {
		t.Fatalf("Put(%s): %v", key, err)
	}
	return key
}

func readAll(t testing.TB, s gpucost.ObjectStore) ([]Result, ResultStats) {
	t.Helper()
	var got []Result
	st, err := ReadResults(context.Background(), s, func(r Result) error {
		got = append(got, r)
		return nil
	})
	if err != nil {
		t.Fatalf("ReadResults: %v", err)
	}
	return got, st
}

// A segment gives back every result as the command wrote it: text, bytes that are not UTF-8,
// an empty output, a line break alone.
func TestSegmentRoundTrip(t *testing.T) {
	store := newStore(t)
	ids := []string{"text", "binary", "empty", "newline", "42"}
	outputs := []string{"{\"caption\":\"a <cat> & \\\"dog\\\"\"}\n", "\x89PNG\r\n\x1a\n\xff\x00", "", "\n", "é\u2028\n"}
	key := putSegment(t, store, time.Date(2026, 11, 27, 16, 0, 0, 5, time.UTC), ids, outputs)
	if want := SegmentPrefix + "2026-11-27/160000.000000005-"; !strings.HasPrefix(key, want) || !strings.HasSuffix(key, ".jsonl") {
		t.Errorf("segmentKey = %q, want %q…, .jsonl", key, want)
	}
	got, st := readAll(t, store)
	if len(got) != len(ids) || st.Items != len(ids) || st.Segments != 1 || st.Duplicates != 0 {
		t.Fatalf("ReadResults = %d results, %+v; want %d from 1 segment", len(got), st, len(ids))
	}
	for i, r := range got {
		if r.ID != ids[i] || string(r.Data) != outputs[i] || r.Key != key {
			t.Errorf("result %d = %q %q from %s, want %q %q from %s", i, r.ID, r.Data, r.Key, ids[i], outputs[i], key)
		}
	}
}

// Readers keep an item's first committed result: a result stored one object per item (before
// segments) first, then the segments in the order they were written; anything else in the
// store is not a result.
func TestReadResultsFirstCommitted(t *testing.T) {
	store := newStore(t)
	ctx := context.Background()
	t0 := time.Date(2026, 11, 27, 16, 0, 0, 0, time.UTC)
	if err := store.Put(ctx, ResultKey("a"), strings.NewReader("a old\n"), 6); err != nil {
		t.Fatal(err)
	}
	if err := store.Put(ctx, "notes/readme.txt", strings.NewReader("not a result"), 12); err != nil {
		t.Fatal(err)
	}
	// Written out of key order, as two workers would; the earlier one wins.
	putSegment(t, store, t0.Add(time.Second), []string{"b", "c"}, []string{"b second\n", "c second\n"})
	putSegment(t, store, t0, []string{"a", "b"}, []string{"a first\n", "b first\n"})
	got, st := readAll(t, store)
	want := []string{"a=a old\n", "b=b first\n", "c=c second\n"}
	var have []string
	for _, r := range got {
		have = append(have, r.ID+"="+string(r.Data))
	}
	if strings.Join(have, "|") != strings.Join(want, "|") || st.Duplicates != 2 || st.Segments != 2 {
		t.Errorf("ReadResults = %q, %+v; want %q, 2 segments, 2 duplicates", have, st, want)
	}
	for id, data := range map[string]string{"a": "a old\n", "b": "b first\n", "c": "c second\n"} {
		if r, err := FindResult(ctx, store, id); err != nil || string(r.Data) != data {
			t.Errorf("FindResult(%s) = %q, %v; want %q", id, r.Data, err, data)
		}
	}
	if _, err := FindResult(ctx, store, "zz"); gpucost.ErrorCode(err) != gpucost.ENotFound {
		t.Errorf("FindResult(zz) = %v, want a not-found error", err)
	}
}

// Many segments are read ahead, and still given in the order written; an error from the
// caller stops the reading.
func TestReadResultsManySegments(t *testing.T) {
	store := newStore(t)
	t0 := time.Date(2026, 11, 27, 16, 0, 0, 0, time.UTC)
	const n = 3*readAheadObjects + 5
	for i := range n {
		putSegment(t, store, t0.Add(time.Duration(i)*time.Millisecond), []string{fmt.Sprint(i)}, []string{fmt.Sprintf("r%d\n", i)})
	}
	got, st := readAll(t, store)
	if len(got) != n || st.Segments != n {
		t.Fatalf("ReadResults = %d results from %d segments, want %d", len(got), st.Segments, n)
	}
	for i, r := range got {
		if r.ID != fmt.Sprint(i) || string(r.Data) != fmt.Sprintf("r%d\n", i) {
			t.Fatalf("result %d = %s %q, want the segments in the order written", i, r.ID, r.Data)
		}
	}
	stop := errors.New("stop")
	calls := 0
	_, err := ReadResults(context.Background(), store, func(Result) error {
		if calls++; calls == 7 {
			return stop
		}
		return nil
	})
	if !errors.Is(err, stop) || calls != 7 {
		t.Errorf("ReadResults with fn failing on the 7th = %v after %d calls, want that error after 7", err, calls)
	}
}

// A segment written by something else is refused with what to do, not misread.
func TestReadResultsForeignSegment(t *testing.T) {
	for _, tc := range []struct{ name, data string }{
		{"newer format", `{"gpucost_results":2}` + "\n"},
		{"not a segment", "hello\n"},
		{"record without an id", `{"gpucost_results":1}` + "\n" + `{"result":"x"}` + "\n"},
		{"id that is a path", `{"gpucost_results":1}` + "\n" + `{"id":"../x","result":"x"}` + "\n"},
	} {
		store := newStore(t)
		key := SegmentPrefix + "2026-11-27/x.jsonl"
		if err := store.Put(context.Background(), key, strings.NewReader(tc.data), int64(len(tc.data))); err != nil {
			t.Fatal(err)
		}
		_, err := ReadResults(context.Background(), store, func(Result) error { return nil })
		if gpucost.ErrorCode(err) != gpucost.EInvalid || !strings.Contains(err.Error(), key) {
			t.Errorf("%s: ReadResults = %v, want an invalid-data error naming %s", tc.name, err, key)
		}
	}
}

// An item redelivered after its worker stored its segment and done message, and died before
// the ack, is acked without running again; one whose worker died between the segment and the
// done message runs again, and readers keep the first result.
func TestWorkerRedeliveredAfterSegment(t *testing.T) {
	for _, tc := range []struct {
		name       string
		doneStored bool
		skipped    int64
		dups       int
	}{
		{"done message stored", true, 1, 0},
		{"killed before the done message", false, 0, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := startServer(t, t.TempDir())
			c := dial(t, s.URL())
			ctx := context.Background()
			if _, err := c.Push(ctx, "rd", strings.NewReader(`{"id":"x","n":3}`), "-", nil); err != nil {
				t.Fatal(err)
			}
			store := newStore(t)
			w := testWorker(c, "rd", store)
			w.Visibility = 300 * time.Millisecond
			n, _ := queueNames("rd")
			cons, err := c.ensureConsumer(ctx, n, w.Visibility, w.MaxDeliveries)
			if err != nil {
				t.Fatal(err)
			}
			b, err := cons.Fetch(1, jetstream.FetchMaxWait(2*time.Second))
			if err != nil {
				t.Fatal(err)
			}
			if m, ok := <-b.Messages(); !ok || m == nil {
				t.Fatal("no message fetched")
			}
			seg := putSegment(t, store, time.Now(), []string{"x"}, []string{"first\n"})
			if tc.doneStored {
				m := nats.NewMsg(n.done + "." + doneToken("x"))
				m.Data = []byte("x")
				m.Header.Set(jetstream.MsgIDHeader, "x")
				m.Header.Set(headerSegment, seg)
				if _, err := c.js.PublishMsg(ctx, m); err != nil {
					t.Fatal(err)
				}
			}
			runWorker(t, w)
			if got := w.Stats().Skipped.Load(); got != tc.skipped || w.Stats().Done.Load() != 1-tc.skipped {
				t.Errorf("worker skipped %d and did %d, want %d and %d", got, w.Stats().Done.Load(), tc.skipped, 1-tc.skipped)
			}
			if got, _ := readResult(t, store, "x"); got != "first\n" {
				t.Errorf("result = %q, want the first worker's %q", got, "first\n")
			}
			if _, st := readAll(t, store); st.Items != 1 || st.Duplicates != tc.dups {
				t.Errorf("ReadResults = %+v, want 1 item, %d stored again", st, tc.dups)
			}
			if st, err := c.Status(ctx, "rd", time.Now()); err != nil || st.Done != 1 {
				t.Errorf("Status = %+v, %v; want 1 done", st, err)
			}
		})
	}
}

// A queue made before results segments, whose done stream takes only gpucost.q.Q.done, gets
// the per-item done subjects from the first worker, and its done messages still count.
func TestDoneStreamOfOlderQueue(t *testing.T) {
	s := startServer(t, t.TempDir())
	c := dial(t, s.URL())
	ctx := context.Background()
	n, _ := queueNames("old")
	if _, err := c.js.CreateStream(ctx, jetstream.StreamConfig{Name: n.doneStr, Subjects: []string{n.done},
		Storage: jetstream.FileStorage, Duplicates: DuplicateWindow}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.js.Publish(ctx, n.done, []byte("before")); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Push(ctx, "old", strings.NewReader(jsonl(testItem{N: 1}, testItem{N: 2})), "-", nil); err != nil {
		t.Fatal(err)
	}
	store := newStore(t)
	runWorker(t, testWorker(c, "old", store))
	if st, err := c.Status(ctx, "old", time.Now()); err != nil || st.Done != 3 || st.Pending != 0 {
		t.Errorf("Status = %+v, %v; want 3 done (one from before), none pending", st, err)
	}
	if _, st := readAll(t, store); st.Items != 2 {
		t.Errorf("ReadResults = %+v, want 2 items", st)
	}
}

// FuzzParseSegment feeds parseSegment what a results store might hold: it must never panic,
// give only results whose id can name a result, and refuse anything else as invalid data.
func FuzzParseSegment(f *testing.F) {
	f.Add([]byte(`{"gpucost_results":1}` + "\n" + `{"id":"a","result":"x\n"}` + "\n"))
	f.Add([]byte(`{"gpucost_results":1}` + "\n" + `{"id":"b","result_base64":"/w=="}`))
	f.Add([]byte("{}\n{}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		err := parseSegment(SegmentPrefix+"s", data, func(r Result) error {
			if err := CheckID(r.ID); err != nil {
				t.Fatalf("parseSegment(%q) gave a result whose id cannot name a result: %v", data, err)
			}
			return nil
		})
		if err != nil && gpucost.ErrorCode(err) != gpucost.EInvalid {
			t.Fatalf("parseSegment(%q) = %v, want nil or an invalid-data error", data, err)
		}
	})
}
