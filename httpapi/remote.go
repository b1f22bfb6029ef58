package httpapi

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/gpucost/gpucost"
)

// Defaults of a RemoteSink.
const (
	DefaultRemoteBuffer = 100_000 // samples held while the server is away: 8 GPUs every 10 s for over 20 h
	DefaultRemoteBatch  = 5_000   // samples per POST, about 1.5 MB of JSON before gzip
)

// RemoteSink is the agent's sink when it pushes to a server (gpucost agent --server): it holds
// samples in memory and posts them in gzip'd batches on each Flush. While the server cannot be
// reached, the samples stay held and flushes back off, doubling the wait from MinBackoff to
// MaxBackoff; past MaxBuffered samples the oldest are dropped and counted, with a warning.
// A batch leaves the buffer only when the server answered 200: a timeout, a 5xx, a connection
// reset before the whole answer came, or any answer that cannot be read keeps it, and it is
// sent again (the server drops samples it holds already, see telemetry.Writer.DropStored).
// A server that refuses the token ends the agent; a batch it refuses as malformed (400, 415,
// 422) is dropped and logged so that it cannot block the rest; a batch too large (413) is sent
// again in halves. Other refusals, such as a proxy's 404, are retried like outages. Its
// methods are safe for concurrent use.
type RemoteSink struct {
	Client      *Client
	MaxBuffered int              // DefaultRemoteBuffer if zero
	BatchSize   int              // DefaultRemoteBatch if zero
	MinBackoff  time.Duration    // default 1 s
	MaxBackoff  time.Duration    // default 1 min
	Now         func() time.Time // default time.Now
	Log         *slog.Logger     // default: discard

	mu        sync.Mutex
	buf       []gpucost.Sample
	batchCap  int // below BatchSize after a 413: the most samples the server took in one post
	stats     RemoteStats
	failures  int       // consecutive failed posts
	nextTry   time.Time // no post before this while backing off
	lastWarn  time.Time // of the last outage or drop warning
	lastError error
}

// RemoteStats counts what a RemoteSink did.
type RemoteStats struct {
	Sent     int // samples the server accepted
	Skipped  int // samples the server skipped as invalid
	Dropped  int // samples dropped because the buffer was full
	Rejected int // samples in batches the server refused as malformed
	Posts    int // successful posts
	Failures int // failed posts, retried later
}

// Add holds samples for the next Flush, dropping the oldest past MaxBuffered.
func (r *RemoteSink) Add(ctx context.Context, samples ...gpucost.Sample) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.defaults()
	for _, s := range samples {
		if s.Labels != nil {
			s.Labels = cloneLabels(s.Labels) // collectors may reuse their maps
		}
		r.buf = append(r.buf, s)
	}
	if over := len(r.buf) - r.MaxBuffered; over > 0 {
		r.buf = append(r.buf[:0], r.buf[over:]...)
		r.stats.Dropped += over
		if now := r.Now(); now.Sub(r.lastWarn) >= time.Minute || r.stats.Dropped == over {
			r.lastWarn = now
			r.Log.Warn("server unreachable and buffer full: dropping the oldest samples",
				"dropped_total", r.stats.Dropped, "buffer", r.MaxBuffered, "last_error", errText(r.lastError))
		}
	}
	return nil
}

// Flush posts the held samples unless the sink is backing off after a failure. It returns an
// error only when the server refuses the token, which retrying cannot mend.
func (r *RemoteSink) Flush(ctx context.Context) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.defaults()
	if r.Now().Before(r.nextTry) {
		return nil
	}
	_, err := r.post(ctx)
	return err
}

// Close posts everything held, retrying with backoff until ctx is done. It returns an error
// naming how many samples were not delivered.
func (r *RemoteSink) Close(ctx context.Context) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.defaults()
	for {
		done, err := r.post(ctx)
		if err != nil {
			return err
		}
		if done {
			return nil
		}
		wait := time.NewTimer(max(r.nextTry.Sub(r.Now()), 0))
		select {
		case <-ctx.Done():
			wait.Stop()
			return gpucost.Errorf(gpucost.EUnavailable, "%d samples not delivered to %s: %v", len(r.buf), r.Client.URL, r.lastError)
		case <-wait.C:
		}
	}
}

// Stats returns what the sink did so far.
func (r *RemoteSink) Stats() RemoteStats {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.stats
}

// Held returns the number of samples waiting to be posted.
func (r *RemoteSink) Held() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.buf)
}

// post sends the held samples in batches, oldest first, and reports whether all went. A failure
// that may pass keeps the rest held and sets the next time to try.
func (r *RemoteSink) post(ctx context.Context) (bool, error) {
	for len(r.buf) > 0 {
		n := min(len(r.buf), r.BatchSize)
		if r.batchCap > 0 {
			n = min(n, r.batchCap)
		}
		resp, err := r.Client.PostSamples(ctx, r.buf[:n])
		var refused *RefusedError
		isRefused := errors.As(err, &refused)
		switch {
		case isRefused && (refused.Status == http.StatusUnauthorized || refused.Status == http.StatusForbidden):
			return false, gpucost.Errorf(gpucost.EInvalid, "push samples to %s: %w; check $GPUCOST_TOKEN or --token-file (an ingest token)", r.Client.URL, err)
		case isRefused && refused.Status == http.StatusRequestEntityTooLarge && n > 1:
			r.batchCap = n / 2
			r.Log.Warn("server refused a batch of samples as too large; sending it in halves", "samples", n)
			continue
		case isRefused && badBatch(refused.Status):
			r.stats.Rejected += n
			r.Log.Error("server refused a batch of samples; dropping it", "samples", n, "err", err)
		case err != nil && ctx.Err() != nil:
			return false, nil // the agent is stopping; Close sends the rest
		case err != nil:
			r.failed(err)
			return false, nil
		default:
			r.stats.Sent += resp.Accepted
			r.stats.Skipped += resp.Skipped
			r.stats.Posts++
			for _, sk := range resp.Skips {
				r.Log.Warn("server skipped a sample", "gpu", sk.GPU, "field", sk.Field, "reason", sk.Reason)
			}
		}
		r.buf = append(r.buf[:0], r.buf[n:]...)
		r.recovered()
	}
	return true, nil
}

// badBatch reports whether a refusal with status says that the batch itself is malformed, so
// that sending it again would be refused again.
func badBatch(status int) bool {
	switch status {
	case http.StatusBadRequest, http.StatusRequestEntityTooLarge, http.StatusUnsupportedMediaType, http.StatusUnprocessableEntity:
		return true
	}
	return false
}

func (r *RemoteSink) failed(err error) {
	r.stats.Failures++
	r.failures++
	r.lastError = err
	backoff := r.MinBackoff << min(r.failures-1, 20)
	backoff = min(backoff, r.MaxBackoff)
	var ra *RetryAfterError
	if errors.As(err, &ra) {
		backoff = max(backoff, ra.After) // the server said when: sooner would be refused again
	}
	now := r.Now()
	r.nextTry = now.Add(backoff)
	if r.failures == 1 || now.Sub(r.lastWarn) >= time.Minute {
		r.lastWarn = now
		r.Log.Warn("server unreachable; holding samples and retrying with backoff", "err", err,
			"held", len(r.buf), "failures", r.failures, "retry_in", backoff.String())
	}
}

func (r *RemoteSink) recovered() {
	if r.failures > 0 {
		r.Log.Info("server reachable again", "failures", r.failures, "held", len(r.buf))
	}
	r.failures, r.nextTry, r.lastError = 0, time.Time{}, nil
}

func (r *RemoteSink) defaults() {
	if r.MaxBuffered <= 0 {
		r.MaxBuffered = DefaultRemoteBuffer
	}
	if r.BatchSize <= 0 {
		r.BatchSize = DefaultRemoteBatch
	}
	if r.MinBackoff <= 0 {
		r.MinBackoff = time.Second
	}
	if r.MaxBackoff <= 0 {
		r.MaxBackoff = time.Minute
	}
	if r.Now == nil {
		r.Now = time.Now
	}
	if r.Log == nil {
		r.Log = slog.New(slog.DiscardHandler)
	}
}

func cloneLabels(l gpucost.Labels) gpucost.Labels {
	out := make(gpucost.Labels, len(l))
	for k, v := range l {
		out[k] = v
	}
	return out
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return fmt.Sprint(err)
}
