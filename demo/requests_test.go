package demo

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

// TestServingRates: a row a minute after the header, and the serving pool's rate is its busy
// GPUs ÷ the service time, so it is the same for the same minutes.
func TestServingRates(t *testing.T) {
	from := time.Date(2026, 3, 2, 15, 0, 0, 0, time.UTC) // a Monday afternoon
	var a, b bytes.Buffer
	for _, w := range []*bytes.Buffer{&a, &b} {
		if err := ServingRates(w, Fleet(), "serving", 40*time.Millisecond, from, from.Add(10*time.Minute)); err != nil {
			t.Fatal(err)
		}
	}
	lines := strings.Split(strings.TrimSpace(a.String()), "\n")
	if len(lines) != 11 || lines[0] != "timestamp,rate" || !strings.HasPrefix(lines[1], "2026-03-02T15:00:00Z,") {
		t.Fatalf("ServingRates = %d lines, first %q; want the header and 10 minutes from 15:00", len(lines), lines[:2])
	}
	if a.String() != b.String() {
		t.Errorf("ServingRates twice over the same minutes differ")
	}
	if _, rate, _ := strings.Cut(lines[1], ","); rate == "0.00" {
		t.Errorf("ServingRates at 15:00 = %s requests a second; want the serving pool busy", rate)
	}
	var none bytes.Buffer
	if err := ServingRates(&none, Fleet(), "no-such-namespace", time.Second, from, from.Add(time.Minute)); err != nil || !strings.HasSuffix(none.String(), ",0.00\n") {
		t.Errorf("ServingRates(no machines) = %q, %v; want a rate of 0.00", none.String(), err)
	}
}
