package spotrisk

import (
	"strings"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/catalog"
)

const describeZones = `{
    "AvailabilityZones": [
        {"State": "available", "RegionName": "us-east-1", "ZoneName": "us-east-1a", "ZoneId": "use1-az4", "ZoneType": "availability-zone"},
        {"State": "available", "RegionName": "us-east-1", "ZoneName": "us-east-1b", "ZoneId": "use1-az6", "ZoneType": "availability-zone"},
        {"State": "available", "RegionName": "us-east-1", "ZoneName": "us-east-1-bos-1a", "ZoneId": "use1-bos1-az1", "ZoneType": "local-zone"}
    ]
}`

func TestZones(t *testing.T) {
	z, err := ParseZones(strings.NewReader(describeZones), "zones.json")
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		a, b  string
		zones *Zones
		want  ZoneMatch
	}{
		{"us-east-1a", "us-east-1a", nil, ZoneSame},
		{"us-east-1a", "us-east-1b", nil, ZoneOther},
		{"use1-az4", "use1-az6", nil, ZoneOther},
		{"us-east-1a", "use1-az4", nil, ZoneUnmatched},
		{"us-east-1a", "use1-az4", z, ZoneSame},
		{"use1-az6", "us-east-1a", z, ZoneOther},
		{"us-east-1c", "use1-az4", z, ZoneUnmatched},
		{"us-east-1-bos-1a", "use1-bos1-az1", z, ZoneSame},
	}
	for _, c := range cases {
		if got := c.zones.Match(c.a, c.b); got != c.want {
			t.Errorf("Zones(%d known).Match(%q, %q) = %v, want %v", c.zones.Len(), c.a, c.b, got, c.want)
		}
	}
	if got := z.Label("use1-az6"); got != "use1-az6 (us-east-1b)" {
		t.Errorf("Label(use1-az6) = %q", got)
	}
	for _, bad := range []string{`{}`, `{"AvailabilityZones": [{"ZoneName": "us-east-1a", "ZoneId": "us-east-1a"}]}`, `[`} {
		if _, err := ParseZones(strings.NewReader(bad), "zones.json"); err == nil || !strings.Contains(err.Error(), "describe-availability-zones") {
			t.Errorf("ParseZones(%s) = %v, want an error naming the command that writes the file", bad, err)
		}
	}
}

// TestResolveZones checks the measured rate of TestResolve (2 interruptions in 10 h in
// us-east-1a) against a pool named by zone ID: unmatched without a mapping (the region's rate,
// said so), the same zone with the runner's pair, and another zone when the name maps
// elsewhere (the advisor then).
func TestResolveZones(t *testing.T) {
	adv := readFixture(t)
	t0 := time.Date(2026, 11, 2, 8, 0, 0, 0, time.UTC)
	evs := append(events("a", t0, 4, 3.9, true), events("b", t0.Add(5*time.Hour), 6, 5.9, true)...)
	rates := Measure(FromEvents("ft", evs), 0.95)
	pool := Pool{InstanceType: "g5.xlarge", Region: "us-east-1", Zone: "use1-az4"}
	var fromRunner, elsewhere Zones
	for i := range evs {
		evs[i].ZoneID = "use1-az4"
	}
	fromRunner.AddEvents(evs)
	elsewhere.Add("us-east-1a", "use1-az1")
	cases := []struct {
		name   string
		zones  *Zones
		source string
		rate   float64
		why    string
	}{
		{"no mapping", nil, SourceMeasured, 0.2, "zone unmatched: use1-az4 and the measured us-east-1a"},
		{"runner's pair", &fromRunner, SourceMeasured, 0.2, "measured on g5.xlarge us-east-1/use1-az4: 2 interruptions"},
		{"maps elsewhere", &elsewhere, SourceAdvisor, catalog.MonthlyToHourly(0.08), "bucket 5-10%"},
	}
	for _, c := range cases {
		got, ok := Resolve(pool, rates, adv, c.zones)
		if !ok || got.Source != c.source || !near(got.PerHour, c.rate, 1e-9) || !strings.Contains(got.Why, c.why) {
			t.Errorf("%s: Resolve(%v) = %+v, %v; want %s at %v saying %q", c.name, pool, got, ok, c.source, c.rate, c.why)
		}
	}
}

// TestPriceTrend checks the trend against hand computation: over the 30 days before now the
// price was $1.00 for 3.5 days and $1.20 for 3.5 in the first week (mean $1.10), $1.32 and
// $1.10 for 3.5 days each in the last (mean $1.21): +10%, up.
func TestPriceTrend(t *testing.T) {
	now := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	day := func(d float64) time.Time { return now.Add(-time.Duration(d * 24 * float64(time.Hour))) }
	offer := func(at time.Time, price string) gpucost.Offer {
		p, _ := gpucost.ParseMoney(price, "USD")
		return gpucost.Offer{Provider: "aws", Region: "us-east-1", Zone: "us-east-1a", InstanceType: "g5.xlarge", SpotPrice: p, HasSpot: true, AsOf: at}
	}
	h, _ := DecodePriceHistory("")
	for _, o := range []gpucost.Offer{offer(day(30), "1.00"), offer(day(26.5), "1.20"), offer(day(20), "1.20"),
		offer(day(7), "1.32"), offer(day(3.5), "1.10"), offer(now, "1.10"), {Provider: "aws", InstanceType: "g5.xlarge", HasSpot: true, AsOf: now}} {
		h.Add([]gpucost.Offer{o})
	}
	doc, err := h.Encode()
	if err != nil {
		t.Fatal(err)
	}
	if h, err = DecodePriceHistory(doc); err != nil {
		t.Fatal(err)
	}
	if s := h.Series["aws us-east-1 us-east-1a g5.xlarge"]; len(h.Series) != 1 || s == nil || len(s.Steps) != 4 {
		t.Fatalf("history = %+v, want one series of 4 price changes", h.Series)
	}
	var zones Zones
	zones.Add("us-east-1a", "use1-az4")
	tr, ok := h.Trend(Pool{Provider: "aws", InstanceType: "g5.xlarge", Region: "us-east-1", Zone: "use1-az4"}, &zones, now)
	if !ok || tr.First.Nanos != 1.10e9 || tr.Last.Nanos != 1.21e9 || !near(tr.Change, 0.10, 1e-9) || tr.Direction != "up" {
		t.Errorf("Trend() = %+v, %v; want $1.10 → $1.21, +10%%, up", tr, ok)
	}
	if got := tr.String(); got != "$1.10 → $1.21 (+10.0%, up)" {
		t.Errorf("Trend().String() = %q", got)
	}
	if _, ok := h.Trend(Pool{Provider: "aws", InstanceType: "g5.xlarge", Region: "us-east-1", Zone: "use1-az4"}, nil, now); ok {
		t.Errorf("Trend(zone ID, no mapping) = ok, want no history")
	}
	// A regional price (GCP): $2.00 the whole first week, $1.50 from 7 days ago: −25%, down,
	// for any zone of the region.
	two, _ := gpucost.ParseMoney("2.00", "USD")
	oneHalf, _ := gpucost.ParseMoney("1.50", "USD")
	for _, o := range []gpucost.Offer{{Provider: "gcp", Region: "us-central1", InstanceType: "g2-standard-4", SpotPrice: two, HasSpot: true, AsOf: day(31)},
		{Provider: "gcp", Region: "us-central1", InstanceType: "g2-standard-4", SpotPrice: oneHalf, HasSpot: true, AsOf: day(7)},
		{Provider: "gcp", Region: "us-central1", InstanceType: "g2-standard-4", SpotPrice: oneHalf, HasSpot: true, AsOf: now}} {
		h.Add([]gpucost.Offer{o})
	}
	if tr, ok := h.Trend(Pool{Provider: "gcp", InstanceType: "g2-standard-4", Region: "us-central1", Zone: "us-central1-a"}, nil, now); !ok ||
		tr.String() != "$2.00 → $1.50 (-25.0%, down)" {
		t.Errorf("Trend(regional) = %v, %v; want $2.00 → $1.50, −25%%, down", tr, ok)
	}
	// Read last 40 days ago: no price in either week of the 30 days before now.
	if _, ok := h.Trend(Pool{InstanceType: "g5.xlarge", Region: "us-east-1", Zone: "us-east-1a"}, nil, now.Add(40*24*time.Hour)); ok {
		t.Errorf("Trend(40 days on) = ok, want no history")
	}
}

// FuzzParseZones checks that any input is read or refused with a message, never a panic, and
// that what is read maps every name to an ID.
func FuzzParseZones(f *testing.F) {
	f.Add(describeZones)
	f.Add(`{"AvailabilityZones": []}`)
	f.Add(`{"AvailabilityZones": [{"ZoneName": "a", "ZoneId": "x-az"}]}`)
	f.Fuzz(func(t *testing.T, s string) {
		z, err := ParseZones(strings.NewReader(s), "zones.json")
		if err != nil {
			return
		}
		for name, id := range z.ids {
			if !IsZoneID(id) || z.names[id] != name && z.ids[z.names[id]] != id {
				t.Errorf("ParseZones(%q) maps %q to %q", s, name, id)
			}
		}
	})
}
