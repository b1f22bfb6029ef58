package recommend

import (
	"strings"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/plan"
)

// r5Requests is reference case R5's traffic as request counts, about 100k predictions a day:
// none before 10:00, 20,000 an hour until noon, then 7,000, 4,000 and 2,000.
func r5Requests() [7][24]float64 {
	var w [7][24]float64
	for d := range 7 {
		for h := range 24 {
			switch {
			case h < 10:
			case h < 12:
				w[d][h] = 20000
			case h < 15:
				w[d][h] = 7000
			case h < 19:
				w[d][h] = 4000
			default:
				w[d][h] = 2000
			}
		}
	}
	return w
}

// TestServingRecommendationsR5 sizes R5's pool of 4 one-GPU machines ($2,880 a month) by its
// request counts: at 100 ms a request (exponential: M/M/c) and p99 ≤ 500 ms the busiest hour
// (5.6/s, 6.7/s with 20% headroom) needs 2 replicas, and an hourly schedule holds 1–2: 2 from
// 10:00 to 19:00 (from 4,000 an hour, 1.1/s, one replica's p99 is over 500 ms), 1 otherwise.
func TestServingRecommendationsR5(t *testing.T) {
	prices := NewTable(r5Offers(), nil)
	tr := ServingTraffic{Namespace: "predict", Requests: r5Requests(), ServiceTime: 100 * time.Millisecond, SLO: 500 * time.Millisecond}
	recs, err := ServingRecommendations(r5View(false), prices, []ServingTraffic{tr}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs {
		t.Logf("%-12s %10s  %s", r.Kind, r.MonthlySaving.Fixed(2), r.Action)
	}
	checkRecs(t, recs)
	want, _ := plan.Replicas(20000.0/3600*1.2, tr.ServiceTime, 0.99, tr.SLO)
	var size, sched *gpucost.Recommendation
	for i := range recs {
		switch recs[i].Kind {
		case gpucost.RecRightSize:
			size = &recs[i]
		case gpucost.RecAutoscale:
			sched = &recs[i]
		}
	}
	if size == nil || !strings.Contains(size.Action, "2 × g5.xlarge instead of 4") || want != 2 || size.MonthlySaving != usd("1440") {
		t.Errorf("right-size = %+v; want 2 machines instead of 4 (Erlang C %d), saving $1,440", size, want)
	}
	if sched == nil || !strings.Contains(sched.Action, "between 1 and 2") || sched.MonthlySaving != usd("1890") {
		t.Errorf("schedule = %+v; want between 1 and 2 machines, 231 machine-hours a week instead of 672: $1,890", sched)
	}
	if ev := strings.Join(size.Evidence, "\n"); !strings.Contains(ev, "busiest hour 20000 requests") {
		t.Errorf("evidence lacks the request counts:\n%s", ev)
	}
	// Batching at a slower model: 400 ms a request (exponential) needs all 4 machines at the
	// busiest hour; batches of up to 4 (360 ms + 40 ms a request, run times constant as the
	// profile measures them) need 2.
	tr.ServiceTime, tr.SLO = 400*time.Millisecond, 2*time.Second
	prof, err := plan.FittedProfile(360*time.Millisecond, 40*time.Millisecond, 8)
	if err != nil {
		t.Fatal(err)
	}
	tr.Profile = &prof
	recs, err = ServingRecommendations(r5View(false), prices, []ServingTraffic{tr}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	checkRecs(t, recs)
	found := false
	for _, r := range recs {
		t.Logf("%-12s %10s  %s", r.Kind, r.MonthlySaving.Fixed(2), r.Action)
		found = found || strings.HasPrefix(r.Action, "batch infer-a10g-01–04's requests (Triton max_batch_size 4") && strings.Contains(r.Action, "run 2 × g5.xlarge instead of 4") && r.MonthlySaving == usd("1440")
	}
	if !found {
		t.Errorf("no batching recommendation for 400 ms requests with a batch profile")
	}
	if _, err := ServingRecommendations(r5View(false), prices, []ServingTraffic{tr, tr}, Options{}); err == nil {
		t.Error("the same namespace twice: want an error")
	}
}

// TestServingScheduleShortPeriod: a period of 3 days holds the pool in 72 hours of the week;
// the schedule is priced on those hours only, not on the 96 hours nobody held it.
func TestServingScheduleShortPeriod(t *testing.T) {
	v := r5View(false)
	for i := range v.Resources {
		for d := 3; d < 7; d++ {
			v.Resources[i].Running[d] = [24]float64{}
		}
	}
	tr := ServingTraffic{Namespace: "predict", Requests: r5Requests(), ServiceTime: 100 * time.Millisecond, SLO: 500 * time.Millisecond}
	recs, err := ServingRecommendations(v, NewTable(r5Offers(), nil), []ServingTraffic{tr}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	// 3 days of 1 machine for 10 hours (a warm minimum), 2 for 9, 1 for the other 5: 33 a day,
	// 99 machine-hours against 288 held: 189/288 of $2,880.
	for _, r := range recs {
		if r.Kind == gpucost.RecAutoscale {
			if !strings.Contains(strings.Join(r.Evidence, "\n"), "99 machine-hours a week by the schedule against 288 held") || r.MonthlySaving != usd("1890") {
				t.Errorf("schedule over 3 days: %s, %v; want 99 machine-hours against 288 held, $1,890", r.MonthlySaving.Fixed(2), r.Evidence)
			}
			return
		}
	}
	t.Errorf("no schedule over 3 days: %+v", recs)
}
