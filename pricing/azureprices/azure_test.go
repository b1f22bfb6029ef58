package azureprices

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/catalog"
	"github.com/gpucost/gpucost/pricing"
)

var readAt = time.Date(2026, 11, 22, 9, 30, 0, 0, time.UTC)

func noSleep(context.Context, time.Duration) error { return nil }

// server answers the recorded pages: page1.json, then page2.json for $skip=100. The first
// fail requests get status failWith.
func server(t *testing.T, fail int32, failWith int) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := calls.Add(1)
		if n <= fail {
			w.Header().Set("Retry-After", "1")
			http.Error(w, `{"Error":{"Code":"TooManyRequests"}}`, failWith)
			return
		}
		if r.URL.Path != "/api/retail/prices" {
			http.NotFound(w, r)
			return
		}
		f := r.URL.Query().Get("$filter")
		if !strings.Contains(f, "armRegionName eq 'eastus'") || !strings.Contains(f, "serviceName eq 'Virtual Machines'") {
			t.Errorf("request filter %q lacks the region or service", f)
		}
		name := "testdata/page1.json"
		if r.URL.Query().Get("$skip") == "100" {
			name = "testdata/page2.json"
		}
		body, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write(body)
	}))
	t.Cleanup(srv.Close)
	return srv, &calls
}

func newClient(t *testing.T, base string) *Client {
	t.Helper()
	c, err := catalog.Bundled()
	if err != nil {
		t.Fatal(err)
	}
	return &Client{BaseURL: base, GPUs: pricing.CatalogGPUs(c), Now: func() time.Time { return readAt },
		Retry: pricing.Retry{Sleep: noSleep}}
}

func TestFetchPagesAndMergesSpot(t *testing.T) {
	srv, _ := server(t, 0, 0)
	res, err := newClient(t, srv.URL).Fetch(context.Background(), []string{"eastus"})
	if err != nil {
		t.Fatalf("Fetch: %v", err)
	}
	if res.Pages != 2 {
		t.Errorf("Pages = %d, want 2", res.Pages)
	}
	type want struct {
		model    string
		gpus     float64
		od, spot int64
		hasSpot  bool
		memGB    float64
		instance string
	}
	wants := []want{
		{"A100-80GB", 1, 3_673_000_000, 734_600_000, true, 80, "Standard_NC24ads_A100_v4"},
		{"H100-SXM", 8, 98_320_000_000, 28_218_400_000, true, 80, "Standard_ND96isr_H100_v5"},
		{"A10", 1.0 / 6, 454_000_000, 0, false, 24, "Standard_NV6ads_A10_v5"},
	}
	if len(res.Offers) != len(wants) {
		t.Fatalf("Fetch: %d offers, want %d: %+v", len(res.Offers), len(wants), res.Offers)
	}
	for i, w := range wants {
		o := res.Offers[i]
		if o.InstanceType != w.instance || o.GPUModel != w.model || o.GPUCount != w.gpus || o.GPUMemoryGB != w.memGB ||
			o.OnDemand.Nanos != w.od || !o.HasOnDemand || o.SpotPrice.Nanos != w.spot || o.HasSpot != w.hasSpot {
			t.Errorf("offer %d = %+v, want %+v", i, o, w)
		}
		if o.Provider != "azure" || o.Region != "eastus" || o.Source != "Azure Retail Prices API 2026-11-22" || !o.AsOf.Equal(readAt) {
			t.Errorf("offer %d provenance = %s %s %q %v", i, o.Provider, o.Region, o.Source, o.AsOf)
		}
	}
	counts := res.SkipCounts()
	for reason, n := range map[string]int{
		"Windows price (Linux prices only)":         1,
		"low-priority price (spot prices are used)": 1,
		"not a GPU VM size":                         1,
		"price 0.0 is not a positive decimal":       1,
	} {
		if counts[reason] != n {
			t.Errorf("skipped %q: %d, want %d (all: %v)", reason, counts[reason], n, counts)
		}
	}
	if s := res.Skipped[0]; s.File != "Azure Retail Prices API region eastus page 1" || s.Line != 3 || s.Field != "productName" {
		t.Errorf("first skip = %+v, want page 1 item 3 productName", s)
	}
}

func TestFetchRetriesThrottling(t *testing.T) {
	srv, calls := server(t, 2, http.StatusTooManyRequests)
	res, err := newClient(t, srv.URL).Fetch(context.Background(), []string{"eastus"})
	if err != nil {
		t.Fatalf("Fetch after two 429s: %v", err)
	}
	if len(res.Offers) != 3 || calls.Load() != 4 {
		t.Errorf("Fetch after two 429s: %d offers in %d requests, want 3 in 4", len(res.Offers), calls.Load())
	}
}

func TestFetchUnavailable(t *testing.T) {
	srv, calls := server(t, 100, http.StatusInternalServerError)
	_, err := newClient(t, srv.URL).Fetch(context.Background(), []string{"eastus"})
	if gpucost.ErrorCode(err) != gpucost.EUnavailable || !strings.Contains(err.Error(), "HTTP 500") ||
		!strings.Contains(err.Error(), "failed 4 times") {
		t.Errorf("Fetch against HTTP 500 = %v (%s), want EUnavailable after 4 tries", err, gpucost.ErrorCode(err))
	}
	if calls.Load() != 4 {
		t.Errorf("Fetch against HTTP 500 made %d requests, want 4", calls.Load())
	}
	down := httptest.NewServer(http.NotFoundHandler())
	down.Close()
	_, err = newClient(t, down.URL).Fetch(context.Background(), nil)
	if gpucost.ErrorCode(err) != gpucost.EUnavailable {
		t.Errorf("Fetch from a closed port = %v, want EUnavailable", err)
	}
}

func TestFetchRejects400(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, `{"Error":{"Code":"InvalidFilter","Message":"Invalid OData parameter"}}`, http.StatusBadRequest)
	}))
	defer srv.Close()
	_, err := newClient(t, srv.URL).Fetch(context.Background(), []string{"eastus"})
	if gpucost.ErrorCode(err) != gpucost.EInvalid || !strings.Contains(err.Error(), "InvalidFilter") {
		t.Errorf("Fetch against HTTP 400 = %v, want EInvalid quoting the API's message", err)
	}
}

func TestDecodeMalformed(t *testing.T) {
	for _, tc := range []struct{ name, body, want string }{
		{"not JSON", `<html>`, "invalid character"},
		{"no Items", `{"Count":0}`, "field Items is missing"},
		{"price not a number", `{"Items":[{"retailPrice":"abc"}]}`, "retailPrice"},
		{"Items not a list", `{"Items":{}}`, "Items"},
	} {
		_, err := Decode([]byte(tc.body))
		if gpucost.ErrorCode(err) != gpucost.EInvalid || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: Decode(%s) = %v, want EInvalid mentioning %q", tc.name, tc.body, err, tc.want)
		}
	}
}

func FuzzDecode(f *testing.F) {
	for _, name := range []string{"testdata/page1.json", "testdata/page2.json"} {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte(`{"Items":[{"retailPrice":1e400}]}`))
	gpus := func(s string) (string, float64, bool) { return "A100-80GB", 1, strings.HasPrefix(s, "Standard_N") }
	f.Fuzz(func(t *testing.T, body []byte) {
		p, err := Decode(body)
		if err != nil {
			if gpucost.ErrorCode(err) != gpucost.EInvalid {
				t.Fatalf("Decode error %v is not EInvalid", err)
			}
			return
		}
		res := &pricing.Result{}
		b := newBook(res)
		for i, it := range p.Items {
			b.add(it, "fuzz", i+1, gpus)
		}
		for _, o := range b.offers() {
			if o.HasOnDemand && o.OnDemand.Nanos <= 0 || o.HasSpot && o.SpotPrice.Nanos <= 0 {
				t.Fatalf("offer with a non-positive price: %+v", o)
			}
		}
		if len(b.offers())+len(res.Skipped) > len(p.Items) {
			t.Fatalf("%d offers and %d skips from %d items", len(b.offers()), len(res.Skipped), len(p.Items))
		}
	})
}

func BenchmarkDecodeAndBook(b *testing.B) {
	body, err := os.ReadFile("testdata/page1.json")
	if err != nil {
		b.Fatal(err)
	}
	c, err := catalog.Bundled()
	if err != nil {
		b.Fatal(err)
	}
	gpus := pricing.CatalogGPUs(c)
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		p, err := Decode(body)
		if err != nil {
			b.Fatal(err)
		}
		bk := newBook(&pricing.Result{})
		for i, it := range p.Items {
			bk.add(it, "bench", i+1, gpus)
		}
	}
}
