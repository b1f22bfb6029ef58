package storetest

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/gpucost/gpucost/notify"
)

// RunDeliveries runs the cases of notify.StoredLog, the alert delivery log.
func RunDeliveries(t *testing.T, open Open) {
	t.Run("FailedIsNotDelivered", func(t *testing.T) { testDeliveriesFailedIsNotDelivered(t, open) })
	t.Run("FilterAndConcurrency", func(t *testing.T) { testDeliveriesFilterAndConcurrency(t, open) })
}

func testDeliveriesFailedIsNotDelivered(t *testing.T, open Open) {
	ctx := context.Background()
	log := open(t).Deliveries
	// An OK attempt that is not final cannot happen with the Dispatcher, but the rule is a
	// final OK attempt, so it does not count.
	for _, d := range []notify.Delivery{
		{Key: "k", Target: "t", Attempt: 1, At: time.Unix(100, 0), Error: "refused", Final: true},
		{Key: "k", Target: "t", Attempt: 1, At: time.Unix(200, 0), OK: true},
	} {
		if err := log.Record(ctx, d); err != nil {
			t.Fatal(err)
		}
	}
	if ok, err := log.Delivered(ctx, "k", "t"); ok || err != nil {
		t.Errorf("Delivered after failures = %v, %v; want false", ok, err)
	}
	if err := log.Record(ctx, notify.Delivery{Key: "k", Attempt: 1}); err == nil {
		t.Error("Record without a target succeeded")
	}
	if err := log.Record(ctx, notify.Delivery{Key: "k", Target: "t"}); err == nil {
		t.Error("Record with attempt 0 succeeded")
	}
}

func testDeliveriesFilterAndConcurrency(t *testing.T, open Open) {
	ctx := context.Background()
	log := open(t).Deliveries
	var wg sync.WaitGroup
	errs := make([]error, 40)
	for i := range 40 {
		wg.Go(func() {
			errs[i] = log.Record(ctx, notify.Delivery{Key: fmt.Sprintf("budget:%c:2026-11:actual:80", 'a'+i%2),
				Target: fmt.Sprint("t", i%4), Attempt: 1, At: time.Unix(int64(1000+i), 0), OK: true, Final: true})
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	all, err := log.Deliveries(ctx, notify.DeliveryFilter{})
	if err != nil || len(all) != 40 {
		t.Fatalf("all deliveries: %d, %v", len(all), err)
	}
	for _, tc := range []struct {
		f    notify.DeliveryFilter
		want int
	}{
		{notify.DeliveryFilter{KeyPrefix: "budget:a:"}, 20},
		{notify.DeliveryFilter{KeyPrefix: "budget:a:", Target: "t0"}, 10},
		{notify.DeliveryFilter{Since: time.Unix(1030, 0)}, 10},
		{notify.DeliveryFilter{Limit: 5}, 5},
		{notify.DeliveryFilter{KeyPrefix: "budget:%"}, 0},
	} {
		got, err := log.Deliveries(ctx, tc.f)
		if err != nil || len(got) != tc.want {
			t.Errorf("Deliveries(%+v) = %d, %v; want %d", tc.f, len(got), err, tc.want)
		}
	}
	last, _ := log.Deliveries(ctx, notify.DeliveryFilter{Limit: 2})
	if len(last) != 2 || last[0].At != time.Unix(1038, 0).UTC() || last[1].At != time.Unix(1039, 0).UTC() {
		t.Errorf("Limit 2 returns %v; want the latest two, oldest first", last)
	}
}
