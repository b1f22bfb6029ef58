package plan

import (
	"math"
	"slices"

	"github.com/gpucost/gpucost"
)

// HoursPerMonth is the month the commitment planner counts in unless told otherwise: 720 hours,
// the month of reference case R2 (docs/architecture.md, reserved-instance ROI).
const HoursPerMonth = 720

// Term is the length of a commitment: a reserved instance, savings plan or committed-use discount.
type Term string

// The terms providers sell.
const (
	Term1Year Term = "1y"
	Term3Year Term = "3y"
)

// months returns the term in months, or an error naming the terms that exist.
func (t Term) months() (int, error) {
	switch t {
	case Term1Year, "":
		return 12, nil
	case Term3Year:
		return 36, nil
	}
	return 0, gpucost.Errorf(gpucost.EInvalid, "term %q is not a commitment term: use 1y or 3y", string(t))
}

// Payment is how a commitment is paid: all upfront, part upfront and the rest monthly, or monthly.
type Payment string

// The payment options providers sell. Partial upfront pays half the term's cost at purchase, as
// AWS partial-upfront reserved instances roughly do.
const (
	PayAllUpfront     Payment = "all"
	PayPartialUpfront Payment = "partial"
	PayNoUpfront      Payment = "none"
)

// upfrontShare returns the share of the term's cost paid at purchase.
func (p Payment) upfrontShare() (num, den int64, err error) {
	switch p {
	case PayAllUpfront:
		return 1, 1, nil
	case PayPartialUpfront:
		return 1, 2, nil
	case PayNoUpfront, "":
		return 0, 1, nil
	}
	return 0, 1, gpucost.Errorf(gpucost.EInvalid, "payment %q is not a payment option: use all, partial or none", string(p))
}

// CommitInput asks for the hindsight-optimal commitment over a history of hourly usage.
//
// Usage is a measurement, not money: each element is one hour's on-demand-equivalent usage in
// units the caller chooses (GPUs, instances, or on-demand dollars with OnDemand = $1). The
// quantile, utilisation and coverage are statistics of that measurement; money enters once, as
// the exact OnDemand price per unit-hour, so every amount in the result is exact gpucost.Money.
type CommitInput struct {
	Usage         []float64       `json:"-"`                         // on-demand-equivalent units used in each hour, ≥ 0
	OnDemand      gpucost.PerHour `json:"on_demand"`                 // on-demand price of one unit for one hour
	Discount      float64         `json:"discount"`                  // fraction off on-demand, 0 < d < 1
	Term          Term            `json:"term"`                      // 1y (default) or 3y
	Payment       Payment         `json:"payment"`                   // all, partial or none (default)
	Step          float64         `json:"step,omitempty"`            // commitments come in multiples of Step units (1 for instances); 0 for any level
	HoursPerMonth int             `json:"hours_per_month,omitempty"` // 0 for 720
}

// CommitResult is the hindsight-optimal commitment and what it would have saved over the usage.
type CommitResult struct {
	Hours              int             `json:"hours"`                    // hours of usage considered
	Discount           float64         `json:"discount"`                 // fraction off on-demand
	Term               Term            `json:"term"`                     // commitment term
	Payment            Payment         `json:"payment"`                  // payment option
	Commitment         float64         `json:"commitment_units"`         // units committed per hour: the d-quantile of usage
	CommitmentOnDemand gpucost.PerHour `json:"commitment_on_demand"`     // on-demand value of the commitment per hour
	CommitmentCost     gpucost.PerHour `json:"commitment_cost"`          // what the commitment costs per hour
	Utilisation        float64         `json:"utilisation"`              // share of committed unit-hours used
	Coverage           float64         `json:"coverage"`                 // share of usage the commitment covers
	OnDemandCost       gpucost.Money   `json:"on_demand_cost"`           // all usage on-demand
	PlanCost           gpucost.Money   `json:"plan_cost"`                // commitment plus on-demand above it
	Saving             gpucost.Money   `json:"saving"`                   // OnDemandCost − PlanCost, never negative
	SavingPercent      float64         `json:"saving_pct"`               // Saving as a percentage of OnDemandCost
	MonthlySaving      gpucost.Money   `json:"monthly_saving"`           // Saving per month of HoursPerMonth hours
	Upfront            gpucost.Money   `json:"upfront"`                  // paid at purchase
	MonthlyFee         gpucost.Money   `json:"monthly_fee"`              // paid each month of the term
	TermCost           gpucost.Money   `json:"term_cost"`                // Upfront + MonthlyFee × term months
	BreakEvenMonth     int             `json:"break_even_month"`         // first month whose cumulative saving covers what was paid; 0 with nothing upfront
	HoursPerMonth      int             `json:"hours_per_month"`          // month length used
	TermMonths         int             `json:"term_months"`              // term length in months
	Note               string          `json:"note,omitempty"`           // why nothing is committed, when so
	OnDemandPrice      gpucost.PerHour `json:"on_demand_price_per_unit"` // the input price, for the table
}

// Commit returns the hindsight-optimal hourly commitment for in.Usage and what it saves.
//
// docs/architecture.md "Commitments": with hourly usage u_t and discount d, paying (1−d) per committed
// unit-hour and full price above it costs C(c) = (1−d)·c·T + Σ max(u_t − c, 0). Its slope in c is
// (1−d)·T − #{t : u_t > c}, negative while more than a fraction 1−d of hours exceed c and positive
// after, so C is minimised at the d-quantile of u_t: the k-th smallest hour with k = ⌈d·T⌉.
func Commit(in CommitInput) (CommitResult, error) {
	if err := checkUsage(in.Usage, in.Discount, in.OnDemand, in.Step); err != nil {
		return CommitResult{}, err
	}
	months, err := in.Term.months()
	if err != nil {
		return CommitResult{}, err
	}
	num, den, err := in.Payment.upfrontShare()
	if err != nil {
		return CommitResult{}, err
	}
	hpm := in.HoursPerMonth
	if hpm == 0 {
		hpm = HoursPerMonth
	}
	if hpm < 0 || hpm > 744 {
		return CommitResult{}, gpucost.Errorf(gpucost.EInvalid, "%d hours per month is not a month: use 720 or 730", hpm)
	}
	c := OptimalCommitment(in.Usage, in.Discount, in.Step)
	r := CommitResult{
		Hours: len(in.Usage), Discount: in.Discount, Term: orTerm(in.Term), Payment: orPayment(in.Payment),
		HoursPerMonth: hpm, TermMonths: months, OnDemandPrice: in.OnDemand,
	}
	s := score(in.Usage, c, in.Discount, in.OnDemand)
	if s.saving.Nanos <= 0 && c > 0 {
		// Only rounding can leave the optimum without a saving; committing nothing is then as good.
		c, s = 0, score(in.Usage, 0, in.Discount, in.OnDemand)
	}
	if c == 0 {
		r.Note = "usage falls to zero in more than a fraction 1−d of hours: no commitment pays for itself"
	}
	r.Commitment = c
	r.CommitmentOnDemand = in.OnDemand.MulFloat(c)
	r.CommitmentCost = in.OnDemand.MulFloat(c * (1 - in.Discount))
	r.OnDemandCost, r.PlanCost, r.Saving = s.onDemand, s.plan, s.saving
	r.SavingPercent = percent(s.saving, s.onDemand)
	r.MonthlySaving = s.saving.MulFloat(float64(hpm) / float64(len(in.Usage)))
	if c > 0 {
		r.Utilisation = s.covered / (c * float64(len(in.Usage)))
		r.Coverage = s.covered / s.used
	}
	monthCost := times(r.CommitmentCost, int64(hpm))
	termCost := times(monthCost, int64(months))
	r.Upfront = times(termCost, num).DivInt(den)
	r.MonthlyFee = termCost.Sub(r.Upfront).DivInt(int64(months))
	r.TermCost = r.Upfront.Add(times(r.MonthlyFee, int64(months)))
	coveredMonth := in.OnDemand.MulFloat(s.covered / float64(len(in.Usage)) * float64(hpm))
	r.BreakEvenMonth = breakEven(r.Upfront, coveredMonth.Sub(r.MonthlyFee), months)
	return r, nil
}

// breakEven returns the first month m with m × net ≥ upfront, where net is what each month
// saves after its fee; 0 when nothing is paid upfront. It never exceeds the term: an optimal
// commitment saves over the usage, so it pays back within the term if usage repeats.
func breakEven(upfront, net gpucost.Money, months int) int {
	if upfront.Nanos <= 0 {
		return 0
	}
	if net.Nanos <= 0 {
		return months
	}
	m := (upfront.Nanos + net.Nanos - 1) / net.Nanos
	return int(min(m, int64(months)))
}

// OptimalCommitment returns the commitment level, in usage units per hour, that minimises the
// cost of usage under discount d: the d-quantile of usage, the ⌈d·T⌉-th smallest hour (docs/architecture.md
// "Commitments"; see Commit). With step > 0 the level is a multiple of step: the cost is convex
// and piecewise linear, so the best multiple is one of the two around the quantile. It expects
// valid input (non-empty usage, 0 < d < 1); Commit checks it.
func OptimalCommitment(usage []float64, d, step float64) float64 {
	if len(usage) == 0 {
		return 0
	}
	sorted := slices.Clone(usage)
	slices.Sort(sorted)
	k := int(math.Ceil(d * float64(len(sorted))))
	if k < 1 {
		return 0
	}
	q := sorted[k-1]
	if step <= 0 {
		return q
	}
	lo := math.Floor(q/step) * step
	hi := lo + step
	if cost(sorted, hi, d) < cost(sorted, lo, d) {
		return hi
	}
	return lo
}

// cost returns C(c) of Commit's doc in unit-hours.
func cost(usage []float64, c, d float64) float64 {
	total := (1 - d) * c * float64(len(usage))
	for _, u := range usage {
		total += max(u-c, 0)
	}
	return total
}

// scored is what a commitment level does to a stretch of usage.
type scored struct {
	used, covered          float64 // unit-hours used, and those the commitment covers
	onDemand, plan, saving gpucost.Money
}

// score prices commitment c against usage: on-demand for everything, or c at the discount plus
// on-demand above it. Unit-hours are measurements summed as floats; money is priced once.
func score(usage []float64, c, d float64, price gpucost.PerHour) scored {
	var s scored
	above := 0.0
	for _, u := range usage {
		s.used += u
		s.covered += min(u, c)
		above += max(u-c, 0)
	}
	s.onDemand = price.MulFloat(s.used)
	s.plan = price.MulFloat((1-d)*c*float64(len(usage)) + above)
	s.saving = s.onDemand.Sub(s.plan)
	return s
}

// checkUsage returns an error saying what would work for usage, discount, price and step that no
// commitment can be planned from.
func checkUsage(usage []float64, d float64, price gpucost.PerHour, step float64) error {
	if len(usage) == 0 {
		return gpucost.Errorf(gpucost.EInvalid, "usage is empty: give at least one hour of on-demand-equivalent usage")
	}
	if !(d > 0 && d < 1) {
		return gpucost.Errorf(gpucost.EInvalid, "discount %v is not a fraction between 0 and 1: give the share off on-demand, such as 0.4 for 40%%", d)
	}
	if price.Nanos <= 0 {
		return gpucost.Errorf(gpucost.EInvalid, "on-demand price %s is not positive: give the hourly price of one unit of usage", price.Decimal())
	}
	if math.IsNaN(step) || math.IsInf(step, 0) || step < 0 {
		return gpucost.Errorf(gpucost.EInvalid, "commitment step %v is not a size: use 0 for any level or 1 for whole instances", step)
	}
	for i, u := range usage {
		if math.IsNaN(u) || math.IsInf(u, 0) || u < 0 {
			return gpucost.Errorf(gpucost.EInvalid, "usage hour %d is %v: usage must be a finite number ≥ 0", i+1, u)
		}
	}
	return nil
}

// times returns m × n exactly.
func times(m gpucost.Money, n int64) gpucost.Money {
	return gpucost.Money{Nanos: m.Nanos * n, Currency: m.Currency}
}

// percent returns part as a percentage of whole, 0 when whole is zero.
func percent(part, whole gpucost.Money) float64 {
	if whole.Nanos == 0 {
		return 0
	}
	return 100 * float64(part.Nanos) / float64(whole.Nanos)
}

func orTerm(t Term) Term {
	if t == "" {
		return Term1Year
	}
	return t
}

func orPayment(p Payment) Payment {
	if p == "" {
		return PayNoUpfront
	}
	return p
}

// BacktestInput asks how well buying on a trailing window does on the hours that follow.
type BacktestInput struct {
	Usage    []float64       `json:"-"`              // hourly on-demand-equivalent usage, oldest first
	OnDemand gpucost.PerHour `json:"on_demand"`      // on-demand price of one unit for one hour
	Discount float64         `json:"discount"`       // fraction off on-demand, 0 < d < 1
	Step     float64         `json:"step,omitempty"` // commitment granularity in units; 0 for any level
	Lookback int             `json:"lookback_hours"` // hours the purchase is chosen from
	Period   int             `json:"period_hours"`   // hours each purchase is scored on before the next
	Rule     BuyRule         `json:"rule,omitempty"` // how the purchase is chosen from the lookback; "" for RuleTrailing
}

// BacktestWindow is one purchase: chosen from the Lookback hours before Start, scored on the
// Period hours from Start against the commitment that hindsight would have chosen for them.
type BacktestWindow struct {
	Start         int           `json:"start_hour"`       // index of the first scored hour
	Commitment    float64       `json:"commitment_units"` // bought from the lookback
	Optimal       float64       `json:"optimal_units"`    // the scored period's own d-quantile
	Saving        gpucost.Money `json:"saving"`           // what the purchase saved; negative when it cost more than on-demand
	OptimalSaving gpucost.Money `json:"optimal_saving"`   // what the hindsight optimum saved
	Captured      float64       `json:"captured"`         // Saving / OptimalSaving
	Utilisation   float64       `json:"utilisation"`      // share of the purchase used
}

// BacktestResult sums the windows: Captured is the share of the hindsight-optimal saving that
// buying on the trailing window achieved over all scored hours.
type BacktestResult struct {
	Windows       []BacktestWindow `json:"windows"`
	ScoredHours   int              `json:"scored_hours"`
	OnDemandCost  gpucost.Money    `json:"on_demand_cost"` // scored hours all on-demand
	Saving        gpucost.Money    `json:"saving"`
	OptimalSaving gpucost.Money    `json:"optimal_saving"`
	Captured      float64          `json:"captured"`       // Saving / OptimalSaving over all windows
	WorstCaptured float64          `json:"worst_captured"` // lowest window's Captured
}

// Backtest buys from each trailing Lookback window by in.Rule (by default its d-quantile) and
// scores the purchase on the following Period hours, rolling forward by Period, against each
// period's hindsight optimum (Commit).
func Backtest(in BacktestInput) (BacktestResult, error) {
	if err := checkUsage(in.Usage, in.Discount, in.OnDemand, in.Step); err != nil {
		return BacktestResult{}, err
	}
	if in.Lookback < 1 || in.Period < 1 {
		return BacktestResult{}, gpucost.Errorf(gpucost.EInvalid,
			"lookback %d h and period %d h must both be at least 1 hour, such as 672 and 168", in.Lookback, in.Period)
	}
	if _, err := in.Rule.buy(in.Usage[:1], in.Discount, in.Step, 1); err != nil {
		return BacktestResult{}, err
	}
	if need := in.Lookback + in.Period; len(in.Usage) < need {
		return BacktestResult{}, gpucost.Errorf(gpucost.EInvalid,
			"%d hours of usage cannot back-test a %d h lookback and %d h period: give at least %d hours or shorten them",
			len(in.Usage), in.Lookback, in.Period, need)
	}
	zero := gpucost.Money{Currency: in.OnDemand.Currency}
	res := BacktestResult{OnDemandCost: zero, Saving: zero, OptimalSaving: zero, WorstCaptured: 1}
	for start := in.Lookback; start+in.Period <= len(in.Usage); start += in.Period {
		w := backtestWindow(in, start)
		res.Windows = append(res.Windows, w)
		res.ScoredHours += in.Period
		res.OnDemandCost = res.OnDemandCost.Add(score(in.Usage[start:start+in.Period], 0, in.Discount, in.OnDemand).onDemand)
		res.Saving = res.Saving.Add(w.Saving)
		res.OptimalSaving = res.OptimalSaving.Add(w.OptimalSaving)
		res.WorstCaptured = min(res.WorstCaptured, w.Captured)
	}
	res.Captured = captured(res.Saving, res.OptimalSaving)
	return res, nil
}

// backtestWindow buys on the lookback before start and scores the period from start.
func backtestWindow(in BacktestInput, start int) BacktestWindow {
	past := in.Usage[start-in.Lookback : start]
	next := in.Usage[start : start+in.Period]
	w := BacktestWindow{Start: start}
	w.Commitment, _ = in.Rule.buy(past, in.Discount, in.Step, in.Period) // Backtest checked the rule
	w.Optimal = OptimalCommitment(next, in.Discount, in.Step)
	bought := score(next, w.Commitment, in.Discount, in.OnDemand)
	best := score(next, w.Optimal, in.Discount, in.OnDemand)
	w.Saving, w.OptimalSaving = bought.saving, best.saving
	if best.saving.Nanos < 0 { // rounding only: the optimum is never worse than committing nothing
		w.OptimalSaving = gpucost.Money{Currency: in.OnDemand.Currency}
	}
	w.Captured = captured(w.Saving, w.OptimalSaving)
	if w.Commitment > 0 {
		w.Utilisation = bought.covered / (w.Commitment * float64(len(next)))
	}
	return w
}

// captured returns got / best, 1 when there was nothing to capture and nothing was lost.
func captured(got, best gpucost.Money) float64 {
	if best.Nanos <= 0 {
		if got.Nanos >= 0 {
			return 1
		}
		return 0
	}
	return float64(got.Nanos) / float64(best.Nanos)
}

// ROIInput prices a fleet on-demand and on reserved terms (`gpucost plan commit roi`).
type ROIInput struct {
	OnDemand      gpucost.PerHour `json:"on_demand"`             // per instance
	Reserved1y    gpucost.PerHour `json:"reserved_1y"`           // per instance, 1-year effective hourly rate
	Reserved3y    gpucost.PerHour `json:"reserved_3y,omitempty"` // per instance, 3-year; zero to leave out
	Instances     int             `json:"instances"`
	HoursPerMonth int             `json:"hours_per_month,omitempty"` // 0 for 720
}

// ROIRow is one way to pay for the fleet.
type ROIRow struct {
	Option        string          `json:"option"`         // on-demand, reserved-1y, reserved-3y
	Hourly        gpucost.PerHour `json:"hourly"`         // per instance
	Monthly       gpucost.Money   `json:"monthly"`        // fleet, one month
	Yearly        gpucost.Money   `json:"yearly"`         // fleet, twelve months
	MonthlySaving gpucost.Money   `json:"monthly_saving"` // against on-demand
	YearlySaving  gpucost.Money   `json:"yearly_saving"`
	TermSaving    gpucost.Money   `json:"term_saving"` // over the whole term (one year on-demand)
	SavingPercent float64         `json:"saving_pct"`  // against on-demand
}

// ROIResult is the reserved-instance ROI table of reference case R2.
type ROIResult struct {
	Instances     int      `json:"instances"`
	HoursPerMonth int      `json:"hours_per_month"`
	Rows          []ROIRow `json:"rows"`
}

// ROI prices a fleet of in.Instances on-demand and on each reserved term. docs/architecture.md reference
// case R2: 8 × p3.2xlarge at 720 h/month, $3.06 on-demand, $1.82 1-year, $1.31 3-year →
// 1-year saving 40.5%, 3-year 57.2%.
func ROI(in ROIInput) (ROIResult, error) {
	hpm := in.HoursPerMonth
	if hpm == 0 {
		hpm = HoursPerMonth
	}
	if err := checkROI(in, hpm); err != nil {
		return ROIResult{}, err
	}
	res := ROIResult{Instances: in.Instances, HoursPerMonth: hpm}
	od := roiRow("on-demand", in.OnDemand, in, hpm, nil, 1)
	res.Rows = append(res.Rows, od)
	res.Rows = append(res.Rows, roiRow("reserved-1y", in.Reserved1y, in, hpm, &od, 1))
	if !in.Reserved3y.IsZero() {
		res.Rows = append(res.Rows, roiRow("reserved-3y", in.Reserved3y, in, hpm, &od, 3))
	}
	return res, nil
}

// roiRow prices one option; against od when it is a reserved term of the given years.
func roiRow(option string, hourly gpucost.PerHour, in ROIInput, hpm int, od *ROIRow, years int64) ROIRow {
	r := ROIRow{Option: option, Hourly: hourly}
	r.Monthly = times(hourly, int64(in.Instances)*int64(hpm))
	r.Yearly = times(r.Monthly, 12)
	zero := gpucost.Money{Currency: hourly.Currency}
	r.MonthlySaving, r.YearlySaving, r.TermSaving = zero, zero, zero
	if od != nil {
		r.MonthlySaving = od.Monthly.Sub(r.Monthly)
		r.YearlySaving = od.Yearly.Sub(r.Yearly)
		r.TermSaving = times(r.YearlySaving, years)
		r.SavingPercent = percent(r.MonthlySaving, od.Monthly)
	}
	return r
}

// checkROI returns an error saying what would work for an ROI request that has no answer.
func checkROI(in ROIInput, hpm int) error {
	if in.Instances < 1 {
		return gpucost.Errorf(gpucost.EInvalid, "%d instances: give at least 1", in.Instances)
	}
	if hpm < 1 || hpm > 744 {
		return gpucost.Errorf(gpucost.EInvalid, "%d hours per month is not a month: use 720 or 730", hpm)
	}
	if in.OnDemand.Nanos <= 0 {
		return gpucost.Errorf(gpucost.EInvalid, "on-demand price %s is not positive: give the hourly on-demand price of one instance", in.OnDemand.Decimal())
	}
	for _, r := range []struct {
		name  string
		price gpucost.PerHour
		opt   bool
	}{{"1-year", in.Reserved1y, false}, {"3-year", in.Reserved3y, true}} {
		if r.opt && r.price.IsZero() {
			continue
		}
		if r.price.Nanos <= 0 || r.price.Nanos >= in.OnDemand.Nanos {
			return gpucost.Errorf(gpucost.EInvalid, "reserved %s price %s is not between 0 and on-demand %s: give its effective hourly rate per instance",
				r.name, r.price.Decimal(), in.OnDemand.Decimal())
		}
		if orUSD(r.price.Currency) != orUSD(in.OnDemand.Currency) {
			return gpucost.Errorf(gpucost.EInvalid, "reserved %s price is in %s and on-demand in %s: give both in one currency",
				r.name, orUSD(r.price.Currency), orUSD(in.OnDemand.Currency))
		}
	}
	return nil
}

func orUSD(c string) string {
	if c == "" {
		return "USD"
	}
	return c
}
