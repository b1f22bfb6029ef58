package spotrisk

import (
	"strings"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/billing/azure"
	"github.com/gpucost/gpucost/billing/gcp"
	"github.com/gpucost/gpucost/spot"
	"github.com/gpucost/gpucost/spot/notice"
	"github.com/gpucost/gpucost/spot/notice/noticetest"
)

func TestInstanceKey(t *testing.T) {
	const gce = "//compute.googleapis.com/projects/ml-prod-4471/zones/us-central1-b/instances/8800112233445566778"
	const arm = "/subscriptions/3F2B8C1D-6a4e-4f0b-9c7d-1e2f3a4b5c6d/resourceGroups/ML-Finetune/providers/Microsoft.Compute/virtualMachines/spot-t4-07"
	for _, tc := range []struct {
		a, b string
		same bool
	}{
		{"i-0abc1234def567890", "i-0abc1234def567890", true},
		{"i-0abc1234def567890", "arn:aws:ec2:us-east-1:123456789012:instance/i-0abc1234def567890", true},
		{"i-0abc1234def567890", "i-0abc1234def567891", false},
		{gce, gce, true},
		{gce, "//compute.googleapis.com/projects/123456789012/zones/us-central1-b/instances/8800112233445566778", true}, // project by number
		{gce, "projects/ml-prod-4471/zones/us-central1-b/instances/8800112233445566778", true},
		{gce, "//compute.googleapis.com/projects/ml-prod-4471/zones/us-central1-b/instances/8800112233445566779", false},
		{gce, "//compute.googleapis.com/projects/ml-prod-4471/zones/us-central1-a/instances/8800112233445566778", false},
		// Named by name, the project tells two VMs of one name apart.
		{"projects/a/zones/us-central1-b/instances/train-0", "projects/b/zones/us-central1-b/instances/train-0", false},
		{gce, "sweep-a100-spot-3", false},
		{arm, "/subscriptions/3f2b8c1d-6a4e-4f0b-9c7d-1e2f3a4b5c6d/resourcegroups/ml-finetune/providers/microsoft.compute/virtualmachines/spot-t4-07", true},
		{arm, arm + "/", true},
		{arm, "/subscriptions/3f2b8c1d-6a4e-4f0b-9c7d-1e2f3a4b5c6d/resourcegroups/ml-finetune/providers/microsoft.compute/virtualmachines/spot-t4-08", false},
	} {
		if got := InstanceKey(tc.a) == InstanceKey(tc.b); got != tc.same {
			t.Errorf("InstanceKey(%q) = %q, InstanceKey(%q) = %q: same %v, want %v", tc.a, InstanceKey(tc.a), tc.b, InstanceKey(tc.b), got, tc.same)
		}
	}
}

// instancePool is one provider's spot pool with the ID the runner records for a machine of it,
// read from that cloud's fake metadata service as gpucost run reads it, and the IDs its bill
// names that machine and another by.
type instancePool struct {
	provider, billProvider     string
	instanceType, region, zone string
	recorded                   string // notice.Describe's InstanceID
	billSame, billOther        string // the bill's resource IDs of the recorded machine and of another
}

func instancePools(t *testing.T) []instancePool {
	imds := noticetest.NewAWS(t)
	imds.SetInstance("g5.xlarge", "us-east-1", "us-east-1a", "use1-az4", "spot")
	imds.SetMetaData("instance-id", "i-0abc1234def567890")

	md := noticetest.NewGCP(t)
	md.SetInstance("a2-highgpu-1g", "us-central1-b", "SPOT", "FALSE")
	md.SetIdentity("ml-prod-4471", "sweep-a100-spot-3", "8800112233445566778")

	az := noticetest.NewAzure(t, "spot-t4-07")
	az.SetCompute("Standard_NC4as_T4_v3", "eastus", "1", "Spot")

	describe := func(cloud string, p notice.Probe) string {
		m, err := notice.Describe(t.Context(), cloud, p)
		if err != nil || m.InstanceID == "" {
			t.Fatalf("Describe(%s) = %+v, %v; want a machine with its instance ID", cloud, m, err)
		}
		return m.InstanceID
	}
	return []instancePool{
		{"aws", "AWS", "g5.xlarge", "us-east-1", "us-east-1a", describe(notice.CloudAWS, notice.Probe{AWS: imds.URL}),
			"i-0abc1234def567890", "i-0fff0000aaaa11112"},
		// The export names the project by number here; the runner by ID.
		{"gcp", "Google Cloud", "a2-highgpu-1g", "us-central1", "us-central1-b", describe(notice.CloudGCP, notice.Probe{GCPHost: md.Host}),
			"//compute.googleapis.com/projects/123456789012/zones/us-central1-b/instances/8800112233445566778",
			"//compute.googleapis.com/projects/ml-prod-4471/zones/us-central1-b/instances/8800112233445566779"},
		// billing/azure lower-cases the ID; the instance metadata service does not.
		{"azure", "Microsoft", "Standard_NC4as_T4_v3", "eastus", "1", describe(notice.CloudAzure, notice.Probe{AzureURL: az.URL}),
			"/subscriptions/00000000-0000-4000-8000-000000000000/resourcegroups/training/providers/microsoft.compute/virtualmachines/spot-t4-07",
			"/subscriptions/00000000-0000-4000-8000-000000000000/resourcegroups/training/providers/microsoft.compute/virtualmachines/spot-t4-08"},
	}
}

// TestRunAndBillCountOnce checks, per provider, a run of 10 h interrupted at 9.9 h on the
// machine whose ID the metadata fake gave, and a daily bill of the same pool from day 1:
//
//	the run's machine  day 1 10 h: ended by day 2 00:00
//	another machine    day 2 24 h, day 3 24 h: started day 2 00:00, running when the bill stops
//
// With the run's ID recorded, the bill's lines of its machine are the run's: 10 + 48 = 58 h and
// the run's 1 interruption, 1 instance left out. Recorded for another machine, both count: 68 h,
// and the bill's end of the machine, replaced at day 2 00:00, is a second interruption.
func TestRunAndBillCountOnce(t *testing.T) {
	t0 := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	for _, p := range instancePools(t) {
		t.Run(p.provider, func(t *testing.T) {
			line := func(id string, d int, hours float64) *gpucost.CostLine {
				start := t0.Add(time.Duration(d-1) * 24 * time.Hour)
				return &gpucost.CostLine{Provider: p.billProvider, ChargeCategory: "Usage", PricingCategory: "Dynamic", ResourceID: id,
					InstanceType: p.instanceType, RegionID: p.region, AvailabilityZone: p.zone, ChargePeriodStart: start,
					ChargePeriodEnd: start.Add(24 * time.Hour), ConsumedQuantity: hours, ConsumedUnit: "Hours", Tags: gpucost.Labels{"team": "ml"}}
			}
			var b Bill
			for _, c := range []*gpucost.CostLine{line(p.billSame, 1, 10), line(p.billOther, 2, 24), line(p.billOther, 3, 24)} {
				b.Add(c)
			}
			evs := events("r", t0, 10, 9.9, true)
			for i := range evs {
				evs[i].Cloud, evs[i].InstanceType, evs[i].Region, evs[i].Zone = p.provider, p.instanceType, p.region, p.zone
			}
			for _, tc := range []struct {
				name       string
				recorded   string
				left       int
				hours      float64
				interrupts int
			}{
				{"same machine", p.recorded, 1, 58, 1},
				{"another machine", "i-0123456789abcdef0", 0, 68, 2},
				{"no ID", "", 0, 68, 2},
			} {
				counted := map[string]bool{}
				run := make([]spot.Event, len(evs))
				for i, ev := range evs {
					ev.InstanceID = tc.recorded
					run[i] = ev
					if ev.InstanceID != "" {
						counted[ev.InstanceID] = true // as report spot collects them
					}
				}
				bill, left := b.Exposures(counted)
				rates := Measure(append(FromEvents("ft", run), bill...), 0.95)
				if len(rates) != 1 || left != tc.left {
					t.Fatalf("%s: %d pools, %d left out; want 1 pool, %d left out: %+v", tc.name, len(rates), left, tc.left, rates)
				}
				if r := rates[0]; r.Hours != tc.hours || r.Interruptions != tc.interrupts || r.RunHours != 10 || r.Source != "runs + bill" {
					t.Errorf("%s (run recorded %q): %v h (runs %v), %d interruptions, %s; want %v h (runs 10), %d, runs + bill",
						tc.name, tc.recorded, r.Hours, r.RunHours, r.Interruptions, r.Source, tc.hours, tc.interrupts)
				}
			}
		})
	}
}

// TestRecordedIDsMatchBillReaders reads the spot lines of billing/gcp's and billing/azure's
// fixtures as report spot reads the store, and checks that the ID the runner records on each
// fixture's spot VM (from the metadata fakes) leaves exactly that VM to the run.
func TestRecordedIDsMatchBillReaders(t *testing.T) {
	md := noticetest.NewGCP(t)
	md.SetInstance("a2-highgpu-1g", "us-central1-b", "SPOT", "FALSE")
	md.SetIdentity("ml-prod-4471", "sweep-a100-spot-3", "8800112233445566778")
	az := noticetest.NewAzure(t, "spot-t4-07")
	az.SetComputeDocument(`{"location": "eastus", "name": "spot-t4-07", "priority": "Spot", "resourceGroupName": "ml-finetune",
		"resourceId": "/subscriptions/3f2b8c1d-6a4e-4f0b-9c7d-1e2f3a4b5c6d/resourceGroups/ml-finetune/providers/Microsoft.Compute/virtualMachines/spot-t4-07",
		"subscriptionId": "3f2b8c1d-6a4e-4f0b-9c7d-1e2f3a4b5c6d", "vmScaleSetName": "", "vmSize": "Standard_NC4as_T4_v3", "zone": ""}`)
	for _, tc := range []struct {
		cloud string
		probe notice.Probe
		read  func(*Bill) error
		pools int // the fixture's spot instances
	}{
		{notice.CloudGCP, notice.Probe{GCPHost: md.Host}, func(b *Bill) error {
			_, err := gcp.ReadFile("../billing/gcp/testdata/detailed_export.jsonl", func(c *gpucost.CostLine) error { b.Add(c); return nil })
			return err
		}, 2},
		{notice.CloudAzure, notice.Probe{AzureURL: az.URL}, func(b *Bill) error {
			_, err := azure.ReadFile("../billing/azure/testdata/ea_actual.csv", func(c *gpucost.CostLine) error { b.Add(c); return nil })
			return err
		}, 2},
	} {
		m, err := notice.Describe(t.Context(), tc.cloud, tc.probe)
		if err != nil || m.InstanceID == "" {
			t.Fatalf("Describe(%s) = %+v, %v", tc.cloud, m, err)
		}
		var b Bill
		if err := tc.read(&b); err != nil {
			t.Fatalf("read the %s fixture: %v", tc.cloud, err)
		}
		all, _ := b.Exposures(nil)
		kept, left := b.Exposures(map[string]bool{m.InstanceID: true})
		if len(all) != tc.pools || left != 1 || len(kept) != tc.pools-1 {
			t.Errorf("%s: the fixture's bill has %d spot instances; with %q recorded %d are left to the run and %d kept; want %d, 1, %d",
				tc.cloud, len(all), m.InstanceID, left, len(kept), tc.pools, tc.pools-1)
		}
		for _, e := range kept {
			if e.Pool.InstanceType == m.InstanceType {
				t.Errorf("%s: the bill keeps %+v, the recorded machine's pool", tc.cloud, e.Pool)
			}
		}
	}
}

// FuzzInstanceKey checks that a key is its own key, so a recorded ID and a bill's resource ID
// compare alike however often they are normalised, and that Azure IDs differing in (ASCII)
// case alone share one.
func FuzzInstanceKey(f *testing.F) {
	f.Add("i-0abc1234def567890")
	f.Add("arn:aws:ec2:us-east-1:123456789012:instance/i-0abc1234def567890")
	f.Add("//compute.googleapis.com/projects/ml-prod-4471/zones/us-central1-b/instances/8800112233445566778")
	f.Add("/subscriptions/S/resourceGroups/RG/providers/Microsoft.Compute/virtualMachines/VM")
	f.Add("/subscriptions//")
	f.Add("arn:aws:ec2:x:instance//subscriptions/a/")
	f.Fuzz(func(t *testing.T, id string) {
		k := InstanceKey(id)
		if InstanceKey(k) != k {
			t.Fatalf("InstanceKey(%q) = %q, whose key is %q", id, k, InstanceKey(k))
		}
		ascii := !strings.ContainsFunc(id, func(r rune) bool { return r > 0x7f })
		if ascii && strings.HasPrefix(strings.ToLower(strings.TrimSpace(id)), "/subscriptions/") && InstanceKey(strings.ToUpper(id)) != k {
			t.Fatalf("InstanceKey(%q) = %q, of its upper case %q", id, k, InstanceKey(strings.ToUpper(id)))
		}
	})
}
