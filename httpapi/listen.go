package httpapi

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"time"

	"github.com/gpucost/gpucost"
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
// requests in flight finish (up to ShutdownTimeout) and returns nil. With s.TLS it serves
// HTTPS (and HTTP/2) on ln. Tests pass a listener on port 0.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	h := s.Handler()
	srv := &http.Server{
		TLSConfig:         s.TLS,
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
	go func() {
		if s.TLS != nil {
			served <- srv.ServeTLS(ln, "", "")
			return
		}
		served <- srv.Serve(ln)
	}()
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

// LoadTLS returns the TLS settings of a server with the certificate chain and key of the PEM
// files certFile and keyFile (gpucost serve --tls-cert, --tls-key): TLS 1.2 or later.
func LoadTLS(certFile, keyFile string) (*tls.Config, error) {
	cert, err := tls.LoadX509KeyPair(certFile, keyFile)
	if err != nil {
		return nil, gpucost.Errorf(gpucost.EInvalid, "--tls-cert %s, --tls-key %s: %v; give a PEM certificate chain and its PEM private key", certFile, keyFile, err)
	}
	return &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}, nil
}

// TrustedProxies are the peers whose X-Forwarded-Proto and X-Forwarded-For the server
// believes: a TLS-terminating proxy or load balancer in front of it. Any other peer could
// send those headers to pass as someone else, so they are ignored from it.
type TrustedProxies []netip.Prefix

// ParseTrustedProxies reads a comma-separated list of CIDR prefixes or single addresses
// (gpucost serve --trusted-proxy 10.0.0.0/8,192.0.2.7).
func ParseTrustedProxies(s string) (TrustedProxies, error) {
	var out TrustedProxies
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		if p, err := netip.ParsePrefix(f); err == nil {
			out = append(out, p.Masked())
			continue
		}
		a, err := netip.ParseAddr(f)
		if err != nil {
			return nil, gpucost.Errorf(gpucost.EInvalid, "trusted proxy %q: give a CIDR prefix (10.0.0.0/8) or an address", f)
		}
		a = a.Unmap()
		out = append(out, netip.PrefixFrom(a, a.BitLen()))
	}
	return out, nil
}

// trusts reports whether a, a peer's address, is one of the proxies.
func (p TrustedProxies) trusts(a netip.Addr) bool {
	a = a.Unmap()
	for _, pre := range p {
		if pre.Contains(a) {
			return true
		}
	}
	return false
}

// origin is where a request came from as far as the server can tell: the client's address and
// whether it reached the server (or its trusted proxy) over TLS.
type origin struct {
	addr   string
	secure bool
}

type originKey struct{}

// origin works out r's origin: its peer's address and TLS, or, from a trusted proxy, the
// X-Forwarded-For address nearest the client that is not itself a trusted proxy and the
// X-Forwarded-Proto the proxy set.
func (p TrustedProxies) origin(r *http.Request) origin {
	o := origin{addr: peerAddr(r), secure: r.TLS != nil}
	peer, err := netip.ParseAddr(o.addr)
	if err != nil || !p.trusts(peer) {
		return o
	}
	if protos := r.Header.Values("X-Forwarded-Proto"); len(protos) > 0 {
		last := protos[len(protos)-1]
		if i := strings.LastIndexByte(last, ','); i >= 0 {
			last = last[i+1:]
		}
		o.secure = strings.EqualFold(strings.TrimSpace(last), "https")
	}
	hops := strings.Split(strings.Join(r.Header.Values("X-Forwarded-For"), ","), ",")
	for i := len(hops) - 1; i >= 0; i-- {
		a, err := netip.ParseAddr(strings.TrimSpace(hops[i]))
		if err != nil {
			break // a hop the proxies did not write: trust nothing further out
		}
		o.addr = a.Unmap().String()
		if !p.trusts(a) {
			break
		}
	}
	return o
}

// withOrigin records each request's origin for ClientAddr and Secure.
func (p TrustedProxies) withOrigin(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		o := p.origin(r)
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), originKey{}, o)))
	})
}

// peerAddr is the address of the connection's other end, without the port.
func peerAddr(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	if a, err := netip.ParseAddr(host); err == nil {
		return a.Unmap().String()
	}
	return host
}

// ClientAddr returns the address of the client that sent r: its peer, or, behind a trusted
// proxy (Server.TrustedProxies), the client the proxy names in X-Forwarded-For.
func ClientAddr(r *http.Request) string {
	if o, ok := r.Context().Value(originKey{}).(origin); ok {
		return o.addr
	}
	return peerAddr(r)
}

// Secure reports whether r came over TLS: to this server, or to a trusted proxy that says so
// in X-Forwarded-Proto. Cookies set in answer to it are marked Secure.
func Secure(r *http.Request) bool {
	if o, ok := r.Context().Value(originKey{}).(origin); ok {
		return o.secure
	}
	return r.TLS != nil
}
