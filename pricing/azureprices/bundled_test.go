package azureprices

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"testing"

	"github.com/gpucost/gpucost/catalog"
)

// TestBundledFileReadsAsTheAPI serves the catalog's bundled Azure prices
// (catalog/data/azure_retail_gpu.json) as the Retail Prices API and checks that this package
// reads the same offers, at the same prices, as the bundled catalog does: the file is in the
// API's format, and the two readers agree on it.
func TestBundledFileReadsAsTheAPI(t *testing.T) {
	body, err := os.ReadFile("../../catalog/data/azure_retail_gpu.json")
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write(body)
	}))
	t.Cleanup(srv.Close)
	res, err := newClient(t, srv.URL).Fetch(context.Background(), []string{"eastus"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Skipped) != 0 {
		t.Errorf("the API reader left out %d bundled items: %+v", len(res.Skipped), res.Skipped)
	}
	c, err := catalog.Bundled()
	if err != nil {
		t.Fatal(err)
	}
	type prices struct{ od, spot, model string }
	bundled := map[string]prices{}
	for _, o := range c.Offers() {
		if o.Provider == "azure" {
			bundled[o.Region+" "+o.InstanceType] = prices{o.OnDemand.Decimal(), o.SpotPrice.Decimal(), o.GPUModel}
		}
	}
	if len(res.Offers) != len(bundled) || len(bundled) == 0 {
		t.Fatalf("API reader: %d offers, bundled catalog: %d", len(res.Offers), len(bundled))
	}
	for _, o := range res.Offers {
		got := prices{o.OnDemand.Decimal(), o.SpotPrice.Decimal(), o.GPUModel}
		if want := bundled[o.Region+" "+o.InstanceType]; got != want {
			t.Errorf("%s %s: API reader %+v, bundled catalog %+v", o.Region, o.InstanceType, got, want)
		}
	}
}
