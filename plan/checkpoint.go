package plan

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/gpucost/gpucost"
)

// The checkpoint planner follows J. T. Daly, "A higher order estimate of the optimum checkpoint
// interval for restart dumps", Future Generation Computer Systems 22(3):303–312, 2006
// (doi:10.1016/j.future.2004.11.016), with interruptions a Poisson process of mean time M
// between them (docs/architecture.md "Checkpoint interval"). Daly's complete cost function, the expected
// wall-clock time to finish T_s of failure-free work checkpointing every τ of compute, where each
// checkpoint takes δ and each restart R, and where interruptions may strike during any of them, is
//
//	T_w(τ) = M·e^{R/M}·(e^{(τ+δ)/M} − 1)·T_s/τ     (for τ ≪ T_s)
//
// The planner reports T_w/T_s − 1 as the expected overhead, for Young's first-order interval,
// Daly's higher-order interval and the exact minimum of T_w.

// CheckpointOptions describes a job that checkpoints and the interruptions it faces. Exactly one
// of MTBI and InterruptionsPerHour is set; the checkpoint time is CheckpointTime or, when that is
// zero, SizeBytes / BandwidthBytesPerSecond.
type CheckpointOptions struct {
	CheckpointTime time.Duration // δ: the time to write one checkpoint
	Restart        time.Duration // R: the time from an interruption to computing again
	MTBI           time.Duration // M: the mean time between interruptions
	// InterruptionsPerHour is the interruption rate λ of a Poisson process; M = 1 h / λ, so
	// "10%/h" is 0.1 and M = 10 h.
	InterruptionsPerHour float64
	// RateSource says where InterruptionsPerHour came from when it was not typed: a pool's
	// measured rate or its Spot Instance Advisor bucket (docs/architecture.md "Spot risk").
	RateSource string

	SizeBytes               float64 // checkpoint size; with the bandwidth, gives δ and the emergency write
	BandwidthBytesPerSecond float64 // write bandwidth to checkpoint storage

	// Notice is the warning before an interruption; when zero and Provider is set, the provider's
	// spot notice (SpotNotice) is used. With neither, no emergency checkpoint is assessed.
	Notice   time.Duration
	Provider string // "aws", "gcp" or "azure"

	// Work is the failure-free compute time of the job; when set, the result gives the expected
	// wall-clock time at each interval.
	Work time.Duration
}

// CheckpointResult is the checkpoint plan: the intervals, their expected overheads and whether an
// emergency checkpoint fits the notice window. Durations are seconds ("_s") in JSON.
type CheckpointResult struct {
	CheckpointTime       time.Duration `json:"-"`
	CheckpointTimeSource string        `json:"checkpoint_time_source"` // "given" or "size/bandwidth"
	Restart              time.Duration `json:"-"`
	MTBI                 time.Duration `json:"-"`
	Work                 time.Duration `json:"-"`
	RateSource           string        `json:"interruption_rate_source,omitempty"`

	Young   Interval `json:"young"`   // τ = √(2δM), Young 1974
	Daly    Interval `json:"daly"`    // Daly's higher-order estimate, the recommended interval
	Optimum Interval `json:"optimum"` // the exact minimum of Daly's T_w, for comparison

	Emergency *EmergencyCheckpoint `json:"emergency,omitempty"` // nil without a notice window
	Notes     []string             `json:"notes,omitempty"`     // warnings for people
}

// Interval is one checkpoint interval and what it costs under Daly's wall-time model.
type Interval struct {
	Every time.Duration `json:"-"` // compute time between the ends of two checkpoints (τ)
	// Overhead is T_w/T_s − 1: expected extra wall-clock time per unit of failure-free work.
	Overhead float64 `json:"overhead"`
	// WriteOverhead is δ/τ, the part of Overhead spent writing checkpoints when nothing fails;
	// the rest is lost work, restarts and interrupted checkpoints.
	WriteOverhead float64       `json:"write_overhead"`
	ExpectedWall  time.Duration `json:"-"` // Work × (1 + Overhead); zero without Work
}

// EmergencyCheckpoint says whether a checkpoint written when the interruption notice arrives
// completes before the instance is reclaimed.
type EmergencyCheckpoint struct {
	Provider    string        `json:"provider,omitempty"`
	Notice      time.Duration `json:"-"`
	Write       time.Duration `json:"-"`
	WriteSource string        `json:"write_source"` // "size/bandwidth" or "checkpoint time"
	Fits        bool          `json:"fits"`
	Slack       time.Duration `json:"-"` // Notice − Write; negative when it does not fit
	// MaxSizeBytes is the largest checkpoint the bandwidth writes within the notice; zero when
	// the bandwidth is unknown.
	MaxSizeBytes float64 `json:"max_size_bytes,omitempty"`
	// NeededBandwidth is the bandwidth in bytes/s that writes the checkpoint within the notice;
	// zero when the size is unknown.
	NeededBandwidth float64 `json:"needed_bandwidth_bytes_per_s,omitempty"`
}

// spotNotices are the interruption notices of docs/architecture.md "Spot notice": AWS 2 min (IMDSv2
// spot/instance-action), GCP 30 s (instance/preempted), Azure 30 s (Scheduled Events Preempt).
var spotNotices = map[string]time.Duration{
	"aws":   2 * time.Minute,
	"gcp":   30 * time.Second,
	"azure": 30 * time.Second,
}

// SpotNotice returns the warning a provider gives before it reclaims a spot instance.
func SpotNotice(provider string) (time.Duration, error) {
	n, ok := spotNotices[strings.ToLower(strings.TrimSpace(provider))]
	if !ok {
		return 0, gpucost.Errorf(gpucost.EInvalid, "spot notice: unknown provider %q; use aws, gcp or azure, or give the notice", provider)
	}
	return n, nil
}

// YoungInterval returns Young's first-order optimum checkpoint interval √(2δM) for checkpoint
// time delta and mean time between interruptions mtbi (docs/architecture.md "Checkpoint interval").
func YoungInterval(delta, mtbi time.Duration) time.Duration {
	return dur(youngSeconds(delta.Seconds(), mtbi.Seconds()))
}

// DalyInterval returns Daly's higher-order estimate of the optimum checkpoint interval,
// √(2δM)·[1 + ⅓√(δ/2M) + (δ/2M)/9] − δ for δ < 2M, else M (docs/architecture.md "Checkpoint interval";
// Daly 2006, which it reproduces: δ = 5 min, M = 24 h / 6 h / 15 min → 117 / 57 / 9.1 min).
func DalyInterval(delta, mtbi time.Duration) time.Duration {
	return dur(dalySeconds(delta.Seconds(), mtbi.Seconds()))
}

// OptimalInterval returns the interval that minimises Daly's wall-time model exactly: the root
// in (0, M) of e^{(τ+δ)/M}·(1 − τ/M) = 1, which Daly writes with the Lambert W function.
func OptimalInterval(delta, mtbi time.Duration) time.Duration {
	return dur(optimalSeconds(delta.Seconds(), mtbi.Seconds()))
}

// WallTimeRatio returns T_w/T_s = (M/τ)·e^{R/M}·(e^{(τ+δ)/M} − 1), Daly's expected wall-clock
// time per unit of failure-free work when checkpointing every interval. It is +Inf when the
// job would, in expectation, never finish.
func WallTimeRatio(interval, delta, restart, mtbi time.Duration) float64 {
	return wallRatio(interval.Seconds(), delta.Seconds(), restart.Seconds(), mtbi.Seconds())
}

func youngSeconds(d, m float64) float64 { return math.Sqrt(2 * d * m) }

func dalySeconds(d, m float64) float64 {
	if d >= 2*m {
		return m
	}
	xi := d / (2 * m)
	return math.Sqrt(2*d*m)*(1+math.Sqrt(xi)/3+xi/9) - d
}

// optimalSeconds solves h(x) = x + δ/M + ln(1 − x) = 0 for x = τ/M by bisection: h(0) = δ/M > 0,
// h falls monotonically to −∞ as x → 1, so the root is unique and 200 halvings pin it to the
// last bit.
func optimalSeconds(d, m float64) float64 {
	a := d / m
	lo, hi := 0.0, 1.0
	for range 200 {
		mid := (lo + hi) / 2
		if mid == lo || mid == hi {
			break
		}
		if mid+a+math.Log1p(-mid) > 0 {
			lo = mid
		} else {
			hi = mid
		}
	}
	return (lo + hi) / 2 * m
}

func wallRatio(tau, d, r, m float64) float64 {
	return m / tau * math.Exp(r/m) * math.Expm1((tau+d)/m)
}

// Checkpoint plans the checkpoint interval of a job that is interrupted every MTBI on average:
// Young's and Daly's intervals with their expected overhead against failure-free time, and
// whether an emergency checkpoint fits the notice window.
func Checkpoint(o CheckpointOptions) (CheckpointResult, error) {
	var r CheckpointResult
	if err := validateCheckpoint(o); err != nil {
		return r, err
	}
	delta, src, err := checkpointTime(o)
	if err != nil {
		return r, err
	}
	mtbi, err := meanTimeBetween(o)
	if err != nil {
		return r, err
	}
	r = CheckpointResult{CheckpointTime: delta, CheckpointTimeSource: src, Restart: o.Restart, MTBI: mtbi, Work: o.Work, RateSource: o.RateSource}
	if o.RateSource != "" {
		r.Notes = append(r.Notes, fmt.Sprintf("interruption rate %.3g%%/h (M = %v): %s", 100*o.InterruptionsPerHour, mtbi.Round(time.Second), o.RateSource))
	}
	d, m := delta.Seconds(), mtbi.Seconds()
	for _, iv := range []struct {
		dst *Interval
		tau float64
	}{{&r.Young, youngSeconds(d, m)}, {&r.Daly, dalySeconds(d, m)}, {&r.Optimum, optimalSeconds(d, m)}} {
		if *iv.dst, err = interval(iv.tau, d, o.Restart.Seconds(), m, o.Work); err != nil {
			return CheckpointResult{}, err
		}
	}
	if d >= 2*m {
		r.Notes = append(r.Notes, fmt.Sprintf("a checkpoint (%v) takes at least twice the mean time between interruptions (%v): Daly's interval falls back to M and most time is lost; a faster or smaller checkpoint, or steadier capacity, would help", delta, mtbi))
	}
	if o.Work > 0 && o.Work < r.Daly.Every {
		r.Notes = append(r.Notes, fmt.Sprintf("the job (%v) is shorter than one interval (%v): the model assumes many intervals, so the overhead is an upper estimate", o.Work, r.Daly.Every))
	}
	if r.Emergency, err = emergency(o, delta); err != nil {
		return CheckpointResult{}, err
	}
	if e := r.Emergency; e != nil && !e.Fits {
		r.Notes = append(r.Notes, emergencyAdvice(e, r.Daly.Every))
	}
	return r, nil
}

// maxDuration bounds every duration the planner returns: time.Duration holds about 292 years.
const maxDuration = float64(math.MaxInt64) / 1e9

func validateCheckpoint(o CheckpointOptions) error {
	switch {
	case o.CheckpointTime < 0:
		return gpucost.Errorf(gpucost.EInvalid, "checkpoint time %v is negative; give the time one checkpoint takes, such as 45s", o.CheckpointTime)
	case o.Restart < 0:
		return gpucost.Errorf(gpucost.EInvalid, "restart time %v is negative; give the time from an interruption to computing again, such as 5m", o.Restart)
	case o.Notice < 0:
		return gpucost.Errorf(gpucost.EInvalid, "notice %v is negative; give the warning before an interruption, such as 2m, or a provider", o.Notice)
	case o.Work < 0:
		return gpucost.Errorf(gpucost.EInvalid, "work %v is negative; give the job's failure-free compute time, or none", o.Work)
	case !(o.SizeBytes >= 0) || math.IsInf(o.SizeBytes, 0):
		return gpucost.Errorf(gpucost.EInvalid, "checkpoint size %v bytes is not a size; give a positive size such as 98GB", o.SizeBytes)
	case !(o.BandwidthBytesPerSecond >= 0) || math.IsInf(o.BandwidthBytesPerSecond, 0):
		return gpucost.Errorf(gpucost.EInvalid, "bandwidth %v bytes/s is not a bandwidth; give a positive bandwidth such as 1GB/s", o.BandwidthBytesPerSecond)
	}
	return nil
}

// checkpointTime returns δ: the given checkpoint time, else size over bandwidth.
func checkpointTime(o CheckpointOptions) (time.Duration, string, error) {
	if o.CheckpointTime > 0 {
		return o.CheckpointTime, "given", nil
	}
	if o.SizeBytes <= 0 || o.BandwidthBytesPerSecond <= 0 {
		return 0, "", gpucost.Errorf(gpucost.EInvalid, "no checkpoint time: give the time one checkpoint takes (--checkpoint-time 45s) or the checkpoint size and write bandwidth (--size 98GB --bandwidth 1GB/s)")
	}
	s := o.SizeBytes / o.BandwidthBytesPerSecond
	if s > maxDuration {
		return 0, "", gpucost.Errorf(gpucost.EInvalid, "a %g-byte checkpoint at %g bytes/s takes longer than 290 years; check the size and bandwidth units", o.SizeBytes, o.BandwidthBytesPerSecond)
	}
	if s < 1e-9 {
		s = 1e-9
	}
	return dur(s), "size/bandwidth", nil
}

// meanTimeBetween returns M from the MTBI or the interruption rate, exactly one of which is set.
func meanTimeBetween(o CheckpointOptions) (time.Duration, error) {
	rate := o.InterruptionsPerHour
	switch {
	case o.MTBI < 0:
		return 0, gpucost.Errorf(gpucost.EInvalid, "mean time between interruptions %v is negative; give one such as 6h", o.MTBI)
	case o.MTBI > 0 && rate != 0:
		return 0, gpucost.Errorf(gpucost.EInvalid, "both a mean time between interruptions (%v) and an interruption rate (%g/h) given; give one", o.MTBI, rate)
	case o.MTBI > 0:
		return o.MTBI, nil
	case rate == 0:
		return 0, gpucost.Errorf(gpucost.EInvalid, "no interruption figure: give the mean time between interruptions (--mtbi 6h) or the interruption rate (--interruption-rate 10%%/h)")
	case !(rate > 0) || math.IsInf(rate, 0):
		return 0, gpucost.Errorf(gpucost.EInvalid, "interruption rate %g/h is not a rate; give a positive rate such as 10%%/h", rate)
	}
	m := 3600 / rate
	if m > maxDuration {
		return 0, gpucost.Errorf(gpucost.EInvalid, "interruption rate %g/h means one interruption in more than 290 years; checkpointing is not needed, or check the units (10%%/h is 0.1)", rate)
	}
	return dur(m), nil
}

// interval evaluates Daly's wall-time model at τ = tau seconds.
func interval(tau, d, r, m float64, work time.Duration) (Interval, error) {
	ratio := wallRatio(tau, d, r, m)
	if math.IsInf(ratio, 0) || math.IsNaN(ratio) || ratio > 1e15 {
		return Interval{}, gpucost.Errorf(gpucost.EInvalid, "a %v checkpoint and %v restart against %v between interruptions: the job would, in expectation, never finish; shorten the checkpoint or restart, or use capacity that is interrupted less often", dur(d), dur(r), dur(m))
	}
	iv := Interval{Every: dur(tau), Overhead: ratio - 1, WriteOverhead: d / tau}
	if work > 0 {
		w := work.Seconds() * ratio
		if w > maxDuration {
			return Interval{}, gpucost.Errorf(gpucost.EInvalid, "%v of work would take more than 290 years under these interruptions; shorten the checkpoint or restart, or use capacity that is interrupted less often", work)
		}
		iv.ExpectedWall = dur(w)
	}
	return iv, nil
}

// emergency assesses a checkpoint written when the notice arrives; nil without a notice window.
func emergency(o CheckpointOptions, delta time.Duration) (*EmergencyCheckpoint, error) {
	notice := o.Notice
	if notice == 0 && o.Provider == "" {
		return nil, nil
	}
	if o.Provider != "" {
		n, err := SpotNotice(o.Provider)
		if err != nil {
			return nil, err
		}
		if notice == 0 {
			notice = n
		}
	}
	e := &EmergencyCheckpoint{Provider: strings.ToLower(strings.TrimSpace(o.Provider)), Notice: notice, Write: delta, WriteSource: "checkpoint time"}
	if o.SizeBytes > 0 && o.BandwidthBytesPerSecond > 0 {
		e.Write, e.WriteSource = dur(o.SizeBytes/o.BandwidthBytesPerSecond), "size/bandwidth"
	}
	e.Fits = e.Write <= notice
	e.Slack = notice - e.Write
	if o.BandwidthBytesPerSecond > 0 {
		e.MaxSizeBytes = o.BandwidthBytesPerSecond * notice.Seconds()
	}
	if o.SizeBytes > 0 {
		e.NeededBandwidth = o.SizeBytes / notice.Seconds()
	}
	return e, nil
}

// emergencyAdvice says what to do when the emergency checkpoint does not fit.
func emergencyAdvice(e *EmergencyCheckpoint, every time.Duration) string {
	s := fmt.Sprintf("An emergency checkpoint takes %v but the notice is %v: it will not finish", e.Write.Round(time.Second), e.Notice)
	if e.NeededBandwidth > 0 {
		s += fmt.Sprintf("; it needs %.2f GB/s", e.NeededBandwidth/1e9)
	}
	if e.MaxSizeBytes > 0 {
		s += fmt.Sprintf(" or a checkpoint of at most %.1f GB", e.MaxSizeBytes/1e9)
	}
	return s + fmt.Sprintf("; otherwise rely on periodic checkpoints and expect to lose up to %v of work per interruption.", every.Round(time.Second))
}

// dur converts seconds to a Duration, rounded to the nanosecond.
func dur(s float64) time.Duration { return time.Duration(math.Round(s * 1e9)) }

// MarshalJSON writes the result with its durations in seconds.
func (r CheckpointResult) MarshalJSON() ([]byte, error) {
	type plain CheckpointResult
	return json.Marshal(struct {
		CheckpointS float64 `json:"checkpoint_time_s"`
		RestartS    float64 `json:"restart_s"`
		MTBIS       float64 `json:"mtbi_s"`
		WorkS       float64 `json:"work_s,omitempty"`
		plain
	}{r.CheckpointTime.Seconds(), r.Restart.Seconds(), r.MTBI.Seconds(), r.Work.Seconds(), plain(r)})
}

// MarshalJSON writes the interval with its durations in seconds.
func (iv Interval) MarshalJSON() ([]byte, error) {
	type plain Interval
	return json.Marshal(struct {
		EveryS        float64 `json:"every_s"`
		ExpectedWallS float64 `json:"expected_wall_s,omitempty"`
		plain
	}{iv.Every.Seconds(), iv.ExpectedWall.Seconds(), plain(iv)})
}

// MarshalJSON writes the assessment with its durations in seconds.
func (e EmergencyCheckpoint) MarshalJSON() ([]byte, error) {
	type plain EmergencyCheckpoint
	return json.Marshal(struct {
		NoticeS float64 `json:"notice_s"`
		WriteS  float64 `json:"write_s"`
		SlackS  float64 `json:"slack_s"`
		plain
	}{e.Notice.Seconds(), e.Write.Seconds(), e.Slack.Seconds(), plain(e)})
}
