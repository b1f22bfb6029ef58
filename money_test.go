package gpucost

import "testing"

func TestParseMoney(t *testing.T) {
	for _, c := range []struct {
		in   string
		want int64
		ok   bool
	}{
		{"12.5", 12_500_000_000, true},
		{"-0.000123", -123_000, true},
		{"+3", 3_000_000_000, true},
		{".5", 500_000_000, true},
		{"5.", 5_000_000_000, true},
		{"0.0000000005", 0, true},   // half to even: 0.5 nano rounds to 0
		{"0.0000000015", 2, true},   // 1.5 nanos rounds to 2
		{"-0.0000000025", -2, true}, // -2.5 nanos rounds to -2
		{"1e-3", 1_000_000, true},
		{"1.23456789012", 1_234_567_890, true},
		{" 7 ", 7_000_000_000, true},
		{"9999999999.999999999", 0, false}, // beyond int64 nanos
		{"999999999.999999999", 999_999_999_999_999_999, true},
		{"", 0, false},
		{"abc", 0, false},
		{"1e99999999", 0, false},
		{"1,5", 0, false},
		{"-", 0, false},
		{".", 0, false},
	} {
		got, err := ParseMoney(c.in, "USD")
		if (err == nil) != c.ok || c.ok && got.Nanos != c.want {
			t.Errorf("ParseMoney(%q) = %d, %v; want %d, ok=%v", c.in, got.Nanos, err, c.want, c.ok)
		}
		if err != nil && ErrorCode(err) != EInvalid {
			t.Errorf("ParseMoney(%q) error code = %q, want %q", c.in, ErrorCode(err), EInvalid)
		}
	}
}

func TestMoneyFormatsAndRounds(t *testing.T) {
	m := USD(1_234_567_890_123) // $1,234.567890123
	if got := m.Dollars(); got != "$1,234.57" {
		t.Errorf("Dollars() = %q", got)
	}
	if got := m.Decimal(); got != "1234.567890123" {
		t.Errorf("Decimal() = %q", got)
	}
	if got := USD(-4_595_000_000).Fixed(2); got != "-4.60" {
		t.Errorf("Fixed(2) of -4.595 = %q, want -4.60 (half away from zero)", got)
	}
	if got := (Money{Nanos: 5_000_000_000, Currency: "EUR"}).Dollars(); got != "EUR 5.00" {
		t.Errorf("EUR Dollars() = %q", got)
	}
	if got := USD(3_060_000_000).DivInt(8); got.Nanos != 382_500_000 {
		t.Errorf("3.06/8 = %d nanos, want 382500000", got.Nanos)
	}
}

func TestAddRefusesMixedCurrencies(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("USD + EUR did not panic")
		}
	}()
	USD(1).Add(Money{Nanos: 1, Currency: "EUR"})
}

func BenchmarkParseMoney(b *testing.B) {
	for b.Loop() {
		if _, err := ParseMoney("32.7726", "USD"); err != nil {
			b.Fatal(err)
		}
	}
}

func TestParseNanosManyDecimals(t *testing.T) {
	for _, c := range []struct {
		in   string
		want int64
	}{
		{"0.000000123456789012", 123},       // FOCUS and CUR carry 10–15 decimals
		{"3.0600000000", 3_060_000_000},     // trailing zeros past the ninth place
		{"0.0000000025000", 2},              // exactly half: to even
		{"0.0000000035", 4},                 // exactly half: to even, up
		{"0.00000000250001", 3},             // past half
		{"-12.3456789015", -12_345_678_902}, // half to even on a negative amount
	} {
		got, err := ParseNanos([]byte(c.in))
		if err != nil || got != c.want {
			t.Errorf("ParseNanos(%q) = %d, %v; want %d", c.in, got, err, c.want)
		}
		if m, _ := ParseMoney(c.in, "USD"); m.Nanos != c.want {
			t.Errorf("ParseMoney(%q) = %d, want %d as ParseNanos", c.in, m.Nanos, c.want)
		}
	}
}

// FuzzParseNanos checks the fast path against big.Rat.
func FuzzParseNanos(f *testing.F) {
	for _, s := range []string{"12.5", "-0.000000123456789012", "1e-3", "999999999.9999999995", ".5", "+7"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		fast, ok := plainNanos(s)
		if !ok {
			return
		}
		slow, err := ratNanos(s, s)
		if err != nil || slow != fast {
			t.Errorf("plainNanos(%q) = %d, big.Rat gives %d, %v", s, fast, slow, err)
		}
	})
}
