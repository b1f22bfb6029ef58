package present

import (
	"math/rand/v2"
	"regexp"
	"testing"
)

// The expressions the cell matchers of csv.go stand for.
var (
	plainNumberRE  = regexp.MustCompile(`^[+-]?(\d{1,3}(,\d{3})+|\d+)(\.\d+)?$`)
	currencyCellRE = regexp.MustCompile(`^([A-Z]{3}) (.+)$`)
	goDurationRE   = regexp.MustCompile(`^-?([0-9]+(\.[0-9]+)?(h|m|s|ms|µs|us|ns))+$`)
)

// checkCellMatchers fails t where a cell matcher and its expression disagree on c.
func checkCellMatchers(t *testing.T, c string) {
	t.Helper()
	if got, want := plainNumber(c), plainNumberRE.MatchString(c); got != want {
		t.Errorf("plainNumber(%q) = %v, want %v", c, got, want)
	}
	if got, want := goDuration(c), goDurationRE.MatchString(c); got != want {
		t.Errorf("goDuration(%q) = %v, want %v", c, got, want)
	}
	code, rest, ok := currencyCell(c)
	var wantCode, wantRest string
	m := currencyCellRE.FindStringSubmatch(c)
	if m != nil {
		wantCode, wantRest = m[1], m[2]
	}
	if ok != (m != nil) || code != wantCode || rest != wantRest {
		t.Errorf("currencyCell(%q) = %q, %q, %v, want %q, %q, %v", c, code, rest, ok, wantCode, wantRest, m != nil)
	}
}

func TestCellMatchersAreTheirExpressions(t *testing.T) {
	for _, c := range []string{"", "0", "12", "+1", "-", "+", "1,234", "12,345.67", "1234,567", "1,23", "1,2345",
		",123", "1,", "1.", ".5", "1.5.", "-1,000.00", "1,000,000", "12.", "1h30m0s", "250ms", "-250ms", "1.5h",
		"1m", "1ms", "1mss", "1µs", "1us", "1ns", "2h45m", "h", "1", "1.s", "1s2", "--1s", "-1s", "1m s",
		"USD 1.00", "EUR 2.000", "usd 1", "USD", "USD ", "USD 1", "US 1", "USDX 1", "ÉUR 1", "EUR 1\n", "EUR \n1",
		"EUR 1,234.5", "EUR x", "1\n", "٣", "1٣", "$1", "79.0%"} {
		checkCellMatchers(t, c)
	}
	// Random cells of the bytes the expressions turn on.
	alphabet := []string{"0", "1", "9", ",", ".", "+", "-", "h", "m", "s", "u", "n", "µ", "E", "U", "R", " ", "\n", "x", "\xff"}
	rng := rand.New(rand.NewPCG(21, 5))
	for range 200_000 {
		var b []byte
		for range rng.IntN(12) {
			b = append(b, alphabet[rng.IntN(len(alphabet))]...)
		}
		checkCellMatchers(t, string(b))
		if t.Failed() {
			return
		}
	}
}

func FuzzCellMatchers(f *testing.F) {
	for _, c := range []string{"1,234.5", "1h30m0s", "EUR 2.000", "-250ms", "+1,000"} {
		f.Add(c)
	}
	f.Fuzz(func(t *testing.T, c string) { checkCellMatchers(t, c) })
}
