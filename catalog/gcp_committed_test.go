package catalog

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
)

// settingStore keeps settings in a map, and no offers.
type settingStore map[string]string

func (s settingStore) Offers(context.Context, gpucost.OfferFilter) ([]gpucost.Offer, error) {
	return nil, nil
}
func (s settingStore) PutOffers(context.Context, []gpucost.Offer) (int, int, error) { return 0, 0, nil }
func (s settingStore) Setting(_ context.Context, key, def string) (string, error) {
	if v, ok := s[key]; ok {
		return v, nil
	}
	return def, nil
}

// TestStoredCommitted checks that the committed-use prices of an imported pricing YAML, kept as
// SettingGCPCommitted, replace the bundled file's in a catalog Load reads from the store.
func TestStoredCommitted(t *testing.T) {
	f, err := os.Open("../../shared/datasets/gcp_price_history/pricing_gpu_2025-07-03.yml")
	if err != nil {
		t.Skipf("the shared datasets are absent: %v", err)
	}
	defer f.Close()
	g, err := ParseGCPPricingYAML(f, "pricing_gpu_2025-07-03.yml")
	if err != nil {
		t.Fatal(err)
	}
	doc, n, err := g.EncodeCommitted()
	if err != nil || n == 0 {
		t.Fatalf("EncodeCommitted = %d prices, %v", n, err)
	}
	ctx := context.Background()
	bundled, err := Load(ctx, settingStore{})
	if err != nil {
		t.Fatal(err)
	}
	stored, err := Load(ctx, settingStore{SettingGCPCommitted: doc})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		c      *Catalog
		commit string // month_1y / 730 h
		source string
	}{
		{bundled, "10.020283", "bundled pricing.yml generated 2026-07-02"},
		{stored, "10.036231", "pricing_gpu_2025-07-03.yml, imported, generated 2025-07-03"},
	} {
		c, err := tc.c.Commitment("a3-highgpu-1g", "africa-south1", "1y")
		if err != nil || c.Price.Fixed(6) != tc.commit || tc.c.CommittedSource() != tc.source {
			t.Errorf("Commitment = %v (%s), %v; want %s from %s", c.Price.Fixed(6), tc.c.CommittedSource(), err, tc.commit, tc.source)
		}
	}
	if _, err := Load(ctx, settingStore{SettingGCPCommitted: "{"}); err == nil {
		t.Error("Load with a broken setting: no error")
	}
}

// TestCommittedTakesTheNewest checks that of several pricing YAMLs imported together the
// newest by about.generated gives the committed-use prices, whatever the order.
func TestCommittedTakesTheNewest(t *testing.T) {
	const dir = "../../shared/datasets/gcp_price_history/"
	imports, err := ReadImportsAs(FormatGCPPricingYML, []string{dir + "pricing_gpu_2026-07-02.yml", dir + "pricing_gpu_2025-07-03.yml"}, "", time.Now())
	if err != nil {
		t.Skipf("the shared datasets are absent: %v", err)
	}
	skypilot := &Import{Name: "vms.csv"}
	for _, order := range [][]*Import{{imports[0], imports[1], skypilot}, {skypilot, imports[1], imports[0]}} {
		if _, n, name, err := Committed(order); err != nil || n == 0 || name != dir+"pricing_gpu_2026-07-02.yml" {
			t.Errorf("Committed = %d prices of %s, %v; want the 2026-07-02 file's", n, name, err)
		}
	}
	if doc, n, _, err := Committed([]*Import{skypilot}); doc != "" || n != 0 || err != nil {
		t.Errorf("Committed(no pricing YAML) = %q, %d, %v; want none", doc, n, err)
	}
}
