package catalog

import (
	"testing"

	"github.com/gpucost/gpucost"
)

func TestParseMachineRegion(t *testing.T) {
	for _, c := range []struct {
		spec, machine, region string
		ok                    bool
	}{
		{"a3-highgpu-8g/us-central1", "a3-highgpu-8g", "us-central1", true},
		{"a3-highgpu-8g", "", "", false},
		{"/us-central1", "", "", false},
		{"a3-highgpu-8g/", "", "", false},
	} {
		m, r, err := ParseMachineRegion(c.spec)
		if m != c.machine || r != c.region || (err == nil) != c.ok {
			t.Errorf("ParseMachineRegion(%q) = %q, %q, %v; want %q, %q, ok %v", c.spec, m, r, err, c.machine, c.region, c.ok)
		}
	}
}

func TestCommitmentDiscount(t *testing.T) {
	c := Commitment{Price: gpucost.USD(1_820_000_000), OnDemand: gpucost.USD(3_060_000_000)}
	if got := c.Discount(); got < 0.4052 || got > 0.4053 {
		t.Errorf("Commitment{1.82, 3.06}.Discount() = %v, want 0.405 (reference case R2)", got)
	}
	cat := bundledCatalog(t)
	commit, err := cat.Commitment("a3-highgpu-8g", "us-central1", "3y")
	if err != nil || commit.OnDemand.Decimal() != "88.489999903" || commit.Term != "3y" || commit.Discount() <= 0 || commit.Discount() >= 1 {
		t.Errorf("Commitment(a3-highgpu-8g, us-central1, 3y) = %+v (discount %v), %v", commit, commit.Discount(), err)
	}
}

func TestMIGProfiles(t *testing.T) {
	for _, c := range []struct {
		gpu, first, last string
	}{
		{"A100-80GB", "1g.10gb", "7g.80gb"},
		{"NVIDIA A100-SXM4-40GB", "1g.5gb", "7g.40gb"},
		{"h200", "1g.18gb", "7g.141gb"},
		{"T4", "", ""},
		{"no such gpu", "", ""},
	} {
		got := MIGProfiles(c.gpu)
		first, last := "", ""
		if len(got) > 0 {
			first, last = got[0], got[len(got)-1]
		}
		if first != c.first || last != c.last {
			t.Errorf("MIGProfiles(%q) = %v; want %s … %s", c.gpu, got, c.first, c.last)
		}
	}
}
