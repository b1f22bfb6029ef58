package catalog

import (
	"strings"
	"testing"

	"github.com/gpucost/gpucost"
)

func TestBundledAzure(t *testing.T) {
	c := bundledCatalog(t)
	offers := c.Offers()
	a100 := findOffer(t, offers, "eastus", "", "Standard_NC24ads_A100_v4")
	wantPrices(t, a100, "3.673", "0.7345")
	if a100.GPUModel != "A100-80GB" || a100.GPUCount != 1 || a100.GPUMemoryGB != 80 || a100.Source != azureOrigin {
		t.Errorf("NC24ads_A100_v4 = %+v", a100)
	}
	wantPrices(t, findOffer(t, offers, "eastus", "", "Standard_ND96isr_H100_v5"), "98.32", "none")
	rows, err := c.Cheapest(Query{Provider: "azure"})
	if err != nil {
		t.Fatal(err)
	}
	var models []string
	for _, r := range rows {
		models = append(models, r.GPU)
	}
	for _, m := range []string{"T4", "V100-16GB", "V100-32GB", "A10", "A100-40GB", "A100-80GB", "H100-SXM", "H100-NVL"} {
		if !strings.Contains(strings.Join(models, " ")+" ", m+" ") {
			t.Errorf("Cheapest(azure) models = %q, want %s", models, m)
		}
	}
	if p, _, ok := c.PricePerGPUHour("H100-SXM", "azure"); !ok || p.Decimal() != "12.29" {
		t.Errorf("PricePerGPUHour(H100-SXM, azure) = %s, %v; want 98.32 / 8", p.Decimal(), ok)
	}
}

func TestParseAzureRetail(t *testing.T) {
	body := `{"Items": [
 {"currencyCode": "USD", "retailPrice": 3.673, "armRegionName": "eastus", "armSkuName": "Standard_NC24ads_A100_v4", "skuName": "NC24ads A100 v4", "meterName": "NC24ads A100 v4", "productName": "Virtual Machines NCads A100 v4 Series", "serviceName": "Virtual Machines", "unitOfMeasure": "1 Hour", "type": "Consumption"},
 {"currencyCode": "USD", "retailPrice": 4.1, "armRegionName": "eastus", "armSkuName": "Standard_NC24ads_A100_v4", "skuName": "NC24ads A100 v4 Spot", "meterName": "NC24ads A100 v4 Spot", "productName": "Virtual Machines NCads A100 v4 Series", "serviceName": "Virtual Machines", "unitOfMeasure": "1 Hour", "type": "Consumption"},
 {"currencyCode": "USD", "retailPrice": 5.2, "armRegionName": "eastus", "armSkuName": "Standard_NC24ads_A100_v4", "skuName": "NC24ads A100 v4", "meterName": "NC24ads A100 v4", "productName": "Virtual Machines NCads A100 v4 Series Windows", "serviceName": "Virtual Machines", "unitOfMeasure": "1 Hour", "type": "Consumption"},
 {"currencyCode": "USD", "retailPrice": 0.19, "armRegionName": "eastus", "armSkuName": "Standard_D4s_v5", "skuName": "D4s v5", "productName": "Virtual Machines Dsv5 Series", "serviceName": "Virtual Machines", "unitOfMeasure": "1 Hour", "type": "Consumption"},
 {"currencyCode": "USD", "retailPrice": -1, "armRegionName": "eastus", "armSkuName": "Standard_NC4as_T4_v3", "skuName": "NC4as T4 v3", "productName": "Virtual Machines NCasT4_v3 Series", "serviceName": "Virtual Machines", "unitOfMeasure": "1 Hour", "type": "Consumption"}
]}`
	im, err := ParseAzureRetail([]byte(body), "azure.json")
	if err != nil {
		t.Fatal(err)
	}
	var issues []string
	for _, is := range im.Issues {
		issues = append(issues, FormatIssue(is))
	}
	want := []string{
		`azure.json:5: retailPrice "-1 USD": not a positive USD amount: item left out`,
		`azure.json:1: retailPrice "4.1": Standard_NC24ads_A100_v4 in eastus: spot is not below the on-demand price 3.673`,
	}
	if strings.Join(issues, "\n") != strings.Join(want, "\n") {
		t.Errorf("issues:\n%s\nwant:\n%s", strings.Join(issues, "\n"), strings.Join(want, "\n"))
	}
	if len(im.Offers) != 1 || im.Skipped["Windows price (Linux prices only)"] != 1 || im.Skipped["not a known N-series GPU VM size"] != 1 {
		t.Errorf("offers %d, skipped %v", len(im.Offers), im.Skipped)
	}
	if _, err := ParseAzureRetail([]byte(`{"value": []}`), "x.json"); gpucost.ErrorCode(err) != gpucost.EInvalid {
		t.Errorf("ParseAzureRetail without Items: error = %v, want EInvalid", err)
	}
}
