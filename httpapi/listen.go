package httpapi

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"
)

// Timeouts of the HTTP server: slow or stalled clients cannot hold connections open.
const (
	ReadHeaderTimeout = 10 * time.Second
	ReadTimeout       = time.Minute
	WriteTimeout      = time.Minute
	IdleTimeout       = 2 * time.Minute
	ShutdownTimeout   = 30 * time.Second // for requests in flight when the server is stopped
)

// Serve serves the API on ln until ctx is done, then stops taking connections, lets the
// requests in flight finish (up to ShutdownTimeout) and returns nil. Tests pass a listener on
// port 0.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	h := s.Handler()
	srv := &http.Server{
		Handler:           h,
		ReadHeaderTimeout: ReadHeaderTimeout,
		ReadTimeout:       ReadTimeout,
		WriteTimeout:      WriteTimeout,
		IdleTimeout:       IdleTimeout,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          slog.NewLogLogger(s.Log.Handler(), slog.LevelWarn),
		BaseContext:       func(net.Listener) context.Context { return context.WithoutCancel(ctx) },
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	select {
	case err := <-served:
		return fmt.Errorf("serve on %s: %w", ln.Addr(), err)
	case <-ctx.Done():
	}
	s.Log.Info("shutting down: finishing requests in flight", "addr", ln.Addr().String())
	stop, cancel := context.WithTimeout(context.WithoutCancel(ctx), ShutdownTimeout)
	defer cancel()
	if err := srv.Shutdown(stop); err != nil {
		srv.Close()
		return fmt.Errorf("shut down the server on %s: %w", ln.Addr(), err)
	}
	if err := <-served; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("serve on %s: %w", ln.Addr(), err)
	}
	return nil
}
