package fleet

import "github.com/gpucost/gpucost"

// RealizedCents is a realized report's monthly savings as a table of its steps prints them, in
// the order of RealizedReport.Steps, and the total row's.
type RealizedCents struct {
	Predicted, Realized           []gpucost.Money
	TotalPredicted, TotalRealized gpucost.Money
}

// Cents returns each step's predicted and realized monthly saving rounded to the cent, and
// their totals: the steps in the report's total (measured, in its currency) are rounded by
// largest remainder (gpucost.Apportion) so that they add up to the total as printed, the
// exact total rounded; the others are each rounded on their own. report savings --realized
// and the dashboard's Realized savings print these.
func (r RealizedReport) Cents() RealizedCents {
	c := RealizedCents{Predicted: make([]gpucost.Money, len(r.Steps)), Realized: make([]gpucost.Money, len(r.Steps)),
		TotalPredicted: gpucost.Money{Currency: r.Predicted.Currency}, TotalRealized: gpucost.Money{Currency: r.Realized.Currency}}
	var in []int
	var predicted, realized []gpucost.Money
	for i, s := range r.Steps {
		c.Predicted[i], c.Realized[i] = s.Predicted.Round(2), s.Realized.Round(2)
		if r.Measured > 0 && s.Status == RealizedMeasured && s.Realized.Currency == r.Realized.Currency {
			in = append(in, i)
			predicted, realized = append(predicted, s.Predicted), append(realized, s.Realized)
		}
	}
	predicted, realized = gpucost.Apportion(predicted, 2), gpucost.Apportion(realized, 2)
	for j, i := range in {
		c.Predicted[i], c.Realized[i] = predicted[j], realized[j]
		c.TotalPredicted, c.TotalRealized = c.TotalPredicted.Add(predicted[j]), c.TotalRealized.Add(realized[j])
	}
	return c
}
