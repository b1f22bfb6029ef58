package plan

import (
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
)

// checkInvalid fails t unless err is an EInvalid error whose message is want.
func checkInvalid(t *testing.T, call string, err error, want string) {
	t.Helper()
	if gpucost.ErrorCode(err) != gpucost.EInvalid || err.Error() != want {
		t.Errorf("%s: error %v (code %s), want EInvalid %q", call, err, gpucost.ErrorCode(err), want)
	}
}

func TestParseSLO(t *testing.T) {
	for _, tc := range []struct {
		in   string
		q    float64
		slo  time.Duration
		fail bool
	}{
		{"p99=200ms", 0.99, 200 * time.Millisecond, false},
		{" P99.9 = 1s ", 0.999, time.Second, false},
		{"250ms", 0.99, 250 * time.Millisecond, false},
		{"q99=1s", 0, 0, true},
		{"p100=1s", 0, 0, true},
		{"p99=-1s", 0, 0, true},
		{"p99=", 0, 0, true},
	} {
		q, slo, err := ParseSLO(tc.in)
		if tc.fail {
			checkInvalid(t, "ParseSLO("+tc.in+")", err, `"`+tc.in+`": use pNN=DURATION, such as p99=200ms or p99.9=1s`)
			continue
		}
		if err != nil || math.Abs(q-tc.q) > 1e-12 || slo != tc.slo {
			t.Errorf("ParseSLO(%q) = %v, %v, %v; want %v, %v", tc.in, q, slo, err, tc.q, tc.slo)
		}
	}
}

func TestParseQuantities(t *testing.T) {
	bytes := func(s string) (float64, error) { return ParseBytes(s, false) }
	perSecond := func(s string) (float64, error) { return ParseBytes(s, true) }
	for _, tc := range []struct {
		name  string
		parse func(string) (float64, error)
		in    string
		want  float64
		err   string // the whole message when the value is refused
	}{
		{"ParsePercent", ParsePercent, "20%", 0.2, ""},
		{"ParsePercent", ParsePercent, "1.5", 1.5, ""},
		{"ParsePercent", ParsePercent, "-1%", 0, `"-1%": use a percentage such as 20% or a share such as 0.2`},
		{"ParsePercent", ParsePercent, "NaN", 0, `"NaN": use a percentage such as 20% or a share such as 0.2`},
		{"ParseShare", ParseShare, "20%", 0.2, ""},
		{"ParseShare", ParseShare, "0.5", 0.5, ""},
		{"ParseShare", ParseShare, "120%", 0, `"120%": a share is at most 100%`},
		{"ParseShare", ParseShare, "most", 0, `"most": use a share such as 20% or 0.2`},
		{"ParseRate", ParseRate, "10%/h", 0.1, ""},
		{"ParseRate", ParseRate, "0.25", 0.25, ""},
		{"ParseRate", ParseRate, "0", 0, `"0": use interruptions per hour, such as 10%/h or 0.1`},
		{"ParseBytes", bytes, "98GB", 98e9, ""},
		{"ParseBytes", bytes, "1.5 TiB", 1.5 * (1 << 40), ""},
		{"ParseBytes", bytes, "98", 0, `"98": use a size such as 98GB, 1.5TiB or 512MB`},
		{"ParseBytes/s", perSecond, "1GB/s", 1e9, ""},
		{"ParseBytes/s", perSecond, "1GB", 0, `"1GB": use a size such as 98GB, 1.5TiB or 512MB per second: 1GB/s`},
		{"ParseCount", ParseCount, "7B", 7e9, ""},
		{"ParseCount", ParseCount, "1.5t", 1.5e12, ""},
		{"ParseCount", ParseCount, "7e9", 7e9, ""},
		{"ParseCount", ParseCount, "0", 0, `"0": use a positive count such as 7e9 or 7B`},
	} {
		got, err := tc.parse(tc.in)
		if tc.err != "" {
			checkInvalid(t, tc.name+"("+tc.in+")", err, tc.err)
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("%s(%q) = %v, %v; want %v", tc.name, tc.in, got, err, tc.want)
		}
	}
}

func TestParseDollars(t *testing.T) {
	if m, err := ParseDollars("3.06"); err != nil || m != gpucost.USD(3_060_000_000) {
		t.Errorf("ParseDollars(3.06) = %v, %v", m, err)
	}
	_, err := ParseDollars("0")
	checkInvalid(t, "ParseDollars(0)", err, `"0": use a positive amount of dollars, such as 3.06`)
}

func TestParseSchedule(t *testing.T) {
	s, err := ParseSchedule("0-7=2,8-19=6,20-23=3")
	if err != nil || s[0] != 2 || s[7] != 2 || s[8] != 6 || s[19] != 6 || s[23] != 3 || len(s) != 24 {
		t.Errorf("ParseSchedule(ranges) = %v, %v", s, err)
	}
	week := slices.Repeat([]string{"1"}, 168)
	if s, err := ParseSchedule(strings.Join(week, ",")); err != nil || len(s) != 168 {
		t.Errorf("ParseSchedule(168 counts) = %d counts, %v", len(s), err)
	}
	_, err = ParseSchedule("1,2,3")
	checkInvalid(t, "ParseSchedule(3 counts)", err, `"1,2,3": use hour ranges such as "0-7=2,8-19=6,20-23=3" covering 0–23, or 24 or 168 comma-separated counts`)
	_, err = ParseSchedule("0-7=2,9-23=3")
	checkInvalid(t, "ParseSchedule(no hour 8)", err, `"0-7=2,9-23=3": hour 8 has no count; cover 0–23`)
}

func TestParseInstruments(t *testing.T) {
	ins, err := ParseInstruments("3y=0.57:8, 1y=0.4")
	want := []Instrument{{Name: "3y", Discount: 0.57, MaxUnits: 8}, {Name: "1y", Discount: 0.4}}
	if err != nil || !slices.Equal(ins, want) {
		t.Errorf("ParseInstruments = %+v, %v; want %+v", ins, err, want)
	}
	_, err = ParseInstruments("3y")
	checkInvalid(t, "ParseInstruments(3y)", err, `"3y": write name=discount[:max units], such as 3y=0.57:8,1y=0.4`)
	_, err = ParseInstruments("3y=0.5:many")
	checkInvalid(t, "ParseInstruments(many)", err, `"3y=0.5:many": the max units of 3y, "many", is not a number`)
}

// FuzzParseSchedule: any --schedule gives 24 or 168 counts of 0 or more, or an EInvalid error
// that quotes it; never a panic.
func FuzzParseSchedule(f *testing.F) {
	for _, s := range []string{"0-7=2,8-19=6,20-23=3", "5=1", "23-0=4", "1,2,3", "=,", "0-23=-1", "0-23=1,0-23=2"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out, err := ParseSchedule(s)
		if err != nil {
			if gpucost.ErrorCode(err) != gpucost.EInvalid || !strings.HasPrefix(err.Error(), strconv.Quote(s)+": ") {
				t.Fatalf("ParseSchedule(%q) = %v; want an EInvalid error quoting it", s, err)
			}
			return
		}
		if len(out) != 24 && len(out) != 168 || slices.Min(out) < 0 {
			t.Fatalf("ParseSchedule(%q) = %v; want 24 or 168 counts of 0 or more", s, out)
		}
	})
}

// FuzzParseSLO: any --slo gives a quantile strictly between 0 and 1 and a positive duration,
// or an EInvalid error that quotes it.
func FuzzParseSLO(f *testing.F) {
	for _, s := range []string{"p99=200ms", "p99.9=1s", "200ms", "p0=1s", "p99=", "=1s", "pNaN=1s", "p1e2=1s"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		q, slo, err := ParseSLO(s)
		if err != nil {
			if gpucost.ErrorCode(err) != gpucost.EInvalid || !strings.HasPrefix(err.Error(), strconv.Quote(s)+": ") {
				t.Fatalf("ParseSLO(%q) = %v; want an EInvalid error quoting it", s, err)
			}
			return
		}
		if !(q > 0 && q < 1) || slo <= 0 {
			t.Fatalf("ParseSLO(%q) = %v, %v; want 0 < q < 1 and a positive duration", s, q, slo)
		}
	})
}
