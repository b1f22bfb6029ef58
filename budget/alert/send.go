package alert

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/notify"
)

// workers bounds how many deliveries a Sender makes at once.
const workers = 8

// Sender settles pending alerts against a delivery log: a threshold already notified to a
// target in the period (its key, or a higher one of its kind, delivered) is not sent again; an
// alert left with none is already delivered, the others are sent (or, in a dry run, would be)
// named by the highest threshold left, every attempt recorded.
type Sender struct {
	Log         notify.DeliveryLog
	Targets     map[string]notify.Target
	MaxAttempts int           // per alert and target before it counts as failed
	Backoff     time.Duration // before the first retry; doubled each retry, with jitter
	DryRun      bool          // settle the pending alerts as WouldSend: send and record nothing
}

// Deliver settles every pending alert: Delivered per the log, WouldSend in a dry run, else Sent
// or Failed with the attempts, status and error of its last attempt. An alert that reports
// thresholds of both kinds is logged under the highest of each, so that both count as
// notified. It returns an error only when the log cannot be read or written.
func (s *Sender) Deliver(ctx context.Context, alerts []*Outcome) error {
	for _, a := range alerts {
		if a.Result != "" {
			continue
		}
		err := a.settle(func(key string) (bool, error) { return s.Log.Delivered(ctx, key, a.Target) })
		if err != nil {
			return err
		}
	}
	if s.DryRun {
		MarkPending(alerts, WouldSend)
		return nil
	}
	log := &lastLog{DeliveryLog: s.Log, last: map[[2]string]gpucost.Delivery{}}
	d := &notify.Dispatcher{Targets: s.Targets, Log: log, MaxAttempts: s.MaxAttempts, Backoff: notify.Backoff{Base: s.Backoff}}
	sem := make(chan struct{}, workers)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var logErr error
	for _, a := range alerts {
		if a.Result != "" {
			continue
		}
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			err := d.Notify(ctx, a.msg, a.Target)
			last, tried := log.lastAttempt(a.Key, a.Target)
			a.Attempts, a.Status = last.Attempt, last.Status
			switch {
			case err == nil && tried:
				a.Result = Sent
				for _, k := range a.logKeys() {
					also := last
					also.Key = k
					if err := s.Log.RecordDelivery(ctx, also); err != nil {
						mu.Lock()
						logErr = errors.Join(logErr, err)
						mu.Unlock()
					}
				}
			case err == nil:
				a.Result = Delivered // another sender delivered it between our check and the send
			default:
				a.Result, a.Error = Failed, err.Error()
			}
		})
	}
	wg.Wait()
	return logErr
}

// lastLog records attempts in a delivery log and keeps the last one per alert and target.
type lastLog struct {
	notify.DeliveryLog
	mu   sync.Mutex
	last map[[2]string]gpucost.Delivery
}

// RecordDelivery stores d in the log and remembers it.
func (l *lastLog) RecordDelivery(ctx context.Context, d gpucost.Delivery) error {
	l.mu.Lock()
	l.last[[2]string{d.Key, d.Target}] = d
	l.mu.Unlock()
	return l.DeliveryLog.RecordDelivery(ctx, d)
}

func (l *lastLog) lastAttempt(key, target string) (gpucost.Delivery, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	d, ok := l.last[[2]string{key, target}]
	return d, ok
}
