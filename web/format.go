package web

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/analyze"
)

func formatMoneys(ms []gpucost.Money) string {
	if len(ms) == 0 {
		return gpucost.USD(0).Dollars()
	}
	s := make([]string, len(ms))
	for i, m := range ms {
		s[i] = m.Dollars()
	}
	return strings.Join(s, " + ")
}

func formatPct(f float64) string {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return "—"
	}
	return strconv.FormatFloat(f, 'f', 1, 64) + "%"
}

// formatStat shows an optional statistic with its unit, or a dash when it is absent.
func formatStat(s analyze.Stat, unit string) string {
	if !s.Valid() {
		return "—"
	}
	prec := 1
	if u := strings.TrimSpace(unit); u == "MiB" || u == "W" {
		prec = 0
	}
	return groupDigits(strconv.FormatFloat(float64(s), 'f', prec, 64)) + unit
}

func formatHours(h float64) string {
	if math.IsNaN(h) {
		return "—"
	}
	return groupDigits(strconv.FormatFloat(h, 'f', 1, 64))
}

// formatDuration shows a duration to the minute: "3d 4h", "2h 05m", "45m", "12s".
func formatDuration(d time.Duration) string {
	switch {
	case d <= 0:
		return "0"
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d/time.Second))
	case d < time.Hour:
		return fmt.Sprintf("%dm", int(d/time.Minute))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh %02dm", int(d/time.Hour), int(d%time.Hour/time.Minute))
	}
	return fmt.Sprintf("%dd %dh", int(d/day), int(d%day/time.Hour))
}

func formatTime(t time.Time, layout string) string {
	if t.IsZero() {
		return "—"
	}
	return t.UTC().Format(layout)
}

// groupDigits puts thousands separators into the integer part of a decimal string.
func groupDigits(s string) string {
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	whole, frac, hasFrac := strings.Cut(s, ".")
	var b strings.Builder
	if neg {
		b.WriteByte('-')
	}
	for i, c := range whole {
		if i > 0 && (len(whole)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if hasFrac {
		b.WriteString("." + frac)
	}
	return b.String()
}

// ratio is a/b as a float for meters; 0 when b is zero or the currencies differ.
func ratio(a, b gpucost.Money) float64 {
	if b.Nanos == 0 || a.Currency != b.Currency && a.Currency != "" && b.Currency != "" {
		return 0
	}
	return float64(a.Nanos) / float64(b.Nanos)
}

// budgetLevel names a budget's state for its colour: ok, warn (80% or projected over), over.
func budgetLevel(percent, forecastPercent float64) string {
	switch {
	case percent >= 100:
		return "over"
	case percent >= 80 || forecastPercent >= 100:
		return "warn"
	}
	return "ok"
}

// chartJSON is a chart's data for a <script type="application/json"> block. json.Marshal
// escapes <, > and & as \u003c and so on, so no value can close the script element.
// A chart that encodes itself (a heatmap: only its numbers are its own) is not scanned again.
func chartJSON(v any) (string, error) {
	var b []byte
	var err error
	if m, ok := v.(json.Marshaler); ok {
		b, err = m.MarshalJSON()
	} else {
		b, err = json.Marshal(v)
	}
	if err != nil {
		return "", fmt.Errorf("chart data: %w", err)
	}
	return string(b), nil
}

// float is an amount as a number for a chart to place; never used to show or add money.
func float(m gpucost.Money) float64 { return float64(m.Nanos) / 1e9 }
