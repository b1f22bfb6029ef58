package catalog

import (
	"bytes"
	"os"
	"testing"
)

// FuzzParseGCPPricingYAML feeds the reader mangled pricing files: it must return offers or an
// error, never panic, and every offer it returns has a positive on-demand price.
func FuzzParseGCPPricingYAML(f *testing.F) {
	body, err := os.ReadFile("testdata/gcp_pricing_small.yml")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(body)
	f.Add([]byte("compute:\n  instance:\n    a2-highgpu-1g:\n      a100: x\n      cost: 3\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		g, err := ParseGCPPricingYAML(bytes.NewReader(b), "fuzz.yml")
		if err != nil {
			return
		}
		for _, o := range g.Offers {
			if !o.HasOnDemand || o.OnDemand.Nanos <= 0 {
				t.Fatalf("offer %+v has no positive on-demand price", o)
			}
		}
	})
}

// FuzzParseAzureRetail does the same for the Retail Prices reader.
func FuzzParseAzureRetail(f *testing.F) {
	body, err := os.ReadFile(azureFile)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(body)
	f.Add([]byte(`{"Items":[{"retailPrice":"x"}]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		im, err := ParseAzureRetail(b, "fuzz.json")
		if err != nil {
			return
		}
		for _, o := range im.Offers {
			if o.HasOnDemand && o.OnDemand.Nanos <= 0 || o.GPUCount <= 0 {
				t.Fatalf("offer %+v", o)
			}
		}
	})
}
