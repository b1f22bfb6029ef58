package azure

import (
	"math/big"
	"testing"
	"time"
)

func TestParseUnit(t *testing.T) {
	tests := []struct {
		in                string
		block             float64
		distinct, pricing string
	}{
		{"1 Hour", 1, "Hours", "Hours"},
		{"10 Hours", 10, "Hours", "10 Hours"},
		{"100 Hours", 100, "Hours", "100 Hours"},
		{"1 GB/Month", 1, "GB/Month", "GB/Month"},
		{"1/Month", 1, "Units/Month", "Units/Month"},
		{"1 /Hour", 1, "Units/Hour", "Units/Hour"},
		{"10000", 10000, "Units", "10000 Units"},
		{"10K", 10000, "Units", "10000 Units"},
		{"1M", 1e6, "Units", "1000000 Units"},
		{"10K/Month", 10000, "Units/Month", "10000 Units/Month"},
		{"1 GB Hour", 1, "GB Hours", "GB Hours"},
		{"100 Core Hrs", 100, "Core Hours", "100 Core Hours"},
		{"Hours", 1, "Hours", "Hours"},
		{"", 1, "", ""},
	}
	for _, tt := range tests {
		got := parseUnit(tt.in)
		if got.block != tt.block || got.distinct != tt.distinct || got.pricing != tt.pricing {
			t.Errorf("parseUnit(%q) = %+v, want {%v %q %q}", tt.in, got, tt.block, tt.distinct, tt.pricing)
		}
	}
}

func TestRegionID(t *testing.T) {
	for in, want := range map[string]string{
		"EastUS": "eastus", "eastus": "eastus", "East US 2": "eastus2", "US East": "eastus", "US West 2": "westus2",
		"EU West": "westeurope", "AP Southeast": "southeastasia", "UK South": "uksouth", "australia_east": "australiaeast",
		"Unassigned": "global", "": "",
	} {
		if got := regionID(in); got != want {
			t.Errorf("regionID(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestARMType(t *testing.T) {
	for in, want := range map[string]string{
		"/subscriptions/s/resourcegroups/rg/providers/microsoft.compute/virtualmachines/vm1":              "microsoft.compute/virtualmachines",
		"/subscriptions/s/resourceGroups/rg/providers/Microsoft.Sql/servers/srv/databases/db":             "microsoft.sql/servers/databases",
		"/subscriptions/s/resourcegroups/rg/providers/microsoft.compute/virtualmachinescalesets/ss/":      "microsoft.compute/virtualmachinescalesets",
		"/providers/microsoft.capacity/reservationorders/o/reservations/r":                                "microsoft.capacity/reservationorders/reservations",
		"/subscriptions/s/resourcegroups/rg":                                                              "",
		"/subscriptions/s/resourcegroups/rg/providers/microsoft.compute":                                  "",
		"/subscriptions/s/resourcegroups/rg/providers/a.b/c/d/providers/microsoft.insights/diagnostics/x": "microsoft.insights/diagnostics",
	} {
		if got := armType(in); got != want {
			t.Errorf("armType(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestInstanceType(t *testing.T) {
	var scratch []byte
	tests := []struct {
		info, category, meter, want string
	}{
		{`{"ServiceType":"Standard_NC24ads_A100_v4","VCPUs":24}`, "Virtual Machines", "NC24ads A100 v4", "Standard_NC24ads_A100_v4"},
		{`{"VMSize":"Standard_ND96isr_H100_v5","Nested":{"a":[1,"}"]}}`, "", "", "Standard_ND96isr_H100_v5"},
		{`{"ServiceType":"Premium_LRS"}`, "Storage", "P30 LRS Disk", ""},
		{`not json`, "Virtual Machines", "ND96isr H100 v5 Spot", "Standard_ND96isr_H100_v5"},
		{``, "Virtual Machines", "NC4as T4 v3", "Standard_NC4as_T4_v3"},
		{``, "Virtual Machines", "NC6 Low Priority", "Standard_NC6"},
		{``, "Virtual Machines", "ND96asr A100 v4 Spot", "Standard_ND96asr_v4"},
		{``, "Virtual Machines", "D2 v3/D2s v3", ""},
		{``, "Virtual Machines", "Compute Hours", ""},
		{``, "Virtual Machine Licenses", "Windows Server 8 vCPU License", ""},
	}
	for _, tt := range tests {
		if got := instanceType([]byte(tt.info), tt.category, tt.meter, &scratch); got != tt.want {
			t.Errorf("instanceType(%q, %q, %q) = %q, want %q", tt.info, tt.category, tt.meter, got, tt.want)
		}
	}
}

func TestParseDate(t *testing.T) {
	day := time.Date(2024, 9, 1, 0, 0, 0, 0, time.UTC)
	good := map[string]time.Time{
		"2024-09-01":                   day,
		"2024-09-01T00:00:00":          day,
		"2024-09-01T00:00:00Z":         day,
		"2024-09-01T00:00:00.0000000Z": day,
		"2024-09-01 02:00:00+02:00":    day,
		"09/01/2024":                   day,
		"9/1/2024":                     day,
		"09/01/2024 00:00:00":          day,
		"9/1/2024 12:00:00 AM":         day,
		"9/1/2024 1:30:00 PM":          day.Add(13*time.Hour + 30*time.Minute),
		"02/29/2024":                   time.Date(2024, 2, 29, 0, 0, 0, 0, time.UTC),
	}
	for in, want := range good {
		if got, ok := parseDate([]byte(in)); !ok || !got.Equal(want) {
			t.Errorf("parseDate(%q) = %v, %v; want %v", in, got, ok, want)
		}
	}
	for _, in := range []string{"", "2024-9-1", "13/01/2024", "02/29/2023", "2024-09-31", "09/01/24", "9/1/2024 13:00:00 PM",
		"2024-09-01T25:00:00Z", "09-01-2024", "1/2024", "9/1/2024x"} {
		if got, ok := parseDate([]byte(in)); ok {
			t.Errorf("parseDate(%q) = %v, want a failure", in, got)
		}
	}
}

func TestMulNanos(t *testing.T) {
	tests := []struct {
		in   []string
		want int64
	}{
		{[]string{"3.49", "24"}, 83_760_000_000},
		{[]string{"4.048", "24", "0.9183"}, 89_214_681_600},
		{[]string{"0.05", "0.000300000000000"}, 15_000},
		{[]string{"-1250", "1"}, -1_250_000_000_000},
		{[]string{"1250", "-1"}, -1_250_000_000_000},
		{[]string{"0.0000000005", "1"}, 0},     // half to even: 0.5 nano → 0
		{[]string{"0.0000000015", "1"}, 2},     // 1.5 → 2
		{[]string{"1e-3", "2E2"}, 200_000_000}, // exponents
		{[]string{"", "24"}, 0},
		{[]string{"12345678901234567890.5", "1e-12"}, 12_345_678_901_234_568}, // wide: math/big
		{[]string{"0.1234567890123456789", "0.1234567890123456789", "3"}, 45_724_736},
	}
	for _, tt := range tests {
		var ds []dec
		for _, s := range tt.in {
			d, ok := parseDec([]byte(s))
			if !ok {
				t.Fatalf("parseDec(%q) failed", s)
			}
			ds = append(ds, d)
		}
		got, err := mulNanos(ds...)
		if err != nil || got != tt.want {
			t.Errorf("mulNanos(%q) = %d, %v; want %d", tt.in, got, err, tt.want)
		}
	}
	for _, bad := range []string{"1.2.3", "-", "e5", "1e", "1e+", "abc", "1 2"} {
		if _, ok := parseDec([]byte(bad)); ok {
			t.Errorf("parseDec(%q) ok, want a failure", bad)
		}
	}
	if _, err := mulNanos(mustDec(t, "9e18"), mustDec(t, "10")); err == nil {
		t.Errorf("mulNanos(9e18, 10) = nil error, want out of range")
	}
}

func mustDec(t testing.TB, s string) dec {
	d, ok := parseDec([]byte(s))
	if !ok {
		t.Fatalf("parseDec(%q) failed", s)
	}
	return d
}

func TestBlocks(t *testing.T) {
	for _, tt := range []struct {
		cell  string
		block float64
		want  float64
	}{{"0.0003", 10000, 3}, {"2.4", 10, 24}, {"0.0333333333", 1, 0.0333333333}, {"-1.5", 100, -150}, {"1e2", 10, 1000}} {
		v, _ := new(big.Float).SetString(tt.cell)
		f, _ := v.Float64()
		if got := blocks([]byte(tt.cell), f, tt.block); got != tt.want {
			t.Errorf("blocks(%q, %v) = %v, want %v", tt.cell, tt.block, got, tt.want)
		}
	}
}

func TestClassify(t *testing.T) {
	tests := []struct {
		chargeType, pricingModel, frequency, meter string
		hasType                                    bool
		commit                                     string
		want                                       class
	}{
		{"Usage", "OnDemand", "UsageBased", "NC6", true, "", class{"Usage", "", "Usage-Based", "Standard", "", kindOther, true}},
		{"Usage", "On Demand", "UsageBased", "NC6 Spot", true, "", class{"Usage", "", "Usage-Based", "Dynamic", "", kindOther, true}},
		{"Usage", "Spot", "", "NC6", true, "", class{"Usage", "", "Usage-Based", "Dynamic", "", kindOther, true}},
		{"Usage", "Reservation", "UsageBased", "NC6", true, "r", class{"Usage", "", "Usage-Based", "Committed", "Used", kindCommitUsage, true}},
		{"Usage", "", "", "NC6", false, "r", class{"Usage", "", "Usage-Based", "Committed", "Used", kindCommitUsage, true}},
		{"", "", "", "", false, "", class{"Usage", "", "Usage-Based", "Standard", "", kindOther, true}},
		{"UnusedSavingsPlan", "SavingsPlan", "UsageBased", "", true, "sp", class{"Usage", "", "Usage-Based", "Committed", "Unused", kindUnused, false}},
		{"Purchase", "SavingsPlan", "Recurring", "", true, "sp", class{"Purchase", "", "Recurring", "Committed", "", kindCommitPurchase, false}},
		{"Refund", "Reservation", "OneTime", "", true, "r", class{"Purchase", "Correction", "One-Time", "Committed", "", kindCommitPurchase, false}},
		{"Tax", "OnDemand", "", "", true, "", class{"Tax", "", "Recurring", "", "", kindOther, false}},
		{"RoundingAdjustment", "", "Other", "", true, "", class{"Adjustment", "", "One-Time", "", "", kindOther, false}},
		{"Credit", "", "OneTime", "", true, "", class{"Credit", "", "One-Time", "", "", kindOther, false}},
		{"", "", "", "", true, "", class{"Adjustment", "", "One-Time", "", "", kindOther, false}},
		{"Usage", "Preview", "UsageBased", "", true, "", class{"Usage", "", "Usage-Based", "Other", "", kindOther, true}},
	}
	for _, tt := range tests {
		if got := classify(tt.chargeType, tt.pricingModel, tt.frequency, tt.meter, tt.hasType, tt.commit); got != tt.want {
			t.Errorf("classify(%q, %q, %q, %q, %v, %q) = %+v, want %+v", tt.chargeType, tt.pricingModel, tt.frequency,
				tt.meter, tt.hasType, tt.commit, got, tt.want)
		}
	}
}

func TestCommitment(t *testing.T) {
	tests := []struct {
		benefit, reservation, order, model string
		id, typ, cat                       string
	}{
		{"/providers/Microsoft.Capacity/reservationOrders/o/reservations/r", "r", "o", "Reservation",
			"/providers/Microsoft.Capacity/reservationOrders/o/reservations/r", "Reservation", "Usage"},
		{"/providers/Microsoft.BillingBenefits/savingsPlanOrders/o/savingsPlans/s", "", "", "SavingsPlan",
			"/providers/Microsoft.BillingBenefits/savingsPlanOrders/o/savingsPlans/s", "Savings Plan", "Spend"},
		{"", "r", "o", "", "/providers/Microsoft.Capacity/reservationOrders/o/reservations/r", "Reservation", "Usage"},
		{"", "r", "", "", "r", "Reservation", "Usage"},
		{"other-benefit", "", "", "", "other-benefit", "", ""},
		{"", "", "o", "Reservation", "", "", ""},
	}
	for _, tt := range tests {
		id, typ, cat := commitment(tt.benefit, tt.reservation, tt.order, tt.model)
		if id != tt.id || typ != tt.typ || cat != tt.cat {
			t.Errorf("commitment(%q, %q, %q, %q) = %q %q %q, want %q %q %q", tt.benefit, tt.reservation, tt.order, tt.model, id, typ, cat, tt.id, tt.typ, tt.cat)
		}
	}
}
