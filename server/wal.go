package server

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/httpapi"
	"github.com/gpucost/gpucost/telemetry"
	"github.com/gpucost/gpucost/telemetry/wal"
)

// openWAL opens the write-ahead log in dir and replays what it holds into w: the samples the
// server acknowledged before it stopped that the store may not hold. It returns nil for dir "".
func openWAL(ctx context.Context, dir string, w *telemetry.Writer, log *slog.Logger) (*wal.Log, error) {
	if dir == "" {
		return nil, nil
	}
	l, st, err := wal.Open(dir, wal.Options{}, func(pos int64, samples []gpucost.Sample) error {
		return w.AddLogged(ctx, pos, samples...)
	})
	if err != nil {
		return nil, fmt.Errorf("replay the write-ahead log %s: %w", dir, err)
	}
	if st.Records > 0 || st.TornBytes > 0 {
		log.Info("replayed the write-ahead log of pushed samples", "dir", dir, "records", st.Records,
			"samples", st.Samples, "torn_bytes_dropped", st.TornBytes)
	}
	return l, nil
}

// closeWAL frees what the store now holds and closes the log; a log that holds nothing more
// is removed.
func closeWAL(l *wal.Log, queue *httpapi.Queue, log *slog.Logger) {
	if l == nil {
		return
	}
	if err := queue.Release(); err != nil {
		log.Error("free the write-ahead log", "err", err)
	}
	if n := l.Size(); n > 0 {
		log.Warn("the write-ahead log keeps samples the store does not hold yet; the next start replays them", "dir", l.Dir(), "bytes", n)
	}
	if err := l.Close(); err != nil {
		log.Error("close the write-ahead log", "err", err)
	}
}
