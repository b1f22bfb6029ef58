package httpapi

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/sqlite"
	"github.com/gpucost/gpucost/telemetry"
)

// fixture is a server over a real SQLite store with one token of each role.
type fixture struct {
	db      *sqlite.DB
	writer  *telemetry.Writer
	srv     *Server
	ts      *httptest.Server
	secrets map[gpucost.Role]string
	revoked string
	logs    *bytes.Buffer
}

var testNow = time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)

func newFixture(t testing.TB) *fixture {
	t.Helper()
	ctx := context.Background()
	db, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "g.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	f := &fixture{db: db, secrets: map[gpucost.Role]string{}, logs: &bytes.Buffer{}}
	for _, role := range []gpucost.Role{gpucost.RoleViewer, gpucost.RoleIngest, gpucost.RoleAdmin, "revoked"} {
		secret, err := gpucost.NewTokenSecret()
		if err != nil {
			t.Fatal(err)
		}
		r := role
		if role == "revoked" {
			r = gpucost.RoleAdmin
		}
		tok, err := db.CreateToken(ctx, gpucost.Token{Name: string(role) + "-token", Role: r}, gpucost.HashTokenSecret(secret))
		if err != nil {
			t.Fatal(err)
		}
		if role == "revoked" {
			f.revoked = secret
			if err := db.RevokeToken(ctx, tok.ID, testNow); err != nil {
				t.Fatal(err)
			}
			continue
		}
		f.secrets[role] = secret
	}
	f.writer = &telemetry.Writer{Store: db, IdleBelow: 5}
	f.srv = &Server{Tokens: db, Ingest: f.writer, Ready: db.Ping, Now: func() time.Time { return testNow },
		Log: slogTo(f.logs)}
	f.ts = httptest.NewServer(f.srv.Handler())
	t.Cleanup(f.ts.Close)
	return f
}

// storedSamples closes the writer and counts the samples in the store's minute rollups.
func (f *fixture) storedSamples(t testing.TB) int {
	t.Helper()
	ctx := context.Background()
	if err := f.writer.Close(ctx); err != nil {
		t.Fatal(err)
	}
	n := 0
	err := f.db.ScanRollups(ctx, time.Minute, gpucost.RollupFilter{}, func(r *gpucost.Rollup) error {
		n += r.Samples
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func (f *fixture) do(t testing.TB, method, path, secret string, body []byte, header ...string) (int, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, f.ts.URL+path, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if secret != "" {
		req.Header.Set("Authorization", "Bearer "+secret)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := f.ts.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, out
}

// testSamples returns n GPUs' samples at one second each, over secs seconds.
func testSamples(hosts, gpus, secs int, start time.Time) []gpucost.Sample {
	var out []gpucost.Sample
	for s := range secs {
		for h := range hosts {
			for g := range gpus {
				smp := gpucost.NewSample(start.Add(time.Duration(s)*time.Second), gpucost.GPU{
					UUID: fmt.Sprintf("GPU-%04d-%d", h, g), Host: fmt.Sprintf("host-%04d", h), Model: "NVIDIA H100 80GB HBM3", Index: g})
				smp.Util = float64((h + g + s) % 101)
				smp.MemUsedMiB, smp.MemTotalMiB, smp.PowerW = 1000, 81559, 300
				smp.Labels = gpucost.Labels{"namespace": "team-" + fmt.Sprint(h%5)}
				out = append(out, smp)
			}
		}
	}
	return out
}

func samplesBody(t testing.TB, samples []gpucost.Sample) []byte {
	t.Helper()
	req := SamplesRequest{Samples: make([]SampleJSON, len(samples))}
	for i := range samples {
		req.Samples[i] = FromSample(samples[i])
	}
	b, err := json.Marshal(req)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func gzipped(b []byte) []byte {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write(b)
	zw.Close()
	return buf.Bytes()
}

func TestAuthMatrix(t *testing.T) {
	f := newFixture(t)
	body := samplesBody(t, testSamples(1, 2, 3, testNow.Add(-time.Hour)))
	cases := []struct {
		name, method, path, secret string
		want                       int
	}{
		{"health without token", "GET", "/healthz", "", 200},
		{"ready without token", "GET", "/readyz", "", 200},
		{"openapi without token", "GET", "/api/openapi.json", "", 200},
		{"whoami without token", "GET", "/api/v1/whoami", "", 401},
		{"whoami bad token", "GET", "/api/v1/whoami", "gpc_nope", 401},
		{"whoami revoked token", "GET", "/api/v1/whoami", f.revoked, 401},
		{"whoami viewer", "GET", "/api/v1/whoami", f.secrets[gpucost.RoleViewer], 200},
		{"whoami ingest", "GET", "/api/v1/whoami", f.secrets[gpucost.RoleIngest], 200},
		{"samples without token", "POST", "/api/v1/samples", "", 401},
		{"samples bad token", "POST", "/api/v1/samples", "gpc_" + strings.Repeat("A", 43), 401},
		{"samples revoked token", "POST", "/api/v1/samples", f.revoked, 401},
		{"samples viewer", "POST", "/api/v1/samples", f.secrets[gpucost.RoleViewer], 403},
		{"samples wrong method", "GET", "/api/v1/samples", f.secrets[gpucost.RoleAdmin], 405},
		{"unknown path", "GET", "/api/v1/nothing", f.secrets[gpucost.RoleAdmin], 404},
	}
	for _, c := range cases {
		status, out := f.do(t, c.method, c.path, c.secret, body)
		if status != c.want {
			t.Errorf("%s: %s %s = %d %s; want %d", c.name, c.method, c.path, status, out, c.want)
		}
	}
	if n := f.storedSamples(t); n != 0 {
		t.Fatalf("after refused requests the store holds %d samples; want 0", n)
	}
	for _, role := range []gpucost.Role{gpucost.RoleIngest, gpucost.RoleAdmin} {
		status, out := f.do(t, "POST", "/api/v1/samples", f.secrets[role], body)
		if status != 200 || !strings.Contains(string(out), `"accepted":6`) {
			t.Errorf("POST samples as %s = %d %s; want 200 with 6 accepted", role, status, out)
		}
	}
	if n := f.storedSamples(t); n != 6 {
		t.Errorf("store holds %d samples; want 6 (the second post repeats the first)", n)
	}
	status, out := f.do(t, "GET", "/api/v1/whoami", f.secrets[gpucost.RoleViewer], nil)
	var tok gpucost.Token
	if status != 200 || json.Unmarshal(out, &tok) != nil || tok.Role != gpucost.RoleViewer || tok.Name != "viewer-token" {
		t.Errorf("whoami as viewer = %d %s", status, out)
	}
	for _, secret := range f.secrets {
		if strings.Contains(f.logs.String(), secret) || strings.Contains(string(out), secret) {
			t.Errorf("a token secret appears in the log or a response")
		}
	}
	if !strings.Contains(f.logs.String(), "token_id=") {
		t.Errorf("the log names no token id:\n%s", f.logs)
	}
}

func TestSamplesBadBodies(t *testing.T) {
	f := newFixture(t)
	f.srv.MaxBody, f.srv.MaxDecoded = 64<<10, 1<<20
	f.ts.Config.Handler = f.srv.Handler()
	ingest := f.secrets[gpucost.RoleIngest]
	big := samplesBody(t, testSamples(40, 8, 5, testNow.Add(-time.Hour))) // ~400 KB of JSON
	huge := []byte(`{"samples":[` + strings.Repeat(" ", 2<<20) + `]}`)    // 2 MiB that gzips small
	cases := []struct {
		name   string
		body   []byte
		header []string
		want   int
		reason string
	}{
		{"empty", nil, nil, 400, "empty"},
		{"not JSON", []byte("hello"), nil, 400, "malformed JSON at byte"},
		{"truncated", []byte(`{"samples":[{"time":"2026-11-22T09:00:00Z"`), nil, 400, "ends early"},
		{"no samples field", []byte(`{"sample":[]}`), nil, 400, `no "samples" array`},
		{"wrong type", []byte(`{"samples":[{"util":"high"}]}`), nil, 400, "samples.util"},
		{"bad time", []byte(`{"samples":[{"time":"yesterday"}]}`), nil, 400, "yesterday"},
		{"trailing data", []byte(`{"samples":[]} {}`), nil, 400, "after the JSON object"},
		{"too large as sent", big, nil, 413, "over the limit of 64 KiB as sent"},
		{"too large decompressed", gzipped(huge), []string{"Content-Encoding", "gzip"}, 413, "limit of 1 MiB once decompressed"},
		{"bad gzip", []byte("not gzip"), []string{"Content-Encoding", "gzip"}, 400, "gzip"},
		{"other encoding", []byte("{}"), []string{"Content-Encoding", "br"}, 415, "br"},
		{"other type", []byte("{}"), []string{"Content-Type", "text/csv"}, 415, "text/csv"},
	}
	for _, c := range cases {
		status, out := f.do(t, "POST", "/api/v1/samples", ingest, c.body, c.header...)
		var eb ErrorBody
		if status != c.want || json.Unmarshal(out, &eb) != nil || !strings.Contains(eb.Error.Message, c.reason) {
			t.Errorf("%s: POST = %d %s; want %d with a reason holding %q", c.name, status, out, c.want, c.reason)
		}
	}
	if n := f.storedSamples(t); n != 0 {
		t.Errorf("after bad bodies the store holds %d samples; want 0", n)
	}
}

func TestSamplesGzipAndSkips(t *testing.T) {
	f := newFixture(t)
	good := testSamples(2, 4, 10, testNow.Add(-2*time.Hour))
	bad := []gpucost.Sample{
		gpucost.NewSample(testNow.Add(-time.Hour), gpucost.GPU{UUID: "GPU-x", Host: "h"}),           // no utilisation
		gpucost.NewSample(testNow.Add(time.Hour), gpucost.GPU{UUID: "GPU-y", Host: "h", Index: -1}), // clock ahead
	}
	bad[1].Util = 50
	body := gzipped(samplesBody(t, append(good, bad...)))
	status, out := f.do(t, "POST", "/api/v1/samples", f.secrets[gpucost.RoleIngest], body,
		"Content-Encoding", "gzip", "Content-Type", "application/json; charset=utf-8")
	var resp SamplesResponse
	if status != 200 || json.Unmarshal(out, &resp) != nil {
		t.Fatalf("POST gzip = %d %s", status, out)
	}
	if resp.Accepted != len(good) || resp.Skipped != 2 || len(resp.Skips) != 2 ||
		resp.Skips[0].Index != len(good) || resp.Skips[0].Field != "util" || resp.Skips[1].Field != "time" {
		t.Errorf("POST gzip = %+v; want %d accepted and the two bad samples skipped, named", resp, len(good))
	}
	if n := f.storedSamples(t); n != len(good) {
		t.Errorf("store holds %d samples; want %d", n, len(good))
	}
}

func TestReadyzFailsWhenStoreIsDown(t *testing.T) {
	f := newFixture(t)
	f.srv.Ready = func(ctx context.Context) error { return fmt.Errorf("database is locked") }
	f.ts.Config.Handler = f.srv.Handler()
	if status, out := f.do(t, "GET", "/readyz", "", nil); status != 503 || strings.Contains(string(out), "locked") {
		t.Errorf("readyz with the store down = %d %s; want 503 without the store's error text", status, out)
	}
}

func TestWireRoundTrip(t *testing.T) {
	s := gpucost.NewSample(testNow, gpucost.GPU{UUID: "MIG-1", Host: "h", Index: -1, Parent: "GPU-1", Profile: "1g.10gb"})
	s.Util, s.SMActive = 0, 0.5
	s.Labels = gpucost.Labels{"pod": "p"}
	b, err := json.Marshal(FromSample(s))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), "NaN") || strings.Contains(string(b), "power_w") || strings.Contains(string(b), "index") {
		t.Errorf("FromSample JSON = %s; want absent readings and the unknown index left out", b)
	}
	var j SampleJSON
	if err := json.Unmarshal(b, &j); err != nil {
		t.Fatal(err)
	}
	got := j.Sample()
	if got.Util != 0 || got.SMActive != 0.5 || !gpucost.IsAbsent(got.PowerW) || got.GPU != s.GPU ||
		!got.Time.Equal(s.Time) || got.Labels.String() != "pod=p" {
		t.Errorf("round trip = %+v; want %+v", got, s)
	}
}
