package present

import "github.com/gpucost/gpucost"

// printedCents returns m rounded to the cent as Money.Dollars prints it, for a figure derived from
// printed ones, such as a difference that must hold on the printed figures
// (docs/architecture.md "Rounding").
func printedCents(m gpucost.Money) gpucost.Money { return m.Round(2) }
