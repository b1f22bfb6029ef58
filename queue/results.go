package queue

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/gpucost/gpucost"
)

// A worker stores the results of one batch as one object, a segment, rather than one object per
// item: creating a small file costs about a millisecond on a disk that syncs it, and an S3 PUT
// some milliseconds, which held a queue to about 2,000 items a second (docs/architecture.md
// "The work queue"). A segment is JSONL: a header line, then one line per item,
//
//	{"gpucost_results":1,"queue":"captions","worker":"host:1234","time":"2026-11-27T16:00:00Z"}
//	{"id":"a","result":"{\"caption\":\"a cat\"}\n"}
//	{"id":"b","result_base64":"iVBORw0KGgo…"}
//
// the result as a string when it is UTF-8, else in base64. It is written whole (ObjectStore.Put
// is atomic) before any of its items is acked. Segments are named by the time they were written,
// so that key order is the order they were committed in.
//
// An item has at most one result in the store: a redelivered item whose result is recorded is
// acked without running (Worker.resultState). One gap remains: a worker killed after its segment
// is stored and before the items' done messages are, leaves results that the next delivery does
// not see, and that item is run again and stored again. Readers therefore take an item's first
// committed result, in segment order, and ignore any later one (ReadResults), so every reader
// sees the same one result per item.

// SegmentPrefix is where segments go in a results store. Item ids cannot start with ".gpucost-"
// (CheckID), so it never mixes with the results of one object per item that workers wrote
// before segments (ResultKey), which ReadResults reads too.
const SegmentPrefix = ".gpucost-results/"

// segmentVersion is the format of the segments written here, in their header line.
const segmentVersion = 1

// segmentHeader is a segment's first line.
type segmentHeader struct {
	Version int       `json:"gpucost_results"`
	Queue   string    `json:"queue,omitempty"`
	Worker  string    `json:"worker,omitempty"`
	Time    time.Time `json:"time"`
}

// segmentRecord is one item's line in a segment.
type segmentRecord struct {
	ID     string  `json:"id"`
	Result *string `json:"result,omitempty"`
	Base64 []byte  `json:"result_base64,omitempty"`
}

// segmentKey names a segment written at now: the date as a folder, so that no folder grows past
// a day's segments, then the time to the nanosecond and a random suffix, so that two workers
// writing at the same instant do not collide.
func segmentKey(now time.Time) string {
	var suffix [8]byte
	rand.Read(suffix[:])
	now = now.UTC()
	return SegmentPrefix + now.Format("2006-01-02/150405.000000000") + "-" + hex.EncodeToString(suffix[:]) + ".jsonl"
}

// encodeSegment writes the segment of tasks' outputs.
func encodeSegment(h segmentHeader, tasks []*task, outputs [][]byte) []byte {
	size := 128
	for _, out := range outputs {
		size += len(out) + len(out)/8 + 64
	}
	buf := bytes.NewBuffer(make([]byte, 0, size))
	enc := json.NewEncoder(buf)
	enc.SetEscapeHTML(false)
	h.Version = segmentVersion
	enc.Encode(h)
	for i, t := range tasks {
		rec := segmentRecord{ID: t.item.ID}
		if utf8.Valid(outputs[i]) {
			s := string(outputs[i])
			rec.Result = &s
		} else {
			rec.Base64 = outputs[i]
		}
		enc.Encode(rec) // a struct of strings and bytes: it cannot fail
	}
	return buf.Bytes()
}

// Result is one item's result as stored.
type Result struct {
	ID   string
	Data []byte
	// Key is the object it was read from: a segment, or the item's own object (ResultKey)
	// where a worker from before segments stored it.
	Key string
}

// ReadResults calls fn with each item's result in store, once per item, and stops at the first
// error fn returns. Results stored one object per item (ResultKey, before segments) come
// first, in key order; then the segments', in the order the segments were written. An item
// stored more than once (see above) is given with its first result only; the later ones are
// counted in the returned ResultStats.
func ReadResults(ctx context.Context, store gpucost.ObjectStore, fn func(Result) error) (ResultStats, error) {
	var st ResultStats
	objs, err := store.List(ctx, "")
	if err != nil {
		return st, fmt.Errorf("list results: %w", err)
	}
	seen := map[string]bool{}
	give := func(r Result) error {
		if seen[r.ID] {
			st.Duplicates++
			return nil
		}
		seen[r.ID] = true
		st.Items++
		return fn(r)
	}
	var perItem, segments []string
	for _, o := range objs {
		switch {
		case strings.HasPrefix(o.Key, SegmentPrefix):
			segments = append(segments, o.Key)
		case CheckID(o.Key) == nil:
			perItem = append(perItem, o.Key)
		}
	}
	err = readAhead(ctx, store, perItem, func(key string, data []byte) error {
		return give(Result{ID: key, Data: data, Key: key})
	})
	if err != nil {
		return st, err
	}
	// List returns the segments in key order, the order they were written.
	err = readAhead(ctx, store, segments, func(key string, data []byte) error {
		st.Segments++
		return parseSegment(key, data, give)
	})
	return st, err
}

// readAheadObjects is how many objects readAhead fetches at once: S3 answers a GET in some
// milliseconds, and a million items are ten thousand segments.
const readAheadObjects = 16

// readAhead calls fn with each of keys and its object's data, in the order of keys, fetching up
// to readAheadObjects ahead. It stops at the first error.
func readAhead(ctx context.Context, store gpucost.ObjectStore, keys []string, fn func(key string, data []byte) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel() // stops the fetching when fn fails
	type fetched struct {
		data []byte
		err  error
	}
	order := make(chan chan fetched, readAheadObjects)
	go func() {
		defer close(order)
		for _, key := range keys {
			c := make(chan fetched, 1)
			select {
			case order <- c:
			case <-ctx.Done():
				return
			}
			go func() {
				data, err := readObject(ctx, store, key)
				c <- fetched{data, err}
			}()
		}
	}()
	i := 0
	for c := range order {
		f := <-c
		if f.err != nil {
			return f.err
		}
		if err := fn(keys[i], f.data); err != nil {
			return err
		}
		i++
	}
	return ctx.Err()
}

// ResultStats counts what ReadResults read.
type ResultStats struct {
	Items      int // items with a result
	Segments   int // segment objects read
	Duplicates int // results of items that had one already, not given
}

// FindResult returns the result of item id in store, reading the store as ReadResults does,
// and an ENotFound Error if it has none. It reads every segment: to fetch many, use ReadResults.
func FindResult(ctx context.Context, store gpucost.ObjectStore, id string) (Result, error) {
	if err := CheckID(id); err != nil {
		return Result{}, gpucost.Errorf(gpucost.EInvalid, "%v", err)
	}
	if data, err := readObject(ctx, store, ResultKey(id)); err == nil {
		return Result{ID: id, Data: data, Key: ResultKey(id)}, nil
	} else if gpucost.ErrorCode(err) != gpucost.ENotFound {
		return Result{}, err
	}
	var found Result
	errFound := errors.New("found")
	_, err := ReadResults(ctx, store, func(r Result) error {
		if r.ID != id {
			return nil
		}
		found = r
		return errFound
	})
	if errors.Is(err, errFound) {
		return found, nil
	}
	if err != nil {
		return Result{}, err
	}
	return Result{}, gpucost.Errorf(gpucost.ENotFound, "item %s has no result in the store; see where it is with: gpucost queue status", id)
}

func readObject(ctx context.Context, store gpucost.ObjectStore, key string) ([]byte, error) {
	r, err := store.Get(ctx, key)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("read result %s: %w", key, err)
	}
	return data, nil
}

// parseSegment calls give with each result in data, the segment under key.
func parseSegment(key string, data []byte, give func(Result) error) error {
	for line := 1; len(data) > 0; line++ {
		var text []byte
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			text, data = data[:i], data[i+1:]
		} else {
			text, data = data, nil
		}
		if line == 1 {
			var h segmentHeader
			if err := json.Unmarshal(text, &h); err != nil || h.Version != segmentVersion {
				return gpucost.Errorf(gpucost.EInvalid, "results segment %s: not a segment of format %d (header %.80q); a newer gpucost may have written it", key, segmentVersion, text)
			}
			continue
		}
		var rec segmentRecord
		if err := json.Unmarshal(text, &rec); err != nil {
			return gpucost.Errorf(gpucost.EInvalid, "results segment %s line %d: not a result record: %w", key, line, err)
		}
		if err := CheckID(rec.ID); err != nil { // it may name a file (gpucost queue results --to)
			return gpucost.Errorf(gpucost.EInvalid, "results segment %s line %d: %w", key, line, err)
		}
		result := rec.Base64
		if rec.Result != nil {
			result = []byte(*rec.Result)
		}
		if err := give(Result{ID: rec.ID, Data: result, Key: key}); err != nil {
			return err
		}
	}
	return nil
}

// doneToken is the last subject token of item id's done message, gpucost.q.Q.done.<token>, so
// that the server finds it by subject (Worker.resultState): 96 bits of the id's SHA-256 in
// base64url. Two ids may share a token; the message's data, the id itself, tells them apart.
func doneToken(id string) string {
	sum := sha256.Sum256([]byte(id))
	return base64.RawURLEncoding.EncodeToString(sum[:12])
}
