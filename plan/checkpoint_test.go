package plan

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
)

// TestCheckpointDalyPaper reproduces Daly 2006, Figs. 3–5: δ = 5 min, R = 10 min and
// M = 24 h / 6 h / 15 min give τ_opt = 117 / 57 / 9.1 min (docs/architecture.md "Checkpoint interval").
func TestCheckpointDalyPaper(t *testing.T) {
	for _, c := range []struct {
		mtbi      time.Duration
		want, tol float64 // minutes, to the paper's printed precision
		young     float64 // √(2δM) in minutes
	}{
		{24 * time.Hour, 117, 0.5, 120},
		{6 * time.Hour, 57, 0.5, 60},
		{15 * time.Minute, 9.1, 0.05, math.Sqrt(150)},
	} {
		delta := 5 * time.Minute
		if got := DalyInterval(delta, c.mtbi).Minutes(); math.Abs(got-c.want) > c.tol {
			t.Errorf("DalyInterval(δ=%v, M=%v) = %.3f min, want %v", delta, c.mtbi, got, c.want)
		}
		if got := YoungInterval(delta, c.mtbi).Minutes(); math.Abs(got-c.young) > 1e-6 {
			t.Errorf("YoungInterval(δ=%v, M=%v) = %.6f min, want %.6f", delta, c.mtbi, got, c.young)
		}
		// Daly's estimate is close to the exact minimum of his model.
		if got := OptimalInterval(delta, c.mtbi).Minutes(); math.Abs(got-c.want) > 2*c.tol {
			t.Errorf("OptimalInterval(δ=%v, M=%v) = %.3f min, want ≈ %v", delta, c.mtbi, got, c.want)
		}
		r, err := Checkpoint(CheckpointOptions{CheckpointTime: delta, Restart: 10 * time.Minute, MTBI: c.mtbi})
		if err != nil {
			t.Fatalf("Checkpoint(δ=%v, M=%v): %v", delta, c.mtbi, err)
		}
		if got := r.Daly.Every.Minutes(); math.Abs(got-c.want) > c.tol {
			t.Errorf("Checkpoint(δ=%v, M=%v).Daly.Every = %.3f min, want %v", delta, c.mtbi, got, c.want)
		}
		if r.Optimum.Overhead > r.Daly.Overhead+1e-12 || r.Optimum.Overhead > r.Young.Overhead+1e-12 {
			t.Errorf("Checkpoint(δ=%v, M=%v): optimum overhead %v above Daly %v or Young %v", delta, c.mtbi, r.Optimum.Overhead, r.Daly.Overhead, r.Young.Overhead)
		}
	}
}

// TestWallTimeRatio checks Daly's wall-time model against values worked by hand.
func TestWallTimeRatio(t *testing.T) {
	for _, c := range []struct {
		name         string
		tau, d, r, m time.Duration
		want         float64
	}{
		// M/τ·e^{R/M}·(e^{(τ+δ)/M} − 1) with τ = 55, δ = 5, R = 0, M = 360 min: 360/55·(e^{1/6} − 1).
		{"no restart", 55 * time.Minute, 5 * time.Minute, 0, 6 * time.Hour, 360.0 / 55 * math.Expm1(60.0/360)},
		{"restart", 55 * time.Minute, 5 * time.Minute, 10 * time.Minute, 6 * time.Hour, 360.0 / 55 * math.Exp(10.0/360) * math.Expm1(60.0/360)},
		// Rare interruptions: the ratio tends to (τ+δ)/τ, the failure-free write cost.
		{"rare", time.Hour, time.Minute, time.Minute, 1e6 * time.Hour, 61.0 / 60},
	} {
		got := WallTimeRatio(c.tau, c.d, c.r, c.m)
		if math.Abs(got-c.want) > 1e-6*c.want {
			t.Errorf("%s: WallTimeRatio(τ=%v, δ=%v, R=%v, M=%v) = %v, want %v", c.name, c.tau, c.d, c.r, c.m, got, c.want)
		}
	}
}

// TestCheckpointOptimumMinimises checks, on random inputs, that OptimalInterval is the minimum
// of Daly's model, that Daly's estimate is within a few percent of its overhead, and that no
// result holds NaN, infinities or negative figures.
func TestCheckpointOptimumMinimises(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 2))
	for range 2000 {
		d := time.Duration(math.Exp(rng.Float64()*12)) * time.Second // 1 s .. 45 h
		m := time.Duration(math.Exp(rng.Float64()*14)) * time.Second // 1 s .. 14 d
		rs := time.Duration(rng.Float64()*float64(m)) / 2            // up to M/2
		o := CheckpointOptions{CheckpointTime: d, Restart: rs, MTBI: m, Work: 100 * time.Hour}
		r, err := Checkpoint(o)
		if err != nil {
			if gpucost.ErrorCode(err) != gpucost.EInvalid {
				t.Fatalf("Checkpoint(%+v): %v", o, err)
			}
			continue
		}
		opt := r.Optimum
		for _, f := range []float64{0.9, 0.99, 1.01, 1.1} {
			tau := time.Duration(float64(opt.Every) * f)
			if w := WallTimeRatio(tau, d, rs, m) - 1; w < opt.Overhead*(1-1e-9) {
				t.Fatalf("Checkpoint(δ=%v, M=%v): overhead at τ=%v is %v, below the optimum's %v at %v", d, m, tau, w, opt.Overhead, opt.Every)
			}
		}
		if d < 2*m && r.Daly.Overhead > opt.Overhead*1.05+1e-12 {
			t.Errorf("Checkpoint(δ=%v, M=%v): Daly overhead %v more than 5%% above the optimum's %v", d, m, r.Daly.Overhead, opt.Overhead)
		}
		for _, iv := range []Interval{r.Young, r.Daly, r.Optimum} {
			if !(iv.Overhead >= 0) || !(iv.WriteOverhead > 0) || iv.Every <= 0 || iv.ExpectedWall < o.Work {
				t.Fatalf("Checkpoint(δ=%v, R=%v, M=%v) gave interval %+v", d, rs, m, iv)
			}
		}
		if _, err := json.Marshal(r); err != nil {
			t.Fatalf("json.Marshal(Checkpoint(δ=%v, M=%v)): %v", d, m, err)
		}
	}
}

// TestCheckpointIssueExample runs the issue's example, `--checkpoint-time 45s --restart 5m
// --mtbi 6h --size 98GB --bandwidth 1GB/s --notice 2m`, and the rate and size forms.
func TestCheckpointIssueExample(t *testing.T) {
	r, err := Checkpoint(CheckpointOptions{CheckpointTime: 45 * time.Second, Restart: 5 * time.Minute, MTBI: 6 * time.Hour,
		SizeBytes: 98e9, BandwidthBytesPerSecond: 1e9, Notice: 2 * time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	// Young: √(2·45·21600) s = 1394.3 s.
	if got := r.Young.Every.Seconds(); math.Abs(got-math.Sqrt(2*45*21600)) > 1e-6 {
		t.Errorf("Young.Every = %v s, want %v", got, math.Sqrt(2*45*21600))
	}
	e := r.Emergency
	if e == nil || !e.Fits || e.Write != 98*time.Second || e.Slack != 22*time.Second || e.WriteSource != "size/bandwidth" {
		t.Errorf("Emergency = %+v, want a 98 s write fitting a 2 min notice with 22 s to spare", e)
	}
	if e != nil && (e.MaxSizeBytes != 120e9 || math.Abs(e.NeededBandwidth-98e9/120) > 1e-3) {
		t.Errorf("Emergency max size %v, needed bandwidth %v; want 120e9 and %v", e.MaxSizeBytes, e.NeededBandwidth, 98e9/120)
	}

	// 10%/h is M = 10 h; δ from 98 GB at 1 GB/s; GCP's 30 s notice is too short for 98 s.
	r, err = Checkpoint(CheckpointOptions{Restart: 5 * time.Minute, InterruptionsPerHour: 0.1,
		SizeBytes: 98e9, BandwidthBytesPerSecond: 1e9, Provider: "GCP"})
	if err != nil {
		t.Fatal(err)
	}
	if r.MTBI != 10*time.Hour || r.CheckpointTime != 98*time.Second || r.CheckpointTimeSource != "size/bandwidth" {
		t.Errorf("MTBI %v, δ %v (%s); want 10h and 1m38s from size/bandwidth", r.MTBI, r.CheckpointTime, r.CheckpointTimeSource)
	}
	if e := r.Emergency; e == nil || e.Fits || e.Notice != 30*time.Second || e.Provider != "gcp" || len(r.Notes) == 0 {
		t.Errorf("Emergency = %+v, notes %q; want GCP's 30 s notice, not fitting, with advice", e, r.Notes)
	}
}

// TestCheckpointNotices checks the spot notices of docs/architecture.md.
func TestCheckpointNotices(t *testing.T) {
	for p, want := range map[string]time.Duration{"aws": 2 * time.Minute, "gcp": 30 * time.Second, "Azure": 30 * time.Second} {
		if got, err := SpotNotice(p); err != nil || got != want {
			t.Errorf("SpotNotice(%q) = %v, %v; want %v", p, got, err, want)
		}
	}
	// Without a notice and a provider there is nothing to assess.
	r, err := Checkpoint(CheckpointOptions{CheckpointTime: time.Minute, MTBI: time.Hour})
	if err != nil || r.Emergency != nil {
		t.Errorf("Checkpoint without notice: emergency %+v, err %v; want none", r.Emergency, err)
	}
}

// TestCheckpointJSON checks that durations come out in seconds.
func TestCheckpointJSON(t *testing.T) {
	r, err := Checkpoint(CheckpointOptions{CheckpointTime: 5 * time.Minute, Restart: 10 * time.Minute, MTBI: 6 * time.Hour, Provider: "aws", Work: 500 * time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		CheckpointS float64 `json:"checkpoint_time_s"`
		MTBIS       float64 `json:"mtbi_s"`
		Daly        struct {
			EveryS   float64 `json:"every_s"`
			WallS    float64 `json:"expected_wall_s"`
			Overhead float64 `json:"overhead"`
		} `json:"daly"`
		Emergency struct {
			NoticeS float64 `json:"notice_s"`
			Fits    bool    `json:"fits"`
		} `json:"emergency"`
	}
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	if got.CheckpointS != 300 || got.MTBIS != 21600 || math.Abs(got.Daly.EveryS/60-57) > 0.5 ||
		got.Daly.Overhead <= 0 || got.Daly.WallS <= 500*3600 || got.Emergency.NoticeS != 120 || got.Emergency.Fits {
		t.Errorf("json %s", b)
	}
}

// TestCheckpointErrors checks that impossible requests say what would work.
func TestCheckpointErrors(t *testing.T) {
	for _, c := range []struct {
		name string
		o    CheckpointOptions
		want string
	}{
		{"no checkpoint time", CheckpointOptions{MTBI: time.Hour}, "--checkpoint-time"},
		{"size without bandwidth", CheckpointOptions{SizeBytes: 1e9, MTBI: time.Hour}, "--bandwidth"},
		{"no interruption figure", CheckpointOptions{CheckpointTime: time.Minute}, "--mtbi"},
		{"both figures", CheckpointOptions{CheckpointTime: time.Minute, MTBI: time.Hour, InterruptionsPerHour: 0.1}, "give one"},
		{"negative rate", CheckpointOptions{CheckpointTime: time.Minute, InterruptionsPerHour: -1}, "positive rate"},
		{"NaN rate", CheckpointOptions{CheckpointTime: time.Minute, InterruptionsPerHour: math.NaN()}, "positive rate"},
		{"tiny rate", CheckpointOptions{CheckpointTime: time.Minute, InterruptionsPerHour: 1e-12}, "290 years"},
		{"negative restart", CheckpointOptions{CheckpointTime: time.Minute, MTBI: time.Hour, Restart: -time.Second}, "restart"},
		{"NaN size", CheckpointOptions{SizeBytes: math.NaN(), BandwidthBytesPerSecond: 1, MTBI: time.Hour}, "98GB"},
		{"unknown provider", CheckpointOptions{CheckpointTime: time.Minute, MTBI: time.Hour, Provider: "oracle"}, "aws, gcp or azure"},
		{"never finishes", CheckpointOptions{CheckpointTime: 10 * time.Hour, Restart: time.Hour, MTBI: time.Second}, "never finish"},
		{"work too long", CheckpointOptions{CheckpointTime: 20 * time.Minute, MTBI: 2 * time.Minute, Work: 1000 * time.Hour}, "290 years"},
	} {
		_, err := Checkpoint(c.o)
		if err == nil || gpucost.ErrorCode(err) != gpucost.EInvalid || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: Checkpoint(%+v) = %v; want an invalid-input error mentioning %q", c.name, c.o, err, c.want)
		}
	}
}

// TestCheckpointSlowCheckpoint checks the δ ≥ 2M branch: Daly's interval is M, with a note.
func TestCheckpointSlowCheckpoint(t *testing.T) {
	r, err := Checkpoint(CheckpointOptions{CheckpointTime: 30 * time.Minute, MTBI: 10 * time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	if r.Daly.Every != 10*time.Minute || len(r.Notes) == 0 {
		t.Errorf("Daly.Every = %v, notes %q; want M = 10m with a note", r.Daly.Every, r.Notes)
	}
}

func BenchmarkCheckpoint(b *testing.B) {
	o := CheckpointOptions{CheckpointTime: 45 * time.Second, Restart: 5 * time.Minute, MTBI: 6 * time.Hour,
		SizeBytes: 98e9, BandwidthBytesPerSecond: 1e9, Provider: "aws", Work: 48 * time.Hour}
	for b.Loop() {
		if _, err := Checkpoint(o); err != nil {
			b.Fatal(err)
		}
	}
}
