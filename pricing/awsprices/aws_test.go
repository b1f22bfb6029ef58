package awsprices

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/retry"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/catalog"
	prices "github.com/gpucost/gpucost/pricing"
)

var readAt = time.Date(2026, 11, 22, 9, 30, 0, 0, time.UTC)

// server answers GetProducts (AWS JSON 1.1) with the two recorded pages and
// DescribeSpotPriceHistory (EC2 query) with spot.xml; the first fail requests get failWith.
func server(t *testing.T, fail int32, failWith int) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.HasPrefix(r.Header.Get("Authorization"), "AWS4-HMAC-SHA256 Credential=AKIDTEST/") {
			t.Errorf("request not signed with SigV4: Authorization %q", r.Header.Get("Authorization"))
		}
		if calls.Add(1) <= fail {
			w.Header().Set("Content-Type", "application/x-amz-json-1.1")
			w.WriteHeader(failWith)
			io.WriteString(w, `{"__type":"ThrottlingException","message":"Rate exceeded"}`)
			return
		}
		body, _ := io.ReadAll(r.Body)
		if r.Header.Get("X-Amz-Target") == "AWSPriceListService.GetProducts" {
			var in struct {
				ServiceCode string
				NextToken   string
				Filters     []struct{ Field, Type, Value string }
			}
			if err := json.Unmarshal(body, &in); err != nil || in.ServiceCode != "AmazonEC2" || len(in.Filters) != 6 {
				t.Errorf("GetProducts request %s: %v", body, err)
			}
			name := "testdata/products_page1.json"
			if in.NextToken == "eyJwYWdlIjoyfQ==" {
				name = "testdata/products_page2.json"
			}
			w.Header().Set("Content-Type", "application/x-amz-json-1.1")
			w.Write(mustRead(t, name))
			return
		}
		form := string(body)
		if !strings.Contains(form, "Action=DescribeSpotPriceHistory") || !strings.Contains(form, "InstanceType.1=g5.xlarge") ||
			!strings.Contains(form, "InstanceType.2=p5.48xlarge") || !strings.Contains(form, "ProductDescription.1=Linux%2FUNIX") {
			t.Errorf("DescribeSpotPriceHistory request %s", form)
		}
		w.Header().Set("Content-Type", "text/xml;charset=UTF-8")
		w.Write(mustRead(t, "testdata/spot.xml"))
	}))
	t.Cleanup(srv.Close)
	return srv, &calls
}

func mustRead(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func newClient(t *testing.T, base string) *Client {
	t.Helper()
	c, err := catalog.Bundled()
	if err != nil {
		t.Fatal(err)
	}
	return &Client{BaseURL: base, GPUs: prices.CatalogGPUs(c), Now: func() time.Time { return readAt },
		Credentials: aws.CredentialsProviderFunc(func(context.Context) (aws.Credentials, error) {
			return aws.Credentials{AccessKeyID: "AKIDTEST", SecretAccessKey: "secret"}, nil
		}),
		Backoff: retry.BackoffDelayerFunc(func(int, error) (time.Duration, error) { return 0, nil })}
}

func TestFetchProductsAndSpot(t *testing.T) {
	srv, _ := server(t, 0, 0)
	res, err := newClient(t, srv.URL).Fetch(context.Background(), []string{"us-east-1"})
	if err != nil {
		t.Fatalf("Fetch: %v", err)
	}
	type want struct {
		instance, zone, model string
		gpus                  float64
		od, spot              int64
	}
	wants := []want{
		{"g5.xlarge", "us-east-1c", "A10G", 1, 1_006_000_000, 422_600_000},
		{"p5.48xlarge", "us-east-1a", "H100-SXM", 8, 98_320_000_000, 38_112_700_000}, // the latest of two prices
		{"p5.48xlarge", "us-east-1b", "H100-SXM", 8, 98_320_000_000, 41_507_300_000},
	}
	if len(res.Offers) != len(wants) {
		t.Fatalf("Fetch: %d offers, want %d: %+v", len(res.Offers), len(wants), res.Offers)
	}
	for i, w := range wants {
		o := res.Offers[i]
		if o.InstanceType != w.instance || o.Zone != w.zone || o.GPUModel != w.model || o.GPUCount != w.gpus ||
			o.OnDemand.Nanos != w.od || o.SpotPrice.Nanos != w.spot || !o.HasOnDemand || !o.HasSpot || o.Region != "us-east-1" {
			t.Errorf("offer %d = %+v, want %+v", i, o, w)
		}
		if o.Source != "AWS Price List Query API 2026-11-22" || o.GPUMemoryGB == 0 {
			t.Errorf("offer %d source %q memory %v", i, o.Source, o.GPUMemoryGB)
		}
	}
	if res.Pages != 3 {
		t.Errorf("Pages = %d, want 3 (two of products, one of spot prices)", res.Pages)
	}
	counts := res.SkipCounts()
	for reason, n := range map[string]int{
		"GPU model of g4ad.xlarge not known to the catalog": 1,
		"not a Linux shared-tenancy used-capacity price":    1,
		"price 0 is not a positive decimal":                 1,
	} {
		if counts[reason] != n {
			t.Errorf("skipped %q: %d, want %d (all %v)", reason, counts[reason], n, counts)
		}
	}
}

func TestFetchRetriesAndGivesUp(t *testing.T) {
	srv, calls := server(t, 2, http.StatusTooManyRequests)
	if _, err := newClient(t, srv.URL).Fetch(context.Background(), []string{"us-east-1"}); err != nil {
		t.Errorf("Fetch after two 429s: %v", err)
	}
	if calls.Load() != 5 {
		t.Errorf("Fetch after two 429s made %d requests, want 5", calls.Load())
	}
	srv, calls = server(t, 100, http.StatusInternalServerError)
	_, err := newClient(t, srv.URL).Fetch(context.Background(), []string{"us-east-1"})
	if gpucost.ErrorCode(err) != gpucost.EUnavailable || !strings.Contains(err.Error(), "500") {
		t.Errorf("Fetch against HTTP 500 = %v, want EUnavailable", err)
	}
	if calls.Load() != 4 {
		t.Errorf("Fetch against HTTP 500 made %d requests, want 4", calls.Load())
	}
	srv, _ = server(t, 100, http.StatusBadRequest)
	_, err = newClient(t, srv.URL).Fetch(context.Background(), []string{"us-east-1"})
	if gpucost.ErrorCode(err) != gpucost.EInvalid {
		t.Errorf("Fetch against HTTP 400 = %v, want EInvalid", err)
	}
}

func TestDecodeProductMalformed(t *testing.T) {
	for _, tc := range []struct{ name, entry, want string }{
		{"not JSON", `{`, "unexpected end of JSON"},
		{"no instance type", `{"product":{"attributes":{}}}`, "product.attributes.instanceType"},
		{"price not a string", `{"product":{"attributes":{"instanceType":"p5.48xlarge"}},"terms":{"OnDemand":{"t":{"priceDimensions":{"d":{"pricePerUnit":{"USD":1}}}}}}}`, "priceDimensions.pricePerUnit"},
		{"gpu not a string", `{"product":{"attributes":{"instanceType":"p5.48xlarge","gpu":8}}}`, "attributes.gpu"},
	} {
		_, err := DecodeProduct(tc.entry)
		if gpucost.ErrorCode(err) != gpucost.EInvalid || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: DecodeProduct(%s) = %v, want EInvalid mentioning %q", tc.name, tc.entry, err, tc.want)
		}
	}
}

func FuzzDecodeProduct(f *testing.F) {
	for _, name := range []string{"testdata/products_page1.json", "testdata/products_page2.json"} {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		var page struct{ PriceList []string }
		if err := json.Unmarshal(b, &page); err != nil {
			f.Fatal(err)
		}
		for _, e := range page.PriceList {
			f.Add(e)
		}
	}
	gpus := func(string) (string, float64, bool) { return "H100-SXM", 8, true }
	f.Fuzz(func(t *testing.T, entry string) {
		res := &prices.Result{}
		b := newBook(res, gpus)
		if err := b.addProduct(entry, 1, 1); err != nil {
			if gpucost.ErrorCode(err) != gpucost.EInvalid {
				t.Fatalf("addProduct error %v is not EInvalid", err)
			}
			return
		}
		for _, o := range b.offers() {
			if o.OnDemand.Nanos <= 0 || o.GPUCount <= 0 {
				t.Fatalf("offer with a non-positive price or GPU count: %+v", o)
			}
		}
		if len(b.offers())+len(res.Skipped) != 1 {
			t.Fatalf("one entry gave %d offers and %d skips", len(b.offers()), len(res.Skipped))
		}
	})
}
