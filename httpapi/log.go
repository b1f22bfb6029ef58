package httpapi

import (
	"context"
	"log/slog"
	"net/http"
	"time"

	"github.com/gpucost/gpucost"
)

// requestLog is what the log line of one request gathers as the request goes through.
type requestLog struct {
	status  int
	tokenID int64 // never the secret
}

type requestLogKey struct{}

type statusWriter struct {
	http.ResponseWriter
	log *requestLog
}

func (w *statusWriter) WriteHeader(status int) {
	if w.log.status == 0 {
		w.log.status = status
	}
	w.ResponseWriter.WriteHeader(status)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.log.status == 0 {
		w.log.status = http.StatusOK
	}
	return w.ResponseWriter.Write(b)
}

func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// logRequests logs each request once it is served: failures and refusals at warning or error
// level, the rest at debug level, so steady ingest does not flood the log. The token is logged
// by its id; the Authorization header is never logged.
func (s *Server) logRequests(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		rl := &requestLog{}
		defer func() {
			if v := recover(); v != nil {
				s.Log.Error("handler panicked", "method", r.Method, "path", r.URL.Path, "panic", v)
				if rl.status == 0 {
					writeError(w, http.StatusInternalServerError, gpucost.EInternal, "internal error; see the server log")
				}
				rl.status = http.StatusInternalServerError
			}
			level := slog.LevelDebug
			switch {
			case rl.status >= 500:
				level = slog.LevelError
			case rl.status >= 400:
				level = slog.LevelWarn
			}
			attrs := []slog.Attr{slog.String("method", r.Method), slog.String("path", r.URL.Path),
				slog.Int("status", rl.status), slog.Duration("took", time.Since(start)), slog.String("remote", ClientAddr(r))}
			if rl.tokenID != 0 {
				attrs = append(attrs, slog.Int64("token_id", rl.tokenID))
			}
			s.Log.LogAttrs(r.Context(), level, "request", attrs...)
		}()
		ctx := context.WithValue(r.Context(), requestLogKey{}, rl)
		next.ServeHTTP(&statusWriter{ResponseWriter: w, log: rl}, r.WithContext(ctx))
	})
}

// setLogToken records the request's token id for its log line.
func setLogToken(r *http.Request, t gpucost.Token) {
	if rl, ok := r.Context().Value(requestLogKey{}).(*requestLog); ok {
		rl.tokenID = t.ID
	}
}
