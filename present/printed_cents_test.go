package present

import (
	"strings"
	"testing"

	"github.com/gpucost/gpucost"
)

// parseDollarsCell parses an amount as Money.Dollars prints it, "$1,234.57" or "-$0.33" (USD only).
func parseDollarsCell(t *testing.T, s string) gpucost.Money {
	t.Helper()
	neg := strings.HasPrefix(s, "-")
	v := strings.ReplaceAll(strings.TrimPrefix(strings.TrimPrefix(s, "-"), "$"), ",", "")
	m, err := gpucost.ParseMoney(v, "USD")
	if err != nil {
		t.Fatalf("amount %q: %v", s, err)
	}
	if neg {
		m.Nanos = -m.Nanos
	}
	return m
}

// sumDollarsColumn adds up column col of rows as printed.
func sumDollarsColumn(t *testing.T, rows [][]string, col int) gpucost.Money {
	t.Helper()
	sum := gpucost.USD(0)
	for _, r := range rows {
		sum = sum.Add(parseDollarsCell(t, r[col]))
	}
	return sum
}

// amounts335 returns n amounts of $0.335 each: rounded one by one they print $0.34 each, n × 0.34
// in all, where their exact sum rounds to less (three print $1.02 under a total of $1.01).
func amounts335(t *testing.T, n int) []gpucost.Money {
	out := make([]gpucost.Money, n)
	for i := range out {
		out[i] = usd(t, "0.335")
	}
	return out
}
