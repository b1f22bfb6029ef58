package web

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
)

func TestSessionRoundTrip(t *testing.T) {
	k := newKeys([]byte("0123456789abcdef0123456789abcdef"))
	hash := gpucost.HashTokenSecret("gpc_secret")
	s := newSession(hash, testNow.Add(SessionTTL))
	v := k.encode(s)
	if strings.Contains(v, "gpc_") {
		t.Fatalf("cookie %q holds the secret", v)
	}
	got, err := k.decode(v, testNow)
	if err != nil || string(got.TokenHash) != string(hash) || !got.Expires.Equal(s.Expires) || string(got.Nonce) != string(s.Nonce) {
		t.Fatalf("decode(encode(s)) = %+v, %v; want %+v", got, err, s)
	}
	if _, err := k.decode(v, s.Expires); err == nil {
		t.Error("decode at the expiry time succeeded")
	}
	// Each session has its own nonce, so its own CSRF token.
	if other := newSession(hash, s.Expires); k.csrfToken(other) == k.csrfToken(s) {
		t.Error("two sessions share a CSRF token")
	}
	// A session MAC is no CSRF token and the other way round: the keys differ by use.
	if string(k.session) == string(k.csrf) || string(k.csrf) == string(k.loginCSRF) {
		t.Error("keys are not separated by use")
	}
}

// FuzzSessionCookie feeds cookie values (outside input) to decode: it never panics, and a value
// it accepts is exactly the encoding of the session it returns.
func FuzzSessionCookie(f *testing.F) {
	k := newKeys([]byte("0123456789abcdef0123456789abcdef"))
	good := k.encode(newSession(gpucost.HashTokenSecret("gpc_x"), testNow.Add(time.Hour)))
	for _, seed := range []string{good, good[:len(good)-1], good + "=", "." + good, "", ".", "a.b", strings.Repeat("A", 75) + "." + strings.Repeat("B", 43)} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, v string) {
		s, err := k.decode(v, testNow)
		if err != nil {
			return
		}
		if k.encode(s) != v {
			t.Fatalf("decode accepted %q, which is not the encoding of %+v", v, s)
		}
	})
}

// FuzzQueryParams feeds the page parameters people type or links carry to their parsers.
func FuzzQueryParams(f *testing.F) {
	for _, seed := range []string{"7d", "36h", "team=ml,namespace=serving", "team=ml env=prod", "/costs?by=team", "//evil.example", "/\\x", "https://x", "=x", "0d", "9999999999999999999d"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if d, err := parseSince(s); err == nil && (d < time.Hour || d > 366*day) {
			t.Fatalf("parseSince(%q) = %v, outside [1h, 366d]", s, d)
		}
		if m, norm, err := parseFilter(s); err == nil {
			again, norm2, err := parseFilter(norm)
			if err != nil || norm2 != norm || len(again) != len(m) {
				t.Fatalf("parseFilter(%q) normalised to %q, which reads back as %v, %q, %v", s, norm, again, norm2, err)
			}
		}
		next := safeNext(s)
		if next == "" || next[0] != '/' || strings.HasPrefix(next, "//") || strings.ContainsAny(next, "\\\r\n") {
			t.Fatalf("safeNext(%q) = %q: not a path on this site", s, next)
		}
	})
}

func TestChartJSONEscapes(t *testing.T) {
	for _, v := range []any{
		stackedChart{X: []string{"</script><script>alert(1)</script>"}, Series: []stackGroup{{Name: "<!--", Values: []float64{1}, Labels: []string{"&"}}}},
		heatmapChart{X: []string{"</script>"}, Y: []string{"<b>"}, Cells: cells{{0, 0, 12.5}}},
	} {
		js, err := chartJSON(v)
		if err != nil {
			t.Fatal(err)
		}
		if strings.ContainsAny(string(js), "<>&") {
			t.Errorf("chartJSON(%+v) = %s: holds <, > or &", v, js)
		}
		var back map[string]any
		if err := json.Unmarshal([]byte(js), &back); err != nil {
			t.Errorf("chartJSON(%+v) = %s: not JSON: %v", v, js, err)
		}
	}
	if _, err := chartJSON(heatmapChart{Cells: cells{{0, 0, math.NaN()}}}); err == nil {
		t.Error("chartJSON took a NaN cell")
	}
}
