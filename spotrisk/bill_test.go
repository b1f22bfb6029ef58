package spotrisk

import (
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/spot"
)

// billDay is a daily spot usage line of instance id: hours on day d (1-based) from t0.
func billDay(t0 time.Time, id, team string, d int, hours float64) *gpucost.CostLine {
	start := t0.Add(time.Duration(d-1) * 24 * time.Hour)
	return &gpucost.CostLine{Provider: "AWS", ChargeCategory: "Usage", PricingCategory: "Dynamic", ResourceID: id,
		InstanceType: "g5.xlarge", RegionID: "us-east-1", AvailabilityZone: "us-east-1a",
		ChargePeriodStart: start, ChargePeriodEnd: start.Add(24 * time.Hour), ConsumedQuantity: hours, ConsumedUnit: "Hours",
		Tags: gpucost.Labels{"team": team, "Name": id}}
}

// dailyBill is a daily bill of six days (its last line, on demand, ends day 6) with these spot
// instances of g5.xlarge in us-east-1a:
//
//	i-1 (ml)    day 1 24 h, day 2 10 h: ran into day 2, so it ended at day 2 10:00
//	i-2 (ml)    day 2 14 h, day 3 24 h, day 4 5 h: started at day 2 10:00, ended day 4 05:00
//	i-3 (ml)    day 4 12 h: started between 00:00 and 12:00, ended 12 h later, by day 5 00:00
//	i-4 (other) day 2 14 h, day 3 24 h: started day 2 10:00, ended day 4 00:00
//	i-5 (ml)    day 5 20 h, day 6 24 h: started day 5 04:00, still running when the bill stops
func dailyBill() *Bill {
	t0 := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	var b Bill
	for _, c := range []*gpucost.CostLine{
		billDay(t0, "i-1", "ml", 1, 24), billDay(t0, "i-1", "ml", 2, 10),
		billDay(t0, "i-2", "ml", 2, 14), billDay(t0, "i-2", "ml", 3, 24), billDay(t0, "i-2", "ml", 4, 5),
		billDay(t0, "i-3", "ml", 4, 12),
		billDay(t0, "i-4", "other", 2, 14), billDay(t0, "i-4", "other", 3, 24),
		billDay(t0, "i-5", "ml", 5, 20), billDay(t0, "i-5", "ml", 6, 24),
	} {
		b.Add(c)
	}
	ebs := billDay(t0, "i-1", "ml", 1, 8) // the volume: GB-months, not hours
	ebs.ConsumedUnit = "GB-Mo"
	b.Add(ebs)
	noID := billDay(t0, "", "ml", 3, 3)
	b.Add(noID)
	od := billDay(t0, "i-od", "ml", 6, 24)
	od.PricingCategory = "Standard"
	b.Add(od)
	return &b
}

// TestBillExposures checks the bill's exposure against the hand count in dailyBill's comment:
// 34 + 43 + 12 + 38 + 44 = 171 instance-hours; ends i-1, i-2, i-3, i-4 (i-5 runs on); i-1's end
// is replaced by i-2's start at the same hour, i-2's (day 4 05:00) possibly by i-3's (00:00 to
// 12:00); i-3's (12:00 to 24:00) by nothing within the hour (i-5 starts day 5 04:00), i-4's
// has no instance of its workload after it. So 2 interruptions, at most 4.
func TestBillExposures(t *testing.T) {
	b := dailyBill()
	if b.Lines != 11 || b.Skipped != 1 {
		t.Errorf("Bill.Add: %d lines, %d skipped; want 11 spot hour lines, 1 without a resource ID", b.Lines, b.Skipped)
	}
	exps, left := b.Exposures(nil)
	rates := Measure(exps, 0.95)
	if len(rates) != 1 || left != 0 {
		t.Fatalf("Measure(bill) = %d pools, %d left out; want 1, 0: %+v", len(rates), left, rates)
	}
	r := rates[0]
	if r.Pool != (Pool{Provider: "aws", InstanceType: "g5.xlarge", Region: "us-east-1", Zone: "us-east-1a"}) {
		t.Errorf("Measure(bill) pool = %+v", r.Pool)
	}
	if r.Hours != 171 || r.BillHours != 171 || r.Interruptions != 2 || r.BillInterruptions != 2 || r.BillEnds != 4 || r.BillResources != 5 || r.Runs != 0 {
		t.Errorf("Measure(bill) = %v h (bill %v), %d interruptions (bill %d), %d ends, %d instances, %d runs; want 171, 2, 4 ends, 5 instances, 0 runs",
			r.Hours, r.BillHours, r.Interruptions, r.BillInterruptions, r.BillEnds, r.BillResources, r.Runs)
	}
	// Garwood for 2 in 171 h: χ²(0.025; 4) = 0.484419, χ²(0.975; 6) = 14.4494, over 342.
	if !near(r.PerHour, 2.0/171, 1e-12) || !near(r.Low, 0.484419/342, 1e-4) || !near(r.High, 14.4494/342, 1e-4) {
		t.Errorf("Measure(bill) rate %v (%v–%v), want %v (%v–%v)", r.PerHour, r.Low, r.High, 2.0/171, 0.484419/342, 14.4494/342)
	}
	if r.Priced || r.Source != FromBill {
		t.Errorf("Measure(bill) priced %v source %q; want unpriced, %q", r.Priced, r.Source, FromBill)
	}

	// i-2 is counted by a run's events: its hours leave the bill, and i-1's end has no
	// replacement left (i-3 starts two days later): 128 h, no interruption, ends i-1, i-3, i-4.
	exps, left = b.Exposures(map[string]bool{"i-2": true})
	r = Measure(exps, 0.95)[0]
	if left != 1 || r.Hours != 128 || r.Interruptions != 0 || r.BillEnds != 3 || r.BillResources != 4 {
		t.Errorf("Exposures(i-2 counted) = %d left, %v h, %d interruptions, %d ends, %d instances; want 1, 128, 0, 3, 4",
			left, r.Hours, r.Interruptions, r.BillEnds, r.BillResources)
	}
}

// TestBillRunBounds checks the start and end an hourly bill pins down: an instance from 10:20
// to 14:40 (40 minutes in the 10:00 and the 14:00 lines, whole hours between) and its
// replacement from 15:10 (50 minutes in the 15:00 line) to 17:00.
func TestBillRunBounds(t *testing.T) {
	t0 := time.Date(2026, 11, 3, 0, 0, 0, 0, time.UTC)
	hour := func(id string, h int, used float64) *gpucost.CostLine {
		start := t0.Add(time.Duration(h) * time.Hour)
		return &gpucost.CostLine{Provider: "Amazon Web Services", ChargeCategory: "Usage", PricingCategory: "Dynamic", ResourceID: id,
			InstanceType: "p4d.24xlarge", RegionID: "us-west-2", ChargePeriodStart: start, ChargePeriodEnd: start.Add(time.Hour),
			PricingQuantity: used, PricingUnit: "Hrs"}
	}
	var b Bill
	for _, c := range []*gpucost.CostLine{hour("a", 10, 40.0/60), hour("a", 11, 1), hour("a", 12, 1), hour("a", 13, 1), hour("a", 14, 40.0/60),
		hour("b", 15, 50.0/60), hour("b", 16, 1), hour("c", 17, 1)} {
		b.Add(c)
	}
	runs := b.res["a"].runs(b.end["aws\x00"])
	at := func(h, m int) time.Time { return t0.Add(time.Duration(h)*time.Hour + time.Duration(m)*time.Minute) }
	if len(runs) != 1 || !runs[0].startFrom.Equal(at(10, 20)) || !runs[0].startTo.Equal(at(10, 20)) ||
		!runs[0].endFrom.Equal(at(14, 40)) || !runs[0].endTo.Equal(at(14, 40)) || !runs[0].ended {
		t.Fatalf("runs(a) = %+v, want one from 10:20 to 14:40, ended", runs[0])
	}
	single := (&billResource{periods: map[time.Time]billPeriod{at(15, 0): {at(15, 0), at(16, 0), 0.25}}}).runs(at(18, 0))
	if s := single[0]; !s.startFrom.Equal(at(15, 0)) || !s.startTo.Equal(at(15, 45)) || !s.endFrom.Equal(at(15, 15)) || !s.endTo.Equal(at(16, 0)) {
		t.Errorf("runs(15 minutes in one hour) = start %v–%v end %v–%v, want 15:00–15:45, 15:15–16:00", s.startFrom, s.startTo, s.endFrom, s.endTo)
	}
	exps, _ := b.Exposures(nil)
	r := Measure(exps, 0.95)[0]
	// a ended 14:40, b started 15:10: replaced; b ended 17:00 and c, a whole hour from 17:00,
	// replaced it; c runs to the bill's end. 4⅓ + 1⅚ + 1 = 7⅙ h.
	if r.Interruptions != 2 || r.BillEnds != 2 || !near(r.Hours, 4+1.0/3+1+5.0/6+1, 1e-12) || r.Pool.Provider != "aws" {
		t.Errorf("Measure(hourly bill) = %d interruptions, %d ends, %v h, pool %v; want 2, 2, 7.1667 h, aws", r.Interruptions, r.BillEnds, r.Hours, r.Pool)
	}
}

// TestMergeRunsAndBill checks that the runs' and the bill's exposures of one pool sum: the runs
// of TestMeasure (2 interruptions in 20 h) with the bill's 2 in 171 h is 4 in 191 h, the
// cost and saving the runs' alone.
func TestMergeRunsAndBill(t *testing.T) {
	t0 := time.Date(2026, 11, 2, 8, 0, 0, 0, time.UTC)
	var evs []spot.Event
	evs = append(evs, events("a", t0, 4, 3.9, true)...)
	evs = append(evs, events("b", t0.Add(5*time.Hour), 6, 5.9, true)...)
	evs = append(evs, events("c", t0.Add(12*time.Hour), 10, 0, true)...)
	runs := FromEvents("ft", evs)
	for i := range runs {
		runs[i].Pool.Provider = "aws"
	}
	bill, _ := dailyBill().Exposures(nil)
	rates := Measure(append(runs, bill...), 0.95)
	if len(rates) != 1 {
		t.Fatalf("Measure(runs, bill) = %d pools, want 1", len(rates))
	}
	r := rates[0]
	if r.Hours != 191 || r.Interruptions != 4 || r.Runs != 3 || r.RunHours != 20 || r.BillHours != 171 || !near(r.PerHour, 4.0/191, 1e-12) ||
		r.Source != "runs + bill" || !r.Priced || r.Saving.Nanos != 2e9 {
		t.Errorf("Measure(runs, bill) = %+v; want 4 in 191 h (runs 20, bill 171), runs + bill, saving $2", r)
	}
	got, ok := Resolve(r.Pool, rates, nil, nil)
	want := "measured on aws g5.xlarge us-east-1/us-east-1a: 4 interruptions in 191.0 instance-hours"
	if !ok || got.Source != SourceMeasured || !strings.HasPrefix(got.Why, want) || !strings.Contains(got.Why, "from the bill 2 of 4 interruptions in 171.0 instance-hours, at most 6") {
		t.Errorf("Resolve(runs + bill) = %+v, want %q… naming the bill's part", got, want)
	}
}

// FuzzBill reads bills of up to 32 hourly or daily spot lines made from the input's bytes
// (instance, team, period, hours) and checks what must hold of any bill: the interruptions are
// at most the ends, the hours are the lines' hours, each at most its period.
func FuzzBill(f *testing.F) {
	f.Add([]byte{0, 0, 0, 255, 0, 0, 1, 100, 1, 0, 1, 155, 1, 0, 2, 255})
	f.Add([]byte{1, 1, 0, 40, 1, 1, 1, 255, 2, 1, 1, 10, 2, 0, 9, 200})
	f.Fuzz(func(t *testing.T, data []byte) {
		t0 := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
		var b Bill
		want := map[[2]string]float64{} // resource and period → hours kept
		for i := 0; i+4 <= len(data) && i < 4*32; i += 4 {
			id, team, period, share := fmt.Sprintf("i-%d", data[i]%5), fmt.Sprint(data[i+1]%2), int(data[i+2]%12), float64(data[i+3])/255
			length := time.Hour
			if data[i]&0x80 != 0 {
				length = 24 * time.Hour
			}
			start := t0.Add(time.Duration(period) * length)
			c := &gpucost.CostLine{Provider: "AWS", ChargeCategory: "Usage", PricingCategory: "Dynamic", ResourceID: id, InstanceType: "g5.xlarge",
				RegionID: "us-east-1", ChargePeriodStart: start, ChargePeriodEnd: start.Add(length), ConsumedQuantity: share * length.Hours(),
				ConsumedUnit: "Hours", Tags: gpucost.Labels{"team": team}}
			b.Add(c)
			if share > 0 {
				k := [2]string{id, start.String()}
				if r := b.res[id]; r != nil {
					want[k] = r.periods[start].hours
				}
			}
		}
		exps, _ := b.Exposures(nil)
		var hours, wantHours float64
		for _, e := range exps {
			if e.Interruptions > e.Ends || e.Hours < 0 {
				t.Errorf("Exposures() = %+v: more interruptions than ends, or negative hours", e)
			}
			hours += e.Hours
		}
		for k, h := range want {
			if h > 24 || h < 0 {
				t.Errorf("period %v kept %v hours", k, h)
			}
			wantHours += h
		}
		if math.Abs(hours-wantHours) > 1e-6 {
			t.Errorf("Exposures() = %v hours, want the lines' %v", hours, wantHours)
		}
	})
}
