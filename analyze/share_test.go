package analyze

import (
	"math"
	"testing"

	"github.com/gpucost/gpucost"
)

func TestMIGShare(t *testing.T) {
	tests := []struct {
		name string
		gpu  gpucost.GPU
		want int
	}{
		{"whole GPU", gpucost.GPU{UUID: "GPU-1"}, 7},
		{"1g", gpucost.GPU{UUID: "MIG-1", Parent: "GPU-1", Profile: "1g.10gb"}, 1},
		{"3g", gpucost.GPU{UUID: "MIG-2", Parent: "GPU-1", Profile: "3g.40gb"}, 3},
		{"7g", gpucost.GPU{UUID: "MIG-3", Parent: "GPU-1", Profile: "7g.80gb"}, 7},
		{"compute instance", gpucost.GPU{UUID: "MIG-4", Parent: "GPU-1", Profile: "1c.3g.40gb"}, 1},
		{"media extension", gpucost.GPU{UUID: "MIG-5", Parent: "GPU-1", Profile: "1g.10gb+me"}, 1},
		{"H200 profile", gpucost.GPU{UUID: "MIG-6", Parent: "GPU-1", Profile: "2g.35gb"}, 2},
		{"unreadable profile", gpucost.GPU{UUID: "MIG-7", Parent: "GPU-1", Profile: "weird"}, 7},
		{"no profile", gpucost.GPU{UUID: "MIG-8", Parent: "GPU-1"}, 7},
		{"out of range", gpucost.GPU{UUID: "MIG-9", Parent: "GPU-1", Profile: "9g.90gb"}, 7},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := MIGShare(tt.gpu); got != tt.want {
				t.Errorf("MIGShare(%+v) = %d, want %d", tt.gpu, got, tt.want)
			}
		})
	}
}

func TestCostOf(t *testing.T) {
	tests := []struct {
		name  string
		price gpucost.Money
		units int64 // sevenths of a GPU-minute
		want  string
	}{
		{"90 idle minutes at $3.06", usd("3.06"), 90 * 7, "4.59"},
		{"one minute at $3.06", usd("3.06"), 7, "0.051"},
		{"a 3g MIG hour at $7", usd("7"), 60 * 3, "3"},
		{"a 1g MIG minute at $1 rounds", usd("1"), 1, "0.002380952"}, // 1/420 = 0.00238095238…
		{"half a nano rounds away from zero", gpucost.USD(1), 210, "0.000000001"},
		{"just under half a nano rounds down", gpucost.USD(1), 209, "0"},
		{"negative price", usd("-3.06"), 90 * 7, "-4.59"},
		{"a year of 10,000 GPUs at $98.32", usd("98.32"), 10_000 * 8760 * 60 * 7, "8612832000"},
		{"zero", usd("3.06"), 0, "0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := costOf(tt.price, tt.units)
			if got.Decimal() != tt.want || got.Currency != "USD" {
				t.Errorf("costOf(%s, %d) = %s %s, want USD %s", tt.price.Decimal(), tt.units, got.Currency, got.Decimal(), tt.want)
			}
		})
	}
	if got := costOf(gpucost.USD(math.MaxInt64), math.MaxInt64); got.Nanos != math.MaxInt64 {
		t.Errorf("costOf(max, max) = %d nanos, want saturation at %d", got.Nanos, int64(math.MaxInt64))
	}
}
