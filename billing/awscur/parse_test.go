package awscur

import (
	"math"
	"math/big"
	"math/rand/v2"
	"strconv"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
)

// checkNanos compares parseNanos with gpucost.ParseMoney, the reference.
func checkNanos(t *testing.T, s string) {
	t.Helper()
	got, ok, err := parseNanos([]byte(s))
	if s == "" {
		if ok || err != nil {
			t.Errorf("parseNanos(%q) = %d, %v, %v; want not had", s, got, ok, err)
		}
		return
	}
	want, werr := gpucost.ParseMoney(s, "")
	if (err != nil) != (werr != nil) || err == nil && (got != want.Nanos || !ok) {
		t.Errorf("parseNanos(%q) = %d, %v, %v; ParseMoney = %d, %v", s, got, ok, err, want.Nanos, werr)
	}
}

func TestParseNanos(t *testing.T) {
	for _, s := range []string{"", "0", "32.7726", "-98.32", "+1.5", "0.0000001234567890", "0.0000000015", "0.0000000025",
		"0.00000000250001", "-0.0000000035", "999999999.999999999", "1000000000.5", "3.0600000000", ".5", "5.", "-", ".",
		"1e-3", "1.0E-8", " 2.5", "12a", "1.2.3", "--1", "0x10", "９", "123456789012345678901234"} {
		checkNanos(t, s)
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 20000 {
		whole := strconv.FormatInt(r.Int64N(1_000_000_000), 10)
		frac := strconv.FormatInt(r.Int64N(1_000_000_000_000), 10)
		s := whole + "." + frac[:r.IntN(len(frac))+1]
		if r.IntN(2) == 0 {
			s = "-" + s
		}
		checkNanos(t, s)
	}
}

func FuzzParseNanos(f *testing.F) {
	for _, s := range []string{"32.7726", "-0.0000001234567890", "1e-3", "0.0000000025"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if len(s) > 64 {
			return
		}
		checkNanos(t, s)
	})
}

// TestFloatNanos checks that a DOUBLE amount converts to the nano-units of the decimal it was
// written from, and in general to those of its shortest decimal form.
func TestFloatNanos(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for range 50000 {
		scale := r.IntN(10)
		unscaled := r.Int64N(1_000_000_000_000_000) - 500_000_000_000_000
		d := new(big.Rat).SetFrac(big.NewInt(unscaled), new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(scale)), nil))
		s := d.FloatString(scale)
		f, _ := strconv.ParseFloat(s, 64)
		want, err := gpucost.ParseMoney(s, "")
		if err != nil {
			continue // beyond Money's range
		}
		if got, err := floatNanos(f); err != nil || got != want.Nanos {
			t.Fatalf("floatNanos(%v) from %q = %d, %v; want %d", f, s, got, err, want.Nanos)
		}
	}
	for range 50000 {
		f := math.Float64frombits(r.Uint64())
		want, werr := gpucost.ParseMoney(strconv.FormatFloat(f, 'g', -1, 64), "")
		if werr != nil && math.Abs(f) < 1e-10 {
			want, werr = gpucost.Money{}, nil // ParseMoney refuses tiny exponents; they round to zero
		}
		got, err := floatNanos(f)
		if (err != nil) != (werr != nil) || err == nil && got != want.Nanos {
			t.Fatalf("floatNanos(%v) = %d, %v; want %d, %v", f, got, err, want.Nanos, werr)
		}
	}
	for _, f := range []float64{math.NaN(), math.Inf(1), 1e300} {
		if _, err := floatNanos(f); err == nil {
			t.Errorf("floatNanos(%v) = nil error", f)
		}
	}
}

func TestScaledNanos(t *testing.T) {
	tests := []struct {
		unscaled int64
		scale    int
		want     int64
	}{
		{327726, 4, 32_772_600_000}, {-9832, 2, -98_320_000_000}, {1234567890, 9, 1234567890},
		{12345678905, 10, 1234567890}, {12345678915, 10, 1234567892}, {5, 0, 5_000_000_000}, {7, -2, 700_000_000_000},
	}
	for _, tt := range tests {
		if got, err := scaledNanos(tt.unscaled, tt.scale); err != nil || got != tt.want {
			t.Errorf("scaledNanos(%d, %d) = %d, %v; want %d", tt.unscaled, tt.scale, got, err, tt.want)
		}
	}
	if _, err := scaledNanos(math.MaxInt64/10, 2); err == nil {
		t.Error("scaledNanos(overflow) = nil error")
	}
}

func TestParseTime(t *testing.T) {
	tests := []struct {
		in   string
		want string // RFC 3339 in UTC, empty for a refusal
	}{
		{"2025-06-03T14:00:00Z", "2025-06-03T14:00:00Z"},
		{"2025-06-03T14:00:00.000Z", "2025-06-03T14:00:00Z"},
		{"2025-06-03T14:00:00.5Z", "2025-06-03T14:00:00.5Z"},
		{"2025-06-03 14:00:00", "2025-06-03T14:00:00Z"},
		{"2025-06-03 14:00:00 UTC", "2025-06-03T14:00:00Z"},
		{"2025-06-03T14:00:00+02:00", "2025-06-03T12:00:00Z"},
		{"2025-06-03T14:00:00-0530", "2025-06-03T19:30:00Z"},
		{"2025-06-03", "2025-06-03T00:00:00Z"},
		{"2024-02-29T00:00:00Z", "2024-02-29T00:00:00Z"},
		{"2025-02-29T00:00:00Z", ""},
		{"2025-06-31T00:00:00Z", ""},
		{"2025-13-01T00:00:00Z", ""},
		{"2025-06-03T24:00:00Z", ""},
		{"2025-06-03T14:00Z", ""},
		{"2025-06-03T14:00:00.Z", ""},
		{"2025-06-03T14:00:00+2", ""},
		{"06/03/2025", ""},
		{"", ""},
	}
	for _, tt := range tests {
		got, ok := parseTime([]byte(tt.in))
		if tt.want == "" {
			if ok {
				t.Errorf("parseTime(%q) = %v, want a refusal", tt.in, got)
			}
			continue
		}
		if !ok || got.Format(time.RFC3339Nano) != tt.want || got.Location() != time.UTC {
			t.Errorf("parseTime(%q) = %v, %v; want %s", tt.in, got, ok, tt.want)
		}
	}
}

func FuzzParseTime(f *testing.F) {
	f.Add("2025-06-03T14:00:00Z")
	f.Add("2025-06-03 14:00:00.123+05:30")
	f.Fuzz(func(t *testing.T, s string) {
		got, ok := parseTime([]byte(s))
		if !ok {
			return
		}
		// Whatever is accepted as RFC 3339 must mean what time.Parse says it means.
		if want, err := time.Parse(time.RFC3339Nano, s); err == nil && !want.Equal(got) {
			t.Errorf("parseTime(%q) = %v, time.Parse = %v", s, got, want)
		}
	})
}

func TestSnakeAndClassify(t *testing.T) {
	tests := []struct {
		in   string
		role colRole
		want string // field name or tag key
	}{
		{"lineItem/UnblendedCost", roleField, "line_item_unblended_cost"},
		{"reservation/ReservationARN", roleField, "reservation_reservation_a_r_n"},
		{"savingsPlan/SavingsPlanARN", roleField, "savings_plan_savings_plan_a_r_n"},
		{"pricing/publicOnDemandCost", roleField, "pricing_public_on_demand_cost"},
		{"product/ProductName", roleField, "product_product_name"},
		{"product/region", roleField, "product_region_code"},
		{"resourceTags/user:team", roleTag, "user:team"},
		{"resource_tags_user_team", roleTag, "user_team"},
		{"costCategory/Team", roleCostCat, "Team"},
		{"\ufeffidentity_line_item_id", roleSkip, ""},
		{"product/gpu", roleSkip, ""},
		{"x_finance_alias", roleUnknown, ""},
	}
	for _, tt := range tests {
		c := classify(tt.in)
		got := c.key
		if c.role == roleField {
			got = fieldNames[c.field]
		}
		if c.role != tt.role || got != tt.want {
			t.Errorf("classify(%q) = role %d %q, want role %d %q", tt.in, c.role, got, tt.role, tt.want)
		}
	}
}
