package sqlite

import (
	"context"
	"fmt"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/notify"
)

// flaky fails its first fails sends with a retryable error, then succeeds.
type flaky struct {
	fails int32
	sent  atomic.Int32
}

func (f *flaky) Send(context.Context, notify.Message) error {
	if n := f.sent.Add(1); n <= f.fails {
		return &notify.StatusError{Target: "https://hooks.example", Code: 503}
	}
	return nil
}

func TestDeliveryLogDedupesAcrossReopen(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "gpucost.db")
	db, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	ops := &flaky{fails: 2}
	at := time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC)
	d := &notify.Dispatcher{Targets: map[string]notify.Target{"ops": ops}, Log: db,
		Sleep: func(context.Context, time.Duration) error { return nil }, Now: func() time.Time { return at }}
	m := notify.Message{Kind: "budget.threshold", Subject: "s", Key: "budget:team_a%:2026-11:actual:80"}
	if err := d.Notify(ctx, m, "ops"); err != nil {
		t.Fatalf("notify: %v", err)
	}
	db.Close()

	db, err = Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	log := db
	d.Log = log
	if err := d.Notify(ctx, m, "ops"); err != nil || ops.sent.Load() != 3 {
		t.Fatalf("second notify: %v, %d sends; want the log to stop it at 3", err, ops.sent.Load())
	}
	got, err := log.Deliveries(ctx, gpucost.DeliveryFilter{})
	if err != nil || len(got) != 3 {
		t.Fatalf("Deliveries = %d, %v; want 3 attempts", len(got), err)
	}
	want0 := gpucost.Delivery{Key: m.Key, Kind: m.Kind, Target: "ops", Attempt: 1, At: at, Status: 503,
		Error: "post https://hooks.example: HTTP 503 Service Unavailable"}
	if got[0] != want0 || !got[2].OK || !got[2].Final || got[2].Attempt != 3 || got[1].Final {
		t.Errorf("attempts = %+v", got)
	}
	for _, tc := range []struct {
		key, target string
		want        bool
	}{{m.Key, "ops", true}, {m.Key, "other", false}, {"budget:team_a%:2026-11:actual:50", "ops", false}, {"", "ops", false}} {
		if ok, err := log.Delivered(ctx, tc.key, tc.target); err != nil || ok != tc.want {
			t.Errorf("Delivered(%q, %q) = %v, %v; want %v", tc.key, tc.target, ok, err, tc.want)
		}
	}
}

func BenchmarkDeliveryLogDelivered(b *testing.B) {
	ctx := context.Background()
	db, err := Open(ctx, filepath.Join(b.TempDir(), "gpucost.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	log := db
	for i := range 10000 {
		if err := log.RecordDelivery(ctx, gpucost.Delivery{Key: fmt.Sprint("budget:b", i, ":2026-11:actual:80"), Target: "ops",
			Attempt: 1, At: time.Unix(int64(i), 0), OK: true, Final: true}); err != nil {
			b.Fatal(err)
		}
	}
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		if ok, err := log.Delivered(ctx, fmt.Sprint("budget:b", i%10000, ":2026-11:actual:80"), "ops"); !ok || err != nil {
			b.Fatal(ok, err)
		}
	}
}

func BenchmarkDeliveryLogRecord(b *testing.B) {
	ctx := context.Background()
	db, err := Open(ctx, filepath.Join(b.TempDir(), "gpucost.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	log := db
	for i := 0; b.Loop(); i++ {
		if err := log.RecordDelivery(ctx, gpucost.Delivery{Key: fmt.Sprint("budget:b", i, ":2026-11:actual:80"), Target: "ops",
			Attempt: 1, At: time.Unix(int64(i), 0), OK: true, Final: true}); err != nil {
			b.Fatal(err)
		}
	}
}
