package recommend

import "github.com/gpucost/gpucost"

// NewOptions returns the recommender's options as gpucost recommend's flags give them: the
// least monthly saving in dollars (such as "100"), whether work may move to another provider,
// and the GB a moved workload carries.
func NewOptions(minSaving string, otherProviders bool, moveDataGB float64) (Options, error) {
	if !(moveDataGB >= 0 && moveDataGB < 1e9) {
		return Options{}, gpucost.Errorf(gpucost.EInvalid, "--move-data-gb %v: give the GB a moved workload carries, such as 1000", moveDataGB)
	}
	m, err := gpucost.ParseMoney(minSaving, "USD")
	if err != nil || m.Nanos < 0 {
		return Options{}, gpucost.Errorf(gpucost.EInvalid, "--min-saving %q: use dollars, such as 100", minSaving)
	}
	return Options{MinSaving: m, OtherProviders: otherProviders, MoveDataGB: moveDataGB}, nil
}
