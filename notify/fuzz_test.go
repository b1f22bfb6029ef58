package notify

import (
	"encoding/hex"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"
)

// FuzzVerify feeds Verify what a webhook receiver gets from the network: signature and
// timestamp headers and a body. Verify must never panic; a request signed by sign, as Send signs
// it, with the same secret, body and time must verify; a one-byte change to the body, a timestamp
// or signature header the fuzzer built, or an empty secret must fail unless the header is the
// real one (hex, in either case, of the same MAC).
func FuzzVerify(f *testing.F) {
	f.Add("k1", []byte(`{"key":"k"}`), int64(1795683600), "sha256=00", "1795683600", uint(3), byte(1))
	f.Add("s3cr3t", []byte(""), int64(0), "sha256=", "+0", uint(0), byte(0x80))
	f.Add("k2", []byte("x"), int64(-1), "", "-1", uint(0), byte(0))
	f.Add("k", []byte("1.2"), int64(1), "sha256=ZZ", "01", uint(1), byte('.'))
	f.Fuzz(func(t *testing.T, secret string, body []byte, unix int64, sigHdr, tsHdr string, at uint, flip byte) {
		if len(body) > 64<<10 || len(secret) > 1<<10 || len(sigHdr) > 1<<10 || len(tsHdr) > 1<<10 {
			return
		}
		const tol = 5 * time.Minute
		now := time.Unix(unix, 0)
		ts := strconv.FormatInt(unix, 10)
		real := "sha256=" + hex.EncodeToString(sign(secret, ts, body))
		hdr := func(ts, sig string) http.Header {
			return http.Header{HeaderTimestamp: {ts}, HeaderSignature: {sig}}
		}

		err := Verify(secret, hdr(ts, real), body, now, tol)
		if secret == "" {
			if err == nil {
				t.Fatalf("Verify(secret %q, signed %q) = nil, want an error: an empty secret signs nothing", secret, body)
			}
		} else if err != nil {
			t.Fatalf("Verify(secret %q, signed %q at %d) = %v, want nil", secret, body, unix, err)
		}

		if len(body) > 0 && flip != 0 {
			changed := []byte(string(body))
			changed[at%uint(len(body))] ^= flip
			if err := Verify(secret, hdr(ts, real), changed, now, tol); !errors.Is(err, ErrBadSignature) {
				t.Fatalf("Verify(secret %q, signed %q, body changed to %q) = %v, want ErrBadSignature", secret, body, changed, err)
			}
		}

		// A signature header the fuzzer built, with the real timestamp.
		if err := Verify(secret, hdr(ts, sigHdr), body, now, tol); err == nil && (secret == "" || !strings.EqualFold(sigHdr, real)) {
			t.Fatalf("Verify(secret %q, body %q, signature %q) = nil, want an error: the real one is %q", secret, body, sigHdr, real)
		}

		// A timestamp header the fuzzer built, with the real signature for ts.
		if err := Verify(secret, hdr(tsHdr, real), body, now, tol); err == nil && (secret == "" || tsHdr != ts) {
			t.Fatalf("Verify(secret %q, body %q, timestamp %q signed as %q) = nil, want an error", secret, body, tsHdr, ts)
		}

		// Both headers the fuzzer's: whatever verifies must carry the MAC of what it claims.
		err = Verify(secret, hdr(tsHdr, sigHdr), body, now, tol)
		if err == nil {
			want := "sha256=" + hex.EncodeToString(sign(secret, tsHdr, body))
			sent, perr := strconv.ParseInt(tsHdr, 10, 64)
			if secret == "" || !strings.EqualFold(sigHdr, want) || perr != nil || now.Sub(time.Unix(sent, 0)).Abs() > tol {
				t.Fatalf("Verify(secret %q, body %q, timestamp %q, signature %q, now %d) = nil, want an error", secret, body, tsHdr, sigHdr, unix)
			}
		} else if !errors.Is(err, ErrNoSignature) && !errors.Is(err, ErrBadSignature) && !errors.Is(err, ErrStale) {
			t.Fatalf("Verify(timestamp %q, signature %q) = %v, want one of the package's errors", tsHdr, sigHdr, err)
		}
	})
}
