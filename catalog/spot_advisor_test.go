package catalog

import (
	"math"
	"os"
	"strings"
	"testing"

	"github.com/gpucost/gpucost"
)

func nearRel(a, b, rel float64) bool { return math.Abs(a-b) <= rel*math.Abs(b) }

func TestMonthlyToHourly(t *testing.T) {
	// A bucket of <5% (middle 2.5%): e^(−730λ) = 0.975.
	if got, want := MonthlyToHourly(0.025), 0.025317807984289786/730; !nearRel(got, want, 1e-12) {
		t.Errorf("MonthlyToHourly(0.025) = %v, want %v", got, want)
	}
}

func readSpotAdvisorFixture(t *testing.T) *SpotAdvisor {
	t.Helper()
	f, err := os.Open("testdata/spot-advisor-data.json")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	a, err := ParseSpotAdvisor(f, "spot-advisor-data.json")
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func TestParseSpotAdvisor(t *testing.T) {
	a := readSpotAdvisorFixture(t)
	if got := a.Pools(); got != 6 {
		t.Errorf("Pools() = %d, want 6 Linux entries", got)
	}
	cases := []struct {
		region, typ string
		label       string
		lo, hi      float64
		savings     int
		monthly     float64
	}{
		{"us-east-1", "g6e.2xlarge", "<5%", 0, 5, 71, 0.025},
		{"us-east-1", "g5.xlarge", "5-10%", 5, 11, 68, 0.08},
		{"us-east-1", "g5.12xlarge", "15-20%", 16, 22, 61, 0.19},
		{"us-east-1", "p4d.24xlarge", ">20%", 22, 100, 55, 0.22},
		{"us-west-2", "g6e.2xlarge", "10-15%", 11, 16, 70, 0.135},
	}
	for _, c := range cases {
		b, s, ok := a.Lookup(c.region, c.typ)
		if !ok || b.Label != c.label || b.LowPct != c.lo || b.HighPct != c.hi || s != c.savings || !nearRel(b.MonthlyFraction(), c.monthly, 1e-12) {
			t.Errorf("Lookup(%s, %s) = %+v, %d, %v; want %s %v–%v%%, %d, monthly %v", c.region, c.typ, b, s, ok, c.label, c.lo, c.hi, c.savings, c.monthly)
		}
	}
	if _, _, ok := a.Lookup("eu-west-1", "g5.xlarge"); ok {
		t.Errorf("Lookup(eu-west-1, g5.xlarge) found an entry the fixture lacks")
	}
	enc, err := a.Encode()
	if err != nil {
		t.Fatal(err)
	}
	back, err := DecodeSpotAdvisor(enc)
	if err != nil {
		t.Fatal(err)
	}
	if b, _, _ := back.Lookup("us-east-1", "g5.xlarge"); b.Label != "5-10%" {
		t.Errorf("DecodeSpotAdvisor(Encode()) lost g5.xlarge: %+v", b)
	}
}

func TestParseSpotAdvisorRefuses(t *testing.T) {
	for name, in := range map[string]string{
		"not json":     "<html>",
		"no ranges":    `{"spot_advisor": {"us-east-1": {"Linux": {"g5.xlarge": {"s": 1, "r": 0}}}}}`,
		"range absent": `{"ranges": [{"index": 0, "label": "<5%", "max": 5}], "spot_advisor": {"us-east-1": {"Linux": {"g5.xlarge": {"s": 1, "r": 3}}}}}`,
	} {
		if _, err := ParseSpotAdvisor(strings.NewReader(in), name); err == nil || !strings.Contains(err.Error(), name) {
			t.Errorf("%s: ParseSpotAdvisor() error = %v, want one naming the file", name, err)
		}
	}
}

// FuzzParseSpotAdvisor checks that any input either parses into an advisor whose every entry
// names one of its buckets, or is refused with an EInvalid error.
func FuzzParseSpotAdvisor(f *testing.F) {
	if b, err := os.ReadFile("testdata/spot-advisor-data.json"); err == nil {
		f.Add(b)
	}
	f.Add([]byte(`{"ranges":[{"index":0,"label":"<5%","max":5}],"spot_advisor":{"r":{"Linux":{"t":{"s":1,"r":0}}}}}`))
	f.Add([]byte(`{"ranges":[{"index":0,"max":5},{"index":1,"max":5}],"spot_advisor":{}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		a, err := ParseSpotAdvisor(strings.NewReader(string(b)), "fuzz")
		if err != nil {
			if gpucost.ErrorCode(err) != gpucost.EInvalid {
				t.Fatalf("ParseSpotAdvisor error %v is not EInvalid", err)
			}
			return
		}
		for region, types := range a.Regions {
			for typ, e := range types {
				if e.Bucket < 0 || e.Bucket >= len(a.Buckets) {
					t.Fatalf("%s %s names bucket %d of %d", region, typ, e.Bucket, len(a.Buckets))
				}
				if _, _, ok := a.Lookup(region, typ); !ok {
					t.Fatalf("Lookup(%s, %s) found nothing", region, typ)
				}
			}
		}
	})
}
