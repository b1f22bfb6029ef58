package plan

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"flag"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/gpucost/gpucost"
	"go.yaml.in/yaml/v3"
)

var updateFleet = flag.Bool("update-fleet", false, "rewrite plan/testdata/fleet* golden files")

// fleetOffers reads testdata/fleet_offers.csv, rows copied from the bundled AWS catalog
// (catalog/data/aws_vms_gpu.csv: A100, A100-80GB and L4 in three regions).
func fleetOffers(t testing.TB) []gpucost.Offer {
	t.Helper()
	f, err := os.Open("testdata/fleet_offers.csv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	var out []gpucost.Offer
	for _, r := range rows[1:] {
		n, _ := strconv.ParseFloat(r[2], 64)
		mem, _ := strconv.ParseFloat(r[3], 64)
		od, err1 := gpucost.ParseMoney(r[4], "USD")
		spot, err2 := gpucost.ParseMoney(r[5], "USD")
		if err1 != nil || err2 != nil {
			t.Fatalf("fleet_offers.csv row %v: %v %v", r, err1, err2)
		}
		out = append(out, gpucost.Offer{Provider: "aws", Region: r[6], Zone: r[7], InstanceType: r[0], GPUModel: r[1],
			GPUCount: n, GPUMemoryGB: mem, OnDemand: od, SpotPrice: spot, HasOnDemand: true, HasSpot: true})
	}
	return out
}

func fleetUSD(t testing.TB, s string) gpucost.Money {
	t.Helper()
	m, err := gpucost.ParseMoney(s, "USD")
	if err != nil {
		t.Fatal(err)
	}
	return m
}

var a100Fleet = FleetOptions{Models: []string{"A100", "A100-80GB"}, GPUs: 32, Spot: true, OnDemandBase: 0.2}

// TestFleetA100 plans 32 A100s with a 20% on-demand base. us-west-2 is the one region with six
// spot pools (3 zones × p4d, p4de); eu-central-1's p4de spot prices equal on-demand.
func TestFleetA100(t *testing.T) {
	r, err := Fleet(fleetOffers(t), a100Fleet)
	if err != nil {
		t.Fatal(err)
	}
	if r.Region != "us-west-2" || r.SpotPools != 6 {
		t.Fatalf("Fleet(32 A100) region %s with %d spot pools, want us-west-2 with 6", r.Region, r.SpotPools)
	}
	// Base: ceil(0.2 × 32) = 7 GPUs → one p4d.24xlarge on-demand at $21.95764/h. Spot: 24 GPUs →
	// three p4d.24xlarge in the three cheapest pools (usw2-az1 $9.118, az3 $9.53, az2 $9.9817).
	want := []struct {
		zone, typ string
		cap       gpucost.PricingModel
		n         int
	}{
		{"usw2-az1", "p4d.24xlarge", gpucost.Spot, 1}, {"usw2-az3", "p4d.24xlarge", gpucost.Spot, 1},
		{"usw2-az2", "p4d.24xlarge", gpucost.Spot, 1}, {"usw2-az3", "p4de.24xlarge", gpucost.Spot, 0},
		{"usw2-az1", "p4de.24xlarge", gpucost.Spot, 0}, {"usw2-az2", "p4de.24xlarge", gpucost.Spot, 0},
		{"usw2-az1", "p4d.24xlarge", gpucost.OnDemand, 1},
	}
	if len(r.Pools) != len(want) {
		t.Fatalf("Fleet(32 A100) has %d pools, want %d: %+v", len(r.Pools), len(want), r.Pools)
	}
	for i, w := range want {
		p := r.Pools[i]
		if p.Zone != w.zone || p.InstanceType != w.typ || p.Capacity != w.cap || p.Instances != w.n {
			t.Errorf("pool %d = %s %s %s ×%d, want %s %s %s ×%d", i, p.Zone, p.InstanceType, p.Capacity, p.Instances,
				w.zone, w.typ, w.cap, w.n)
		}
	}
	checks := []struct {
		name      string
		got, want gpucost.Money
	}{
		{"per hour", r.PerHour, fleetUSD(t, "50.58734")},          // 21.95764 + 9.118 + 9.53 + 9.9817
		{"on-demand", r.OnDemandPerHour, fleetUSD(t, "87.83056")}, // 4 × 21.95764
		{"saving", r.SavingPerHour, fleetUSD(t, "37.24322")},
		{"per GPU-hour", r.PerGPUHour, fleetUSD(t, "1.580854375")}, // 50.58734 / 32
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("Fleet(32 A100) %s = %s, want %s", c.name, c.got.Decimal(), c.want.Decimal())
		}
	}
	if r.GPUs != 32 || r.SpotGPUs != 24 || r.OnDemandGPUs != 8 || r.OnDemandTargetGPUs != 7 || r.SavingPercent != 42.4 {
		t.Errorf("Fleet(32 A100) GPUs %d spot %d on-demand %d base %d saving %v%%, want 32 24 8 7 42.4%%",
			r.GPUs, r.SpotGPUs, r.OnDemandGPUs, r.OnDemandTargetGPUs, r.SavingPercent)
	}
	if !hasWarning(r, "round it up to 8 GPUs") || !hasWarning(r, "zone IDs") {
		t.Errorf("Fleet(32 A100) warnings %q lack the base rounding or the zone-ID notice", r.Warnings)
	}
}

func hasWarning(r FleetResult, s string) bool {
	for _, w := range r.Warnings {
		if strings.Contains(w, s) {
			return true
		}
	}
	return false
}

// TestFleetR6 reproduces the prices of reference case R6's batch job: 200 spot T4s at $0.18/h
// against $6,480 on-demand for the $2,160 the job cost, so on-demand is 3 × $0.18 = $0.54/h.
// The fleet costs $36/h against $108/h on-demand, −66.67%. (Over the anecdote's 6 hours that is
// $216, not $2,160: the published total is ten times its own rate.)
func TestFleetR6(t *testing.T) {
	offers := []gpucost.Offer{{Provider: "gcp", Region: "us-central1", Zone: "us-central1-a", InstanceType: "n1-standard-4+T4",
		GPUModel: "T4", GPUCount: 1, GPUMemoryGB: 16, OnDemand: fleetUSD(t, "0.54"), SpotPrice: fleetUSD(t, "0.18"), HasOnDemand: true, HasSpot: true}}
	r, err := Fleet(offers, FleetOptions{Models: []string{"T4"}, GPUs: 200, Spot: true, Diversify: 1})
	if err != nil {
		t.Fatal(err)
	}
	if r.PerHour != fleetUSD(t, "36") || r.OnDemandPerHour != fleetUSD(t, "108") || r.SavingPercent != 66.67 {
		t.Errorf("Fleet(200 T4) = %s/h vs %s/h on-demand (−%v%%), want 36 vs 108 (−66.67%%)",
			r.PerHour.Decimal(), r.OnDemandPerHour.Decimal(), r.SavingPercent)
	}
	if six := fleetTimes(r.PerHour, 6); six != fleetUSD(t, "216") {
		t.Errorf("6 h of Fleet(200 T4) = %s, want 216", six.Decimal())
	}
	if len(r.Warnings) != 0 {
		t.Errorf("Fleet(200 T4, diversify 1) warnings = %q, want none", r.Warnings)
	}
	if _, err := EC2FleetRequest(r); gpucost.ErrorCode(err) != gpucost.EInvalid {
		t.Errorf("EC2FleetRequest(gcp fleet) error = %v, want %s", err, gpucost.EInvalid)
	}
}

// TestFleetSpreadsSmallInstances checks that 13 L4s spread over six pools: one 8-GPU g6.48xlarge
// (the cheapest spot $/GPU-hour) and 1-GPU instances, none of the pools taking two instances
// before every pool has one, and no GPU more than asked.
func TestFleetSpreadsSmallInstances(t *testing.T) {
	r, err := Fleet(fleetOffers(t), FleetOptions{Models: []string{"L4"}, GPUs: 13, Spot: true, Regions: []string{"us-east-1"}})
	if err != nil {
		t.Fatal(err)
	}
	if r.GPUs != 13 || len(r.Pools) != 6 || r.Pools[0].InstanceType != "g6.48xlarge" || r.Pools[0].Instances != 1 {
		t.Fatalf("Fleet(13 L4) = %d GPUs in %d pools, first %+v; want 13 in 6, first one g6.48xlarge", r.GPUs, len(r.Pools), r.Pools[0])
	}
	for _, p := range r.Pools {
		if p.Capacity != gpucost.Spot || p.Instances > 2 {
			t.Errorf("Fleet(13 L4) pool %s %s %s ×%d, want at most 2 spot instances", p.Zone, p.InstanceType, p.Capacity, p.Instances)
		}
	}
}

func TestFleetOnDemandOnly(t *testing.T) {
	r, err := Fleet(fleetOffers(t), FleetOptions{Models: []string{"A100"}, GPUs: 16})
	if err != nil {
		t.Fatal(err)
	}
	if r.SpotGPUs != 0 || r.OnDemandGPUs != 16 || r.SavingPerHour.Nanos != 0 || r.PerHour != fleetUSD(t, "43.91528") {
		t.Errorf("Fleet(16 A100 on-demand) = spot %d, on-demand %d, %s/h saving %s, want 0, 16, 43.91528, 0",
			r.SpotGPUs, r.OnDemandGPUs, r.PerHour.Decimal(), r.SavingPerHour.Decimal())
	}
}

func TestFleetErrors(t *testing.T) {
	offers := fleetOffers(t)
	cases := []struct {
		name string
		opt  FleetOptions
		want string
	}{
		{"no GPUs", FleetOptions{Models: []string{"A100"}}, "ask for 1 or more"},
		{"base over 1", FleetOptions{Models: []string{"A100"}, GPUs: 8, OnDemandBase: 20}, "20% is 0.2"},
		{"negative diversify", FleetOptions{Models: []string{"A100"}, GPUs: 8, Diversify: -1}, "give 1 or more pools"},
		{"unknown fleet type", FleetOptions{Models: []string{"A100"}, GPUs: 8, FleetType: "burst"}, "maintain, request or instant"},
		{"unknown model", FleetOptions{Models: []string{"B300"}, GPUs: 8}, "pick another GPU"},
		{"too much VRAM", FleetOptions{Models: []string{"A100", "A100-80GB"}, GPUs: 8, MinVRAMGB: 96}, "lower the minimum VRAM to 80"},
		{"other provider", FleetOptions{Models: []string{"A100"}, GPUs: 8, Provider: "azure"}, "drop the provider"},
		{"no such region", FleetOptions{Models: []string{"A100"}, GPUs: 8, Regions: []string{"mars-1"}}, "widen the regions"},
	}
	for _, c := range cases {
		_, err := Fleet(offers, c.opt)
		if gpucost.ErrorCode(err) != gpucost.EInvalid || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: Fleet(%+v) error = %v, want %s saying %q", c.name, c.opt, err, gpucost.EInvalid, c.want)
		}
	}
}

// TestFleetWarnings checks the warnings for too few pools and no spot price.
func TestFleetWarnings(t *testing.T) {
	offers := fleetOffers(t)
	r, err := Fleet(offers, FleetOptions{Models: []string{"A100"}, GPUs: 8, Spot: true, Regions: []string{"eu-central-1"}})
	if err != nil {
		t.Fatal(err)
	}
	if !hasWarning(r, "only 2 spot pools") || !hasWarning(r, "within 1% of on-demand") || !hasWarning(r, "fills only 1 of the 2") {
		t.Errorf("Fleet(8 A100 in eu-central-1) warnings = %q", r.Warnings)
	}
	r, err = Fleet(offers, FleetOptions{Models: []string{"A100-80GB"}, GPUs: 8, Spot: true, Regions: []string{"eu-central-1"}})
	if err != nil {
		t.Fatal(err)
	}
	if !hasWarning(r, "no spot price more than 1% below on-demand") || r.OnDemandGPUs != 8 || r.SavingPerHour.Nanos != 0 {
		t.Errorf("Fleet(8 A100-80GB in eu-central-1) = %d on-demand GPUs, warnings %q", r.OnDemandGPUs, r.Warnings)
	}
}

// TestFleetProperties plans random fleets over the fixture and checks what must always hold.
func TestFleetProperties(t *testing.T) {
	offers := fleetOffers(t)
	models := [][]string{{"A100"}, {"A100-80GB"}, {"L4"}, {"A100", "A100-80GB"}, nil}
	rng := rand.New(rand.NewPCG(4, 2))
	for i := range 500 {
		opt := FleetOptions{Models: models[rng.IntN(len(models))], GPUs: 1 + rng.IntN(100), Spot: rng.IntN(4) > 0,
			Diversify: rng.IntN(9), OnDemandBase: float64(rng.IntN(101)) / 100}
		r, err := Fleet(offers, opt)
		if err != nil {
			t.Fatalf("case %d: Fleet(%+v): %v", i, opt, err)
		}
		sum, od, gpus := gpucost.USD(0), gpucost.USD(0), 0
		for _, p := range r.Pools {
			sum, od, gpus = sum.Add(p.TotalPerHour), od.Add(fleetTimes(p.OnDemandPerHour, p.Instances)), gpus+p.GPUs
		}
		switch {
		case gpus < opt.GPUs || gpus != r.GPUs:
			t.Errorf("case %d: Fleet(%+v) gives %d GPUs (result says %d)", i, opt, gpus, r.GPUs)
		case sum != r.PerHour || od != r.OnDemandPerHour:
			t.Errorf("case %d: Fleet(%+v) per hour %s, pools sum to %s", i, opt, r.PerHour.Decimal(), sum.Decimal())
		case r.SavingPerHour.Nanos < 0 || r.SavingPercent < 0 || r.SavingPercent >= 100:
			t.Errorf("case %d: Fleet(%+v) saving %s (%v%%)", i, opt, r.SavingPerHour.Decimal(), r.SavingPercent)
		case r.OnDemandGPUs < r.OnDemandTargetGPUs:
			t.Errorf("case %d: Fleet(%+v) on-demand %d GPUs under the base %d", i, opt, r.OnDemandGPUs, r.OnDemandTargetGPUs)
		case len(r.Pools) > max(opt.Diversify, DefaultDiversify)+1:
			t.Errorf("case %d: Fleet(%+v) lists %d pools", i, opt, len(r.Pools))
		}
	}
}

// TestFleetExportGolden checks the EC2 Fleet request and the Karpenter NodePools of the A100
// fleet against golden files (rewrite them with -update-fleet), and that both parse.
func TestFleetExportGolden(t *testing.T) {
	opt := a100Fleet
	opt.Name = "train-a100"
	opt.ZoneNames = map[string]string{"usw2-az1": "us-west-2a", "usw2-az2": "us-west-2b", "usw2-az3": "us-west-2c"}
	r, err := Fleet(fleetOffers(t), opt)
	if err != nil {
		t.Fatal(err)
	}
	ec2, err := EC2FleetRequest(r)
	if err != nil {
		t.Fatal(err)
	}
	var req map[string]any
	if err := json.Unmarshal(ec2, &req); err != nil {
		t.Fatalf("EC2FleetRequest output does not parse: %v", err)
	}
	tcs := req["TargetCapacitySpecification"].(map[string]any)
	if tcs["TotalTargetCapacity"] != 32.0 || tcs["OnDemandTargetCapacity"] != 7.0 || tcs["SpotTargetCapacity"] != 25.0 {
		t.Errorf("EC2FleetRequest target capacity = %v, want 32 = 7 on-demand + 25 spot", tcs)
	}
	compareGolden(t, "testdata/fleet_ec2.golden.json", ec2)

	yml, err := KarpenterNodePool(r)
	if err != nil {
		t.Fatal(err)
	}
	docs := parseYAMLDocs(t, yml)
	if len(docs) != 2 {
		t.Fatalf("KarpenterNodePool gives %d documents, want 2 (on-demand and spot)", len(docs))
	}
	for i, want := range []string{"8", "24"} {
		d := docs[i]
		limits := d["spec"].(map[string]any)["limits"].(map[string]any)
		if d["apiVersion"] != "karpenter.sh/v1" || d["kind"] != "NodePool" || strconv.Itoa(limits["nvidia.com/gpu"].(int)) != want {
			t.Errorf("NodePool %d = %v %v limits %v, want karpenter.sh/v1 NodePool with %s GPUs", i, d["apiVersion"], d["kind"], limits, want)
		}
	}
	compareGolden(t, "testdata/fleet_karpenter.golden.yaml", yml)
}

func parseYAMLDocs(t *testing.T, b []byte) []map[string]any {
	t.Helper()
	dec := yaml.NewDecoder(bytes.NewReader(b))
	var docs []map[string]any
	for {
		var d map[string]any
		if err := dec.Decode(&d); err != nil {
			if errors.Is(err, io.EOF) {
				return docs
			}
			t.Fatalf("KarpenterNodePool output does not parse: %v", err)
		}
		docs = append(docs, d)
	}
}

func compareGolden(t *testing.T, path string, got []byte) {
	t.Helper()
	if *updateFleet {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./plan -run TestFleetExportGolden -update-fleet)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the output:\n%s", filepath.Base(path), got)
	}
}

func BenchmarkFleet(b *testing.B) {
	offers := fleetOffers(b)
	for b.Loop() {
		if _, err := Fleet(offers, a100Fleet); err != nil {
			b.Fatal(err)
		}
	}
}

// A base under half of the smallest on-demand instance is rounded down to none, with a warning,
// rather than up to an all-on-demand fleet.
func TestFleetSmallBaseRoundsDown(t *testing.T) {
	opt := a100Fleet
	opt.GPUs, opt.OnDemandBase = 8, 0.2
	r, err := Fleet(fleetOffers(t), opt)
	if err != nil {
		t.Fatal(err)
	}
	if r.OnDemandGPUs != 0 || r.SpotGPUs != 8 || r.SavingPercent <= 0 {
		t.Errorf("Fleet(8 A100, 20%% base) = %d on-demand, %d spot GPUs, saving %.1f%%; want all 8 on spot", r.OnDemandGPUs, r.SpotGPUs, r.SavingPercent)
	}
	if !slices.ContainsFunc(r.Warnings, func(w string) bool { return strings.Contains(w, "rounded down to none") }) {
		t.Errorf("warnings %q lack the rounding", r.Warnings)
	}
	opt.OnDemandBase = 0.5 // 4 GPUs: half an instance rounds up
	if r, _ = Fleet(fleetOffers(t), opt); r.OnDemandGPUs != 8 {
		t.Errorf("Fleet(8 A100, 50%% base) = %d on-demand GPUs, want 8", r.OnDemandGPUs)
	}
}

// TestFleetPoolRisk checks that pools above the risk limit are used last and that the cap keeps
// each pool under its share. L4 in us-east-1 by spot $/GPU-hour: g6.48xlarge use1-az1
// 2.7361/8 = 0.3420, g6.xlarge use1-az4 0.4007, use1-az6 0.4064, use1-az2 0.4102.
func TestFleetPoolRisk(t *testing.T) {
	base := FleetOptions{Models: []string{"L4"}, GPUs: 8, Spot: true, Diversify: 3, Regions: []string{"us-east-1"}}
	risky := base
	risky.PoolRisk = []PoolRisk{
		{Region: "us-east-1", InstanceType: "g6.48xlarge", PerHour: 0.2, Source: "measured"},
		{Region: "us-east-1", Zone: "use1-az4", InstanceType: "g6.xlarge", PerHour: 0.01, Source: "advisor"},
	}
	risky.MaxRiskPerHour = 0.1
	capped := base
	capped.MaxPoolShare = 0.5
	// the same rate given for the zone's name (as runs and bills record it): it applies through
	// ZoneNames, and without them is another zone's.
	byName := risky
	byName.PoolRisk = []PoolRisk{risky.PoolRisk[0], {Region: "us-east-1", Zone: "us-east-1b", InstanceType: "g6.xlarge", PerHour: 0.01, Source: "measured"}}
	byName.ZoneNames = map[string]string{"use1-az4": "us-east-1b"}
	unnamed := byName
	unnamed.ZoneNames = nil
	cases := []struct {
		name     string
		opt      FleetOptions
		want     []string // zone type ×instances of the spot pools, in order
		expected float64
	}{
		{"price only", base, []string{"use1-az1 g6.48xlarge ×1", "use1-az4 g6.xlarge ×0", "use1-az6 g6.xlarge ×0"}, 0},
		// g6.48xlarge goes last, out of the 3 chosen; 8 GPUs dealt 3, 3, 2; 3 instances × 0.01/h.
		{"risk", risky, []string{"use1-az4 g6.xlarge ×3", "use1-az6 g6.xlarge ×3", "use1-az2 g6.xlarge ×2"}, 0.03},
		// a cap of 4 GPUs passes over the 8-GPU instance: 4 and 4 on the next two pools.
		{"cap 50%", capped, []string{"use1-az1 g6.48xlarge ×0", "use1-az4 g6.xlarge ×4", "use1-az6 g6.xlarge ×4"}, 0},
		{"risk by zone name", byName, []string{"use1-az4 g6.xlarge ×3", "use1-az6 g6.xlarge ×3", "use1-az2 g6.xlarge ×2"}, 0.03},
		{"zone name without its ID", unnamed, []string{"use1-az4 g6.xlarge ×3", "use1-az6 g6.xlarge ×3", "use1-az2 g6.xlarge ×2"}, 0},
	}
	for _, c := range cases {
		r, err := Fleet(fleetOffers(t), c.opt)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		var got []string
		for _, p := range r.Pools {
			if p.Capacity == gpucost.Spot {
				got = append(got, p.Zone+" "+p.InstanceType+" ×"+strconv.Itoa(p.Instances))
			}
		}
		if !slices.Equal(got, c.want) || r.GPUs != 8 {
			t.Errorf("%s: Fleet() spot pools = %q (%d GPUs), want %q (8)", c.name, got, r.GPUs, c.want)
		}
		if d := r.ExpectedInterruptionsPerHour - c.expected; d > 1e-12 || d < -1e-12 {
			t.Errorf("%s: Fleet() expected interruptions = %v/h, want %v", c.name, r.ExpectedInterruptionsPerHour, c.expected)
		}
	}
}
