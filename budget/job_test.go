package budget

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/catalog"
)

func loadJobFile(t *testing.T, name string) Job {
	t.Helper()
	data, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	j, err := LoadJob(name, data)
	if err != nil {
		t.Fatalf("LoadJob(%s) = %v", name, err)
	}
	return j
}

func bundledOffers(t *testing.T) []gpucost.Offer {
	t.Helper()
	c, err := catalog.Bundled()
	if err != nil {
		t.Fatal(err)
	}
	return c.Offers()
}

func TestPriceJob(t *testing.T) {
	offers := bundledOffers(t)
	j := loadJobFile(t, "testdata/job.yaml")
	if j.Kind != KindJob || j.Count != 2 || j.Hours != 48 || j.Scope.Team != "research" || j.Span != 48*time.Hour {
		t.Fatalf("LoadJob(job.yaml) = %+v", j)
	}
	e, err := j.Price(offers)
	if err != nil {
		t.Fatal(err)
	}
	// AWS us-east-1 p4d.24xlarge on-demand $21.957642/h (SkyPilot catalog) × 2 × 48 h.
	if e.Cost.Decimal() != "2107.933632" || e.PerHour.Decimal() != "43.915284" || e.Instances != 2 {
		t.Errorf("Price(2 × p4d.24xlarge × 48 h) = %s (%s/h, %d instances), want 2107.933632", e.Cost.Decimal(), e.PerHour.Decimal(), e.Instances)
	}
	if !strings.Contains(e.Basis, "aws us-east-1 p4d.24xlarge on-demand 21.957642/h") {
		t.Errorf("Basis = %q", e.Basis)
	}

	spot := j
	spot.Pricing = PricingSpot
	if e, err := spot.Price(offers); err != nil || e.InstancePrice.Decimal() != "6.289" {
		t.Errorf("Price(spot p4d in us-east-1) = %s, %v, want the cheapest zone's 6.289/h", e.InstancePrice.Decimal(), err)
	}
	committed := j
	committed.Pricing, committed.Discount = PricingCommitted, 0.4
	if e, err := committed.Price(offers); err != nil || e.InstancePrice.Decimal() != "13.1745852" {
		t.Errorf("Price(committed 40%% off) = %s, %v, want 13.1745852", e.InstancePrice.Decimal(), err)
	}
	given := j
	given.PricePerHour, given.HasPrice = gpucost.USD(10e9), true
	if e, _ := given.Price(nil); e.Cost != gpucost.USD(960e9) {
		t.Errorf("Price(price_per_hour 10) = %s, want 960", e.Cost)
	}
}

func TestPriceGPUCount(t *testing.T) {
	j, err := LoadJob("gpu.yaml", []byte("gpu: A100-80GB\ncount: 12\nhours: 10\nprovider: aws\n"))
	if err != nil {
		t.Fatal(err)
	}
	e, err := j.Price(bundledOffers(t))
	if err != nil {
		t.Fatal(err)
	}
	// 12 GPUs need two 8-GPU instances: p4de.24xlarge is AWS's only A100-80GB machine.
	if e.Offer.InstanceType != "p4de.24xlarge" || e.Instances != 2 || e.Cost != e.InstancePrice.MulFloat(20) {
		t.Errorf("Price(12 × A100-80GB) = %d × %s at %s/h, cost %s", e.Instances, e.Offer.InstanceType, e.InstancePrice.Decimal(), e.Cost)
	}
	if len(e.Notes) == 0 || !strings.Contains(e.Notes[0], "no region given") {
		t.Errorf("Notes = %v, want the region note", e.Notes)
	}
}

func TestPriceSageMaker(t *testing.T) {
	j := loadJobFile(t, "testdata/endpoint.yaml")
	if j.Hours != 720 || j.Count != 2 || j.Span != 30*24*time.Hour || j.Scope.Service != "Amazon SageMaker" {
		t.Fatalf("LoadJob(endpoint.yaml) = %+v", j)
	}
	e, err := j.Price(bundledOffers(t))
	if err != nil {
		t.Fatal(err)
	}
	// No ml. prices in the bundled catalog: EC2 g5.xlarge $1.006/h, a lower bound.
	if e.Cost.Decimal() != "1448.64" || len(e.Notes) == 0 || !strings.Contains(e.Notes[0], "lower bound") {
		t.Errorf("Price(endpoint) = %s, notes %v", e.Cost.Decimal(), e.Notes)
	}
	ml := gpucost.Offer{Provider: "aws", Region: "us-east-1", InstanceType: "ml.g5.xlarge", GPUModel: "A10G", GPUCount: 1, OnDemand: gpucost.USD(1_408_000_000), HasOnDemand: true}
	if e, err := j.Price(append(bundledOffers(t), ml)); err != nil || e.Cost.Decimal() != "2027.52" || len(e.Notes) != 0 {
		t.Errorf("Price(endpoint with an ml. offer) = %s, %v, notes %v", e.Cost.Decimal(), err, e.Notes)
	}
	line := e.Line(day("2026-11-20"))
	if !Matches(Scope{Service: "amazon sagemaker", Project: "serving", GPUOnly: true}, line) || Matches(Scope{Service: "Amazon Elastic Compute Cloud"}, line) {
		t.Errorf("the endpoint's line %+v does not match its scope", line)
	}
	if got := e.InPeriod(day("2026-11-16"), day("2026-11-01"), day("2026-12-01")); got != e.Cost.MulFloat(0.5) {
		t.Errorf("InPeriod(half the span in November) = %s, want %s", got, e.Cost.MulFloat(0.5))
	}
}

func TestLoadJobErrors(t *testing.T) {
	for _, tc := range []struct{ name, yaml, want string }{
		{"unknown field", "instance_type: p4d.24xlarge\nhour: 3\n", `j.yaml line 2: unknown field "hour"; known fields here: kind, name, instance_type`},
		{"neither", "hours: 3\n", `j.yaml line 1: instance_type: give exactly one of instance_type`},
		{"no hours", "instance_type: p4d.24xlarge\n", `hours: missing`},
		{"gpu without count", "gpu: H100\nhours: 2\n", `j.yaml line 1: count: missing; give how many H100 GPUs`},
		{"bad pricing", "instance_type: x\nhours: 1\npricing: reserved\n", `j.yaml line 3: pricing: "reserved" is not allowed; use one of on-demand, spot, committed`},
		{"committed no discount", "instance_type: x\nhours: 1\npricing: committed\n", `commitment_discount: pricing committed needs`},
		{"discount not committed", "instance_type: x\nhours: 1\ncommitment_discount: 0.3\n", `j.yaml line 3: commitment_discount: only with pricing: committed`},
		{"discount over 1", "instance_type: x\nhours: 1\npricing: committed\ncommitment_discount: 1.5\n", `j.yaml line 4: commitment_discount: 1.5 is out of range: use a value below 1`},
		{"endpoint spot", "kind: sagemaker-endpoint\ninstance_type: ml.g5.xlarge\ndays: 3\npricing: spot\n", `SageMaker endpoints have no spot pricing`},
		{"endpoint hours", "kind: sagemaker-endpoint\ninstance_type: ml.g5.xlarge\nhours: 3\n", `a sagemaker-endpoint takes instance_type, instance_count`},
		{"endpoint no days", "kind: sagemaker-endpoint\ninstance_type: ml.g5.xlarge\n", `days: missing`},
		{"job with days", "instance_type: p4d.24xlarge\nhours: 3\ndays: 2\n", `are for kind: sagemaker-endpoint`},
		{"bad kind", "kind: lambda\n", `kind: "lambda" is not allowed; use one of job, sagemaker-endpoint`},
		{"bad price", "instance_type: x\nhours: 1\nprice_per_hour: free\n", `j.yaml line 3: price_per_hour: "free" is not a positive price`},
		{"bad start", "instance_type: x\nhours: 1\nstart: tomorrow\n", `j.yaml line 3: start: "tomorrow"`},
		{"too many hours", "instance_type: x\nhours: 1e9\n", `j.yaml line 2: hours: 1e+09 is out of range: use a value at most 100000`},
		{"empty", "", `j.yaml: empty job spec`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := LoadJob("j.yaml", []byte(tc.yaml))
			if err == nil || !strings.Contains(err.Error(), tc.want) || gpucost.ErrorCode(err) != gpucost.EInvalid {
				t.Fatalf("LoadJob(%q) = %v, want an invalid error containing %q", tc.yaml, err, tc.want)
			}
		})
	}
	j, _ := LoadJob("j.yaml", []byte("instance_type: p9.mega\nhours: 1\nprovider: aws\n"))
	if _, err := j.Price(nil); err == nil || !strings.Contains(err.Error(), "no on-demand price for p9.mega in aws") {
		t.Errorf("Price(p9.mega) = %v", err)
	}
	j, _ = LoadJob("j.yaml", []byte("gpu: Voodoo5\ncount: 1\nhours: 1\n"))
	if _, err := j.Price(nil); err == nil || !strings.Contains(err.Error(), `gpu "Voodoo5": not a GPU the catalog knows`) {
		t.Errorf("Price(Voodoo5) = %v", err)
	}
}

func FuzzLoadJob(f *testing.F) {
	for _, name := range []string{"testdata/job.yaml", "testdata/endpoint.yaml"} {
		data, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte("gpu: h100\ncount: 9\nhours: 0.5\npricing: committed\ncommitment_discount: 0.3\nstart: 2026-12-30\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		j, err := LoadJob("fuzz.yaml", data)
		if err != nil {
			if gpucost.ErrorCode(err) != gpucost.EInvalid || !strings.Contains(err.Error(), "fuzz.yaml") {
				t.Fatalf("LoadJob error %v (code %s)", err, gpucost.ErrorCode(err))
			}
			return
		}
		if j.Hours <= 0 || j.Count < 1 || j.Span <= 0 || (j.InstanceType == "") == (j.GPU == "") {
			t.Fatalf("LoadJob accepted %+v", j)
		}
	})
}
