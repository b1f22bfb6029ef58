package storetest

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
)

// RunDeliveries runs the cases of gpucost.DeliveryLog, the alert delivery log.
func RunDeliveries(t *testing.T, open Open) {
	t.Run("FailedIsNotDelivered", func(t *testing.T) { testDeliveriesFailedIsNotDelivered(t, open) })
	t.Run("FilterAndConcurrency", func(t *testing.T) { testDeliveriesFilterAndConcurrency(t, open) })
	t.Run("RoundTripAndWidePrefix", func(t *testing.T) { testDeliveriesRoundTrip(t, open) })
}

// testDeliveriesRoundTrip checks that every field of an attempt reads back, and that a key
// prefix is matched by characters, not bytes ("é" is two bytes).
func testDeliveriesRoundTrip(t *testing.T, open Open) {
	ctx := context.Background()
	log := open(t)
	want := gpucost.Delivery{Key: "budget:équipe-ü:2026-11:actual:80", Kind: "budget.threshold", Target: "ops", Attempt: 2,
		At: time.Date(2026, 11, 20, 10, 0, 0, 123, time.UTC), Duration: 1500 * time.Millisecond, Status: 503,
		Error: "503 Service Unavailable", Final: true}
	other := want
	other.Key = "budget:équipe-v:2026-11:actual:80"
	for _, d := range []gpucost.Delivery{want, other} {
		if err := log.RecordDelivery(ctx, d); err != nil {
			t.Fatal(err)
		}
	}
	got, err := log.Deliveries(ctx, gpucost.DeliveryFilter{KeyPrefix: "budget:équipe-ü"})
	if err != nil || len(got) != 1 || got[0] != want {
		t.Errorf("Deliveries(prefix budget:équipe-ü) = %+v, %v; want only %+v", got, err, want)
	}
	if _, err := log.Deliveries(ctx, gpucost.DeliveryFilter{Limit: -1}); gpucost.ErrorCode(err) != gpucost.EInvalid {
		t.Errorf("Deliveries(limit -1) = %v, want EInvalid", err)
	}
}

func testDeliveriesFailedIsNotDelivered(t *testing.T, open Open) {
	ctx := context.Background()
	log := open(t)
	// An OK attempt that is not final cannot happen with the Dispatcher, but the rule is a
	// final OK attempt, so it does not count.
	for _, d := range []gpucost.Delivery{
		{Key: "k", Target: "t", Attempt: 1, At: time.Unix(100, 0), Error: "refused", Final: true},
		{Key: "k", Target: "t", Attempt: 1, At: time.Unix(200, 0), OK: true},
	} {
		if err := log.RecordDelivery(ctx, d); err != nil {
			t.Fatal(err)
		}
	}
	if ok, err := log.Delivered(ctx, "k", "t"); ok || err != nil {
		t.Errorf("Delivered after failures = %v, %v; want false", ok, err)
	}
	if err := log.RecordDelivery(ctx, gpucost.Delivery{Key: "k", Attempt: 1}); gpucost.ErrorCode(err) != gpucost.EInvalid {
		t.Errorf("RecordDelivery without a target = %v, want EInvalid", err)
	}
	if err := log.RecordDelivery(ctx, gpucost.Delivery{Key: "k", Target: "t"}); gpucost.ErrorCode(err) != gpucost.EInvalid {
		t.Errorf("RecordDelivery with attempt 0 = %v, want EInvalid", err)
	}
}

func testDeliveriesFilterAndConcurrency(t *testing.T, open Open) {
	ctx := context.Background()
	log := open(t)
	var wg sync.WaitGroup
	errs := make([]error, 40)
	for i := range 40 {
		wg.Go(func() {
			errs[i] = log.RecordDelivery(ctx, gpucost.Delivery{Key: fmt.Sprintf("budget:%c:2026-11:actual:80", 'a'+i%2),
				Target: fmt.Sprint("t", i%4), Attempt: 1, At: time.Unix(int64(1000+i), 0), OK: true, Final: true})
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	all, err := log.Deliveries(ctx, gpucost.DeliveryFilter{})
	if err != nil || len(all) != 40 {
		t.Fatalf("all deliveries: %d, %v", len(all), err)
	}
	for _, tc := range []struct {
		f    gpucost.DeliveryFilter
		want int
	}{
		{gpucost.DeliveryFilter{KeyPrefix: "budget:a:"}, 20},
		{gpucost.DeliveryFilter{KeyPrefix: "budget:a:", Target: "t0"}, 10},
		{gpucost.DeliveryFilter{Since: time.Unix(1030, 0)}, 10},
		{gpucost.DeliveryFilter{Limit: 5}, 5},
		{gpucost.DeliveryFilter{KeyPrefix: "budget:%"}, 0},
	} {
		got, err := log.Deliveries(ctx, tc.f)
		if err != nil || len(got) != tc.want {
			t.Errorf("Deliveries(%+v) = %d, %v; want %d", tc.f, len(got), err, tc.want)
		}
	}
	last, _ := log.Deliveries(ctx, gpucost.DeliveryFilter{Limit: 2})
	if len(last) != 2 || last[0].At != time.Unix(1038, 0).UTC() || last[1].At != time.Unix(1039, 0).UTC() {
		t.Errorf("Limit 2 returns %v; want the latest two, oldest first", last)
	}
}
