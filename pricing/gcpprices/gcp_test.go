package gcpprices

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

// server answers page1.json, then page2.json for its pageToken; the first fail requests get
// status failWith.
func server(t *testing.T, fail int32, failWith int) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if calls.Add(1) <= fail {
			http.Error(w, `{"error":{"code":503,"status":"UNAVAILABLE"}}`, failWith)
			return
		}
		if r.URL.Path != "/v1/services/6F81-5844-456A/skus" || r.URL.Query().Get("key") != "test-key" {
			http.Error(w, `{"error":{"code":403,"message":"API key not valid"}}`, http.StatusForbidden)
			return
		}
		name := "testdata/page1.json"
		if r.URL.Query().Get("pageToken") == "CiBjb21wdXRlLmdvb2dsZWFwaXMuY29tL3NrdXMvcGFnZTI=" {
			name = "testdata/page2.json"
		}
		body, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		w.Write(body)
	}))
	t.Cleanup(srv.Close)
	return srv, &calls
}

// testShapes are the bundled catalog's shapes of the machine types the fixtures price.
var testShapes = map[string]Shape{
	"a2-highgpu-1g": {VCPUs: 12, MemoryGiB: 85, GPUs: 1, GPUModel: "A100-40GB"},
	"g2-standard-4": {VCPUs: 4, MemoryGiB: 16, GPUs: 1, GPUModel: "L4"},
	"a3-highgpu-8g": {VCPUs: 208, MemoryGiB: 1872, GPUs: 8, GPUModel: "H100-SXM"},
}

func newClient(base string) *Client {
	return &Client{BaseURL: base, APIKey: "test-key", Now: func() time.Time { return readAt }, Retry: pricing.Retry{Sleep: noSleep}, Shapes: testShapes}
}

func TestFetchPagesAndSpot(t *testing.T) {
	srv, _ := server(t, 0, 0)
	res, err := newClient(srv.URL).Fetch(context.Background(), []string{"us-central1"})
	if err != nil {
		t.Fatalf("Fetch: %v", err)
	}
	if res.Pages != 2 {
		t.Errorf("Pages = %d, want 2", res.Pages)
	}
	type want struct {
		instance string
		gpus     float64
		od, spot int64
		hasSpot  bool
	}
	wants := []want{
		{"n1+T4:1", 1, 350_000_000, 140_000_000, true},
		{"n1+T4:2", 2, 700_000_000, 280_000_000, true},
		{"n1+T4:4", 4, 1_400_000_000, 560_000_000, true},
		{"n1+V100:1", 1, 2_480_000_000, 0, false},
		{"n1+V100:2", 2, 4_960_000_000, 0, false},
		{"n1+V100:4", 4, 9_920_000_000, 0, false},
		{"n1+V100:8", 8, 19_840_000_000, 0, false},
		// 12 × 0.031611 + 85 × 0.004237 + 2.933908 = 3.673385; spot 12 × 0.009483 + 85 × 0.001271 + 0.880172 = 1.102003
		{"a2-highgpu-1g", 1, 3_673_385_000, 1_102_003_000, true},
		// 4 × 0.024988 + 16 × 0.002927 + 0.560040 = 0.706824; spot 4 × 0.009996 + 16 × 0.001171 + 0.224016 = 0.282736
		{"g2-standard-4", 1, 706_824_000, 282_736_000, true},
	}
	if len(res.Offers) != len(wants) {
		t.Fatalf("Fetch: %d offers, want %d: %+v", len(res.Offers), len(wants), res.Offers)
	}
	for i, w := range wants {
		o := res.Offers[i]
		if o.InstanceType != w.instance || o.GPUCount != w.gpus || o.OnDemand.Nanos != w.od || !o.HasOnDemand ||
			o.SpotPrice.Nanos != w.spot || o.HasSpot != w.hasSpot || o.Region != "us-central1" {
			t.Errorf("offer %d = %+v, want %+v", i, o, w)
		}
		if o.Provider != "gcp" || o.Source != "Cloud Billing Catalog API 2026-11-22" || o.GPUMemoryGB == 0 {
			t.Errorf("offer %d provenance = %s %q memory %v", i, o.Provider, o.Source, o.GPUMemoryGB)
		}
	}
	counts := res.SkipCounts()
	for reason, n := range map[string]int{
		"not a GPU SKU": 1,
		"not an on-demand or spot price (Commit1Yr)":                       1,
		"GPU SKU of a machine family not priced as its machine types' GPU": 1,
		"not the core or RAM of a GPU machine family":                      1,
		"price 0 units 0 nanos is not a positive amount":                   1,
	} {
		if counts[reason] != n {
			t.Errorf("skipped %q: %d, want %d (all %v)", reason, counts[reason], n, counts)
		}
	}
}

func TestFetchAllRegions(t *testing.T) {
	srv, _ := server(t, 0, 0)
	res, err := newClient(srv.URL).Fetch(context.Background(), nil)
	if err != nil {
		t.Fatalf("Fetch: %v", err)
	}
	regions := map[string]int{}
	for _, o := range res.Offers {
		regions[o.Region]++
	}
	if regions["us-central1"] != 9 || regions["us-east1"] != 7 {
		t.Errorf("offers per region = %v, want 9 in us-central1 and 7 in us-east1", regions)
	}
	// us-east1 has the A2 core and RAM prices but no A100 price: a2-highgpu-1g is skipped there.
	var missing []gpucost.Skip
	for _, s := range res.Skipped {
		if strings.HasPrefix(s.Reason, "machine type not priced") {
			missing = append(missing, s)
		}
	}
	if len(missing) != 1 || missing[0].Field != "a2-highgpu-1g in us-east1" ||
		missing[0].Reason != "machine type not priced: no on-demand A100-40GB GPU price in the region" {
		t.Errorf("machine types skipped = %+v, want a2-highgpu-1g in us-east1 for want of an A100 price", missing)
	}
}

func TestMemoryNanos(t *testing.T) {
	for _, tc := range []struct {
		perGiB int64
		gib    float64
		want   int64
		ok     bool
	}{
		{4_237_000, 85, 360_145_000, true},
		{3, 0.5, 2, true},                // 1.5 nanos rounds half up
		{5, 0.25, 1, true},               // 1.25 rounds down
		{4_237_000, 1.0000001, 0, false}, // not whole MiB
		{1, 0, 0, false},
	} {
		got, ok := memoryNanos(tc.perGiB, tc.gib)
		if got != tc.want || ok != tc.ok {
			t.Errorf("memoryNanos(%d, %v) = %d, %v, want %d, %v", tc.perGiB, tc.gib, got, ok, tc.want, tc.ok)
		}
	}
}

func TestFamilyDescriptions(t *testing.T) {
	for desc, want := range map[string]string{
		"A2 Instance Core running in Americas":                                      "A2 core",
		"Spot Preemptible G2 Instance Ram running in Virginia":                      "G2 ram",
		"A3 Instance Ram running in Americas":                                       "A3 ram",
		"N2 Instance Core running in Americas":                                      "",
		"G2 Custom Instance Core running in Americas":                               "",
		"Nvidia Tesla A100 GPU running in Americas":                                 "A100-40GB",
		"Nvidia Tesla A100 80GB GPU running in Americas":                            "A100-80GB",
		"Nvidia L4 GPU attached to Spot Preemptible VMs running in Virginia":        "L4",
		"Nvidia H100 80GB GPU running in Americas":                                  "H100-SXM",
		"Nvidia H100 80GB Mega GPU running in Americas":                             "",
		"Nvidia L4 GPU Virtual Workstation running in Americas":                     "",
		"Nvidia H100 80GB GPU attached to DWS Defined Duration VMs running in Iowa": "",
	} {
		got := ""
		if fam, kind, ok := familyPart(desc); ok {
			got = fam + " " + kind
		} else if model, ok := familyGPU(desc); ok {
			got = model
		}
		if got != want {
			t.Errorf("family part of %q = %q, want %q", desc, got, want)
		}
	}
}

func TestShapesOfBundledCatalog(t *testing.T) {
	c, err := catalog.Bundled()
	if err != nil {
		t.Fatalf("catalog.Bundled: %v", err)
	}
	shapes := ShapesOf(c.Offers())
	for name, want := range map[string]Shape{
		"a2-highgpu-1g": testShapes["a2-highgpu-1g"],
		"g2-standard-4": testShapes["g2-standard-4"],
	} {
		if got := shapes[name]; got != want {
			t.Errorf("ShapesOf(bundled)[%s] = %+v, want %+v", name, got, want)
		}
	}
	if _, ok := shapes["n1+T4:1"]; ok {
		t.Errorf("ShapesOf(bundled) has the N1 GPU offer n1+T4:1")
	}
}

func TestFetchErrors(t *testing.T) {
	srv, calls := server(t, 2, http.StatusTooManyRequests)
	if _, err := newClient(srv.URL).Fetch(context.Background(), nil); err != nil || calls.Load() != 4 {
		t.Errorf("Fetch after two 429s = %v in %d requests, want success in 4", err, calls.Load())
	}
	srv, _ = server(t, 100, http.StatusServiceUnavailable)
	_, err := newClient(srv.URL).Fetch(context.Background(), nil)
	if gpucost.ErrorCode(err) != gpucost.EUnavailable || !strings.Contains(err.Error(), "HTTP 503") {
		t.Errorf("Fetch against HTTP 503 = %v, want EUnavailable", err)
	}
	srv, _ = server(t, 0, 0)
	c := newClient(srv.URL)
	c.APIKey = "wrong"
	_, err = c.Fetch(context.Background(), nil)
	if gpucost.ErrorCode(err) != gpucost.EInvalid || !strings.Contains(err.Error(), "API key not valid") {
		t.Errorf("Fetch with a bad key = %v, want EInvalid quoting the API", err)
	}
}

func TestDecodeMalformed(t *testing.T) {
	for _, tc := range []struct{ name, body, want string }{
		{"not JSON", `<html>`, "invalid character"},
		{"skus not a list", `{"skus":{}}`, "skus"},
		{"units not an integer", `{"skus":[{"pricingInfo":[{"pricingExpression":{"tieredRates":[{"unitPrice":{"units":"1.5"}}]}}]}]}`, "units"},
		{"nanos a string", `{"skus":[{"pricingInfo":[{"pricingExpression":{"tieredRates":[{"unitPrice":{"nanos":"x"}}]}}]}]}`, "nanos"},
	} {
		_, err := Decode([]byte(tc.body))
		if gpucost.ErrorCode(err) != gpucost.EInvalid || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: Decode(%s) = %v, want EInvalid mentioning %q", tc.name, tc.body, err, tc.want)
		}
	}
}

func TestSKUModel(t *testing.T) {
	for desc, want := range map[string]string{
		"Nvidia Tesla T4 GPU running in Americas":                 "T4",
		"Spot Preemptible Nvidia Tesla V100 GPU running in EMEA":  "V100-16GB",
		"Nvidia L4 GPU running in Americas":                       "L4",
		"Nvidia Tesla A100 80GB GPU running in Americas":          "A100-80GB",
		"N1 Predefined Instance Core running in Americas":         "",
		"Nvidia Tesla P4 Virtual Workstation GPU running in APAC": "P4",
	} {
		if got, _ := SKUModel(desc); got != want {
			t.Errorf("SKUModel(%q) = %q, want %q", desc, got, want)
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
	f.Add([]byte(`{"skus":[{"category":{"resourceFamily":"Compute","resourceGroup":"GPU","usageType":"OnDemand"},"description":"Nvidia Tesla T4 GPU","serviceRegions":["r"],"pricingInfo":[{"pricingExpression":{"usageUnit":"h","tieredRates":[{"unitPrice":{"currencyCode":"USD","units":"9223372036","nanos":999999999}}]}}]}]}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		p, err := Decode(body)
		if err != nil {
			if gpucost.ErrorCode(err) != gpucost.EInvalid {
				t.Fatalf("Decode error %v is not EInvalid", err)
			}
			return
		}
		res := &pricing.Result{}
		b := newBook(res, nil, testShapes)
		for i, s := range p.Skus {
			b.add(s, "fuzz", i+1)
		}
		for _, o := range b.offers() {
			if o.HasOnDemand && o.OnDemand.Nanos <= 0 || o.HasSpot && o.SpotPrice.Nanos <= 0 {
				t.Fatalf("offer with a non-positive price: %+v", o)
			}
		}
	})
}

func BenchmarkDecodeAndBook(b *testing.B) {
	body, err := os.ReadFile("testdata/page1.json")
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		p, err := Decode(body)
		if err != nil {
			b.Fatal(err)
		}
		bk := newBook(&pricing.Result{}, nil, testShapes)
		for i, s := range p.Skus {
			bk.add(s, "bench", i+1)
		}
		bk.offers()
	}
}
