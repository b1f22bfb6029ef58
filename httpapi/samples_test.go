package httpapi

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
)

// emptySamplesBomb returns the gzip of {"samples":[{},{},…]} with n empty samples: about 61 KB
// for 20 million, 60 MB once decompressed, within DefaultMaxDecoded.
func emptySamplesBomb(t testing.TB, n int) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw, err := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	if err != nil {
		t.Fatal(err)
	}
	zw.Write([]byte(`{"samples":[{}`))
	chunk := []byte(strings.Repeat(",{}", 4096))
	for left := n - 1; left > 0; left -= 4096 {
		zw.Write(chunk[:3*min(left, 4096)])
	}
	zw.Write([]byte(`]}`))
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// serveMeasured serves one request in-process and returns the response with the bytes the
// runtime allocated and the live heap's growth while serving it.
// discardIngester takes samples and keeps none.
type discardIngester struct{}

func (discardIngester) Add(context.Context, ...gpucost.Sample) error { return nil }

func serveMeasured(h http.Handler, r *http.Request) (res *httptest.ResponseRecorder, allocated, heapGrowth int64) {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	res = httptest.NewRecorder()
	h.ServeHTTP(res, r)
	runtime.ReadMemStats(&after)
	return res, int64(after.TotalAlloc - before.TotalAlloc), int64(after.HeapAlloc) - int64(before.HeapAlloc)
}

// TestSamplesBombRefused sends the 61 KB gzip of 20 million empty samples that took the server
// to 15 GB: it must be refused with 413 once MaxSamplesPerRequest is passed, having allocated
// less than 50 MB in all.
func TestSamplesBombRefused(t *testing.T) {
	f := newFixture(t)
	h := f.srv.Handler()
	bomb := emptySamplesBomb(t, 20_000_000)
	t.Logf("bomb: %d bytes gzip'd", len(bomb))
	r := httptest.NewRequest("POST", "/api/v1/samples", bytes.NewReader(bomb))
	r.Header.Set("Authorization", "Bearer "+f.secrets[gpucost.RoleIngest])
	r.Header.Set("Content-Encoding", "gzip")
	res, allocated, growth := serveMeasured(h, r)
	t.Logf("allocated %d MB, heap grew %d MB", allocated>>20, growth>>20)
	var eb ErrorBody
	if res.Code != http.StatusRequestEntityTooLarge || json.Unmarshal(res.Body.Bytes(), &eb) != nil ||
		!strings.Contains(eb.Error.Message, fmt.Sprintf("more than %d samples", MaxSamplesPerRequest)) {
		t.Fatalf("POST the bomb = %d %s; want 413 naming the limit of %d samples", res.Code, res.Body, MaxSamplesPerRequest)
	}
	if allocated >= 50<<20 || growth >= 50<<20 {
		t.Errorf("POST the bomb allocated %d bytes, heap grew %d bytes; want under 50 MB each", allocated, growth)
	}
}

// TestSamplesLimits checks each limit of one push: samples, their memory, labels per sample.
func TestSamplesLimits(t *testing.T) {
	f := newFixture(t)
	f.srv.MaxSamples, f.srv.MaxSampleMemory = 100, 64<<10
	f.ts.Config.Handler = f.srv.Handler()
	ingest := f.secrets[gpucost.RoleIngest]
	manyLabels := `{"samples":[{"labels":{` + strings.TrimSuffix(strings.Repeat(`"k":"v",`, 10), ",")
	for i := range MaxLabelsPerSample {
		manyLabels += fmt.Sprintf(`,"k%d":"v"`, i)
	}
	manyLabels += `}}]}`
	bigLabels := `{"samples":[` + strings.TrimSuffix(strings.Repeat(`{"labels":{"a":"`+strings.Repeat("x", 4000)+`"}},`, 20), ",") + `]}`
	cases := []struct {
		name   string
		body   string
		want   int
		reason string
	}{
		{"at the sample cap", `{"samples":[` + strings.TrimSuffix(strings.Repeat(`{},`, 100), ",") + `]}`, 200, ""},
		{"over the sample cap", `{"samples":[` + strings.TrimSuffix(strings.Repeat(`{},`, 101), ",") + `]}`, 413, "more than 100 samples"},
		{"over the memory cap", bigLabels, 413, "more than 64 KiB in memory"},
		{"too many labels", manyLabels, 413, fmt.Sprintf("more than %d labels", MaxLabelsPerSample)},
		{"labels not an object", `{"samples":[{"labels":[1]}]}`, 400, "samples.labels"},
		{"label not a string", `{"samples":[{"labels":{"a":1}}]}`, 400, "samples.labels.a"},
		{"samples not an array", `{"samples":{"a":1}}`, 400, "cannot be an array of samples"},
		{"body not an object", `[1,2]`, 400, "the body is a JSON array"},
		{"unknown fields skipped", `{"agent":{"v":[1,{"x":null}]},"samples":[],"more":"x"}`, 200, ""},
		{"null samples", `{"samples":null}`, 400, `no "samples" array`},
	}
	for _, c := range cases {
		status, out := f.do(t, "POST", "/api/v1/samples", ingest, []byte(c.body))
		var eb ErrorBody
		json.Unmarshal(out, &eb)
		if status != c.want || !strings.Contains(eb.Error.Message, c.reason) {
			t.Errorf("%s: POST = %d %s; want %d with a reason holding %q", c.name, status, out, c.want, c.reason)
		}
	}
}

// cancelAfter is a body that cancels its request's context once n bytes are read: a client
// that goes away in the middle of a push.
type cancelAfter struct {
	r      io.Reader
	n      int
	cancel context.CancelFunc
}

func (c *cancelAfter) Read(p []byte) (int, error) {
	if c.n <= 0 {
		c.cancel()
	}
	p = p[:min(len(p), 512)]
	n, err := c.r.Read(p)
	c.n -= n
	return n, err
}

// TestSamplesStopWhenClientGoes checks that decoding stops when the request's context ends,
// and that nothing of the push is stored.
func TestSamplesStopWhenClientGoes(t *testing.T) {
	f := newFixture(t)
	h := f.srv.Handler()
	body := samplesBody(t, testSamples(10, 8, 50, testNow.Add(-time.Hour))) // 4,000 samples
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	r := httptest.NewRequestWithContext(ctx, "POST", "/api/v1/samples", &cancelAfter{r: bytes.NewReader(body), n: len(body) / 4, cancel: cancel})
	r.Header.Set("Authorization", "Bearer "+f.secrets[gpucost.RoleIngest])
	res := httptest.NewRecorder()
	h.ServeHTTP(res, r)
	if res.Code != http.StatusRequestTimeout || !strings.Contains(res.Body.String(), "cancelled") {
		t.Errorf("POST with the client gone = %d %s; want 408", res.Code, res.Body)
	}
	if n := f.storedSamples(t); n != 0 {
		t.Errorf("store holds %d samples of a push whose client went away; want 0", n)
	}
}

// FuzzSamplesMemory posts random bodies of samples with random labels and strings and checks
// that what one push allocates stays bounded: at most maxAllocPerByte times its decoded bytes
// (plus a fixed allowance), and at most a small multiple of the server's MaxSampleMemory
// however large the body, since decoding stops once that is passed.
func FuzzSamplesMemory(f *testing.F) {
	const (
		maxAllocPerByte = 40
		allowance       = 2 << 20
		sampleMemory    = 1 << 20
		maxAlloc        = 8*sampleMemory + allowance
	)
	fx := newFixture(f)
	fx.srv.MaxSamples, fx.srv.MaxSampleMemory = 20_000, sampleMemory
	// What the handler allocates, not the rollup writer: it holds samples across requests and
	// writes them when its buffer fills, which would charge one request for earlier ones.
	fx.srv.Ingest = discardIngester{}
	fx.srv.IngestLimit = Limit{Rate: -1} // the fixture's clock stands still: no bucket would refill
	h := fx.srv.Handler()
	secret := fx.secrets[gpucost.RoleIngest]
	f.Add(uint64(1), uint16(10), uint8(3), uint8(8), false)
	f.Add(uint64(2), uint16(5000), uint8(0), uint8(0), true)
	f.Add(uint64(3), uint16(3000), uint8(60), uint8(50), true)
	f.Add(uint64(4), uint16(1), uint8(255), uint8(255), false)
	f.Fuzz(func(t *testing.T, seed uint64, samples uint16, labels, strLen uint8, gz bool) {
		samples, labels, strLen = samples%8000, labels%64, strLen%64
		rng := rand.New(rand.NewPCG(seed, 1))
		var b strings.Builder
		b.WriteString(`{"samples":[`)
		for i := range int(samples) {
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, `{"time":"2026-11-22T09:%02d:00Z","gpu":{"uuid":%q,"host":"h"},"util":%d,"labels":{`,
				i%60, "GPU-"+strings.Repeat("u", rng.IntN(int(strLen)+1)), rng.IntN(101))
			for l := range rng.IntN(int(labels) + 1) {
				if l > 0 {
					b.WriteByte(',')
				}
				fmt.Fprintf(&b, `"k%d":%q`, l, strings.Repeat("v", rng.IntN(int(strLen)+1)))
			}
			b.WriteString(`}}`)
		}
		b.WriteString(`]}`)
		body := []byte(b.String())
		decoded := len(body)
		if gz {
			body = gzipped(body)
		}
		// TotalAlloc counts the whole process, the fuzzing engine's goroutines too, and they
		// only ever add to it: the least of three measurements is the handler's.
		limit := min(int64(maxAllocPerByte*decoded+allowance), maxAlloc)
		var res *httptest.ResponseRecorder
		var allocated int64
		for range 3 {
			r := httptest.NewRequest("POST", "/api/v1/samples", bytes.NewReader(body))
			if gz {
				r.Header.Set("Content-Encoding", "gzip")
			}
			r.Header.Set("Authorization", "Bearer "+secret)
			if res, allocated, _ = serveMeasured(h, r); allocated <= limit {
				break
			}
		}
		if res.Code != 200 && res.Code != 413 {
			t.Fatalf("POST %d samples = %d %s", samples, res.Code, res.Body)
		}
		if allocated > limit {
			t.Errorf("POST of %d bytes (%d samples, up to %d labels) = %d, allocated %d bytes; want at most %d",
				decoded, samples, labels, res.Code, allocated, limit)
		}
	})
}

// BenchmarkSamplesBomb posts the 61 KB gzip of 20 million empty samples and reports what each
// refusal allocates and takes: go test ./httpapi -run XXX -bench SamplesBomb -benchmem
func BenchmarkSamplesBomb(b *testing.B) {
	f := newFixture(b)
	f.srv.IngestLimit = Limit{Rate: -1}
	h := f.srv.Handler()
	bomb := emptySamplesBomb(b, 20_000_000)
	secret := f.secrets[gpucost.RoleIngest]
	b.ResetTimer()
	for b.Loop() {
		r := httptest.NewRequest("POST", "/api/v1/samples", bytes.NewReader(bomb))
		r.Header.Set("Authorization", "Bearer "+secret)
		r.Header.Set("Content-Encoding", "gzip")
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		if w.Code != http.StatusRequestEntityTooLarge {
			b.Fatalf("POST the bomb = %d", w.Code)
		}
	}
}

// TestSampleCostCoversHeap checks that sampleCost does not underestimate: the live heap of
// decoded samples and the gpucost.Samples they become stays within the sum of their costs.
func TestSampleCostCoversHeap(t *testing.T) {
	for _, c := range []struct {
		name          string
		labels, bytes int
	}{
		{"no labels", 0, 0},
		{"agent labels", 6, 12},
		{"many long labels", 60, 40},
	} {
		body := labelledBody(t, c.labels, c.bytes)
		var before, after runtime.MemStats
		runtime.GC()
		runtime.GC()
		runtime.ReadMemStats(&before)
		req, err := DecodeSamples(bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		kept := make([]gpucost.Sample, 0, len(req.Samples))
		for i := range req.Samples {
			kept = append(kept, req.Samples[i].Sample())
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
		var cost int64
		for i := range req.Samples {
			cost += sampleCost(&req.Samples[i])
		}
		live := int64(after.HeapAlloc) - int64(before.HeapAlloc)
		t.Logf("%s: live heap %d bytes, estimated %d (%.2f)", c.name, live, cost, float64(live)/float64(cost))
		if live > cost {
			t.Errorf("%s: %d samples hold %d bytes; sampleCost estimates only %d", c.name, len(kept), live, cost)
		}
		runtime.KeepAlive(kept)
		runtime.KeepAlive(req)
	}
}

// labelledBody returns a push of 4,000 samples with labels labels of about size bytes each.
//
//go:noinline
func labelledBody(t testing.TB, labels, size int) []byte {
	samples := testSamples(50, 8, 10, testNow.Add(-time.Hour))
	for i := range samples {
		samples[i].Labels = gpucost.Labels{}
		for l := range labels {
			samples[i].Labels[fmt.Sprintf("label-%d-%s", l, strings.Repeat("k", size/2))] = strings.Repeat("v", size/2) + fmt.Sprint(i)
		}
	}
	return samplesBody(t, samples)
}
